#include "affective_plugin.hpp"
#include "kioku/sdk/plugin_entry.hpp"

KIOKU_PLUGIN("affective", "0.1.0",
             "Tool outcomes, automatic capture and recency-weighted Wilson routing scores",
             kioku::affective::AffectivePlugin)
