#pragma once
/// @file tools.hpp
/// Tool groups of the episodic plugin; each registers its tools with the registrar.

#include "tool_support.hpp"
#include "kioku/sdk/plugin.hpp"

namespace kioku::sdk {
class LayerVectors;
}

namespace kioku::episodic {

/// session_start, session_log, session_end, session_summary_add.
void RegisterSessionTools(sdk::Registrar& registrar, ToolContext& env);
/// session_recall (its vector list from `vectors`), session_timeline.
void RegisterRecallTools(sdk::Registrar& registrar, ToolContext& env, sdk::LayerVectors& vectors);
/// session_ingest and the `kioku ingest` command.
void RegisterIngestTools(sdk::Registrar& registrar, ToolContext& env);

}  // namespace kioku::episodic
