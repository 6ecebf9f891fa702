#include "semantic_plugin.hpp"
#include "kioku/sdk/plugin_entry.hpp"

KIOKU_PLUGIN("semantic", "0.1.0",
             "Semantic memory: typed memories, hybrid recall, bi-temporal entity graph",
             kioku::semantic::SemanticPlugin)
