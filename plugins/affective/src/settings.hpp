#pragma once
/// @file settings.hpp
/// The `affective:` section of kioku.yaml (JSON after the host converts it).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::affective {

/// Settings of `kioku hook post-tool-use`.
struct HookSettings {
  /// Agent id recorded when neither `--agent` nor KIOKU_AGENT_ID is set.
  std::string agent_id = "claude-code";
  /// MCP servers (`mcp__<server>__<tool>`) whose calls the hook ignores because the server
  /// records them itself through the tool-call event (kioku's own tools) — recording them
  /// twice would double their counts.
  std::vector<std::string> skip_mcp_servers = {"kioku"};
};

/// Every key is optional; the defaults below apply when it is missing.
struct Settings {
  double half_life_days = 14.0;   ///< Recency half-life of feedback_route (days, > 0).
  double min_samples = 10.0;      ///< Effective n at which a score is `confident`.
  double z = 1.96;                ///< Wilson z (1.96 = two-sided 95 %).
  double explore_weight = 1.0;    ///< UCB bonus weight used when `explore: true`.
  int retention_days = 90;        ///< Raw rows older than this are pruned; buckets stay.
  int error_max_bytes = 500;      ///< Stored error text is cut to this many bytes.
  int recent_failures = 5;        ///< Failures listed per tool by feedback_query.
  bool capture = true;            ///< Record every kioku tool call (tool.called event).
  std::vector<std::string> capture_exclude;  ///< Tools the capture ignores.
  HookSettings hook;
};

/// JSON Schema of the section (additionalProperties: false at every level).
nlohmann::json SettingsSchema();

/// Reads an already-validated section; missing keys keep their defaults.
Settings ParseSettings(const nlohmann::json& section);

}  // namespace kioku::affective
