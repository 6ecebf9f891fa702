#include "working_plugin.hpp"
#include "kioku/sdk/plugin_entry.hpp"

KIOKU_PLUGIN("working", "0.1.0",
             "Working memory: workspace, focus, shared blocks, handoffs, presence, file "
             "claims, questions",
             kioku::working::WorkingPlugin)
