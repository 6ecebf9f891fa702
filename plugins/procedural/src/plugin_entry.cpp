#include "procedural_plugin.hpp"
#include "kioku/sdk/plugin_entry.hpp"

KIOKU_PLUGIN("procedural", "0.1.0",
             "Plans with tasks, dependencies, blockers, validation and audit; versioned procedures",
             kioku::procedural::ProceduralPlugin)
