#include "working_plugin.hpp"

KIOKU_PLUGIN("working", "0.1.0",
             "Working memory: workspace, focus, shared blocks, handoffs, presence, file "
             "claims, questions",
             kioku::working::WorkingPlugin)
