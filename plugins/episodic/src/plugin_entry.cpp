#include "episodic_plugin.hpp"
#include "kioku/sdk/plugin_entry.hpp"

KIOKU_PLUGIN("episodic", "0.1.0",
             "Episodic memory: sessions, summaries, recall by time and meaning, transcript ingest",
             kioku::episodic::EpisodicPlugin)
