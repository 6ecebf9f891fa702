#pragma once
/// @file tools.hpp
/// The affective layer's MCP tools: feedback_record, feedback_query, feedback_route.

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "recorder.hpp"
#include "settings.hpp"

namespace kioku::affective {

/// What every tool handler needs; owned by the plugin, outlives the registrations.
struct ToolContext {
  sdk::HostServices& host;
  const Settings& settings;
  Recorder& recorder;
};

/// Longest tool name stored (bytes): MCP `server/tool` names are short; 200 is generous.
inline constexpr int kMaxToolNameChars = 200;
/// Largest batch feedback_record accepts.
inline constexpr int kMaxBatch = 1000;

void RegisterRecordTool(sdk::Registrar& registrar, ToolContext& ctx);
void RegisterQueryTool(sdk::Registrar& registrar, ToolContext& ctx);
void RegisterRouteTool(sdk::Registrar& registrar, ToolContext& ctx);

}  // namespace kioku::affective
