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

void AddRecordTool(sdk::Registrar& registrar, ToolContext& ctx);
void AddQueryTool(sdk::Registrar& registrar, ToolContext& ctx);
void AddRouteTool(sdk::Registrar& registrar, ToolContext& ctx);

/// "2026-01-01T00:00:00Z" or a ToolError naming `field` and the accepted forms.
std::int64_t ParseTimeArg(const nlohmann::json& value, std::string_view field);

}  // namespace kioku::affective
