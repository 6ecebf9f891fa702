#pragma once
/// @file settings.hpp
/// The working plugin's YAML section (`working:`), its JSON Schema and parsed form.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kioku::working {

/// How an `agent_id` tool argument relates to the identity the transport supplied
/// (ARCHITECTURE.md "Identity and scope": transport identity is trusted over arguments).
enum class AgentIdArgument {
  /// The argument is used only when the transport could not tell (caller.agent_id empty or
  /// "unknown"); a different argument on an identified connection is refused.
  kFallback,
  /// The argument always wins (one stdio connection shared by several sub-agents).
  kOverride,
};

/// Parsed settings. Every field has the documented default; see SettingsSchema().
struct Settings {
  std::int64_t presence_ttl_seconds = 900;
  std::int64_t file_claim_default_ttl_seconds = 300;
  std::int64_t file_claim_max_ttl_seconds = 3600;
  std::int64_t workspace_default_ttl_seconds = 3600;
  std::int64_t workspace_max_ttl_seconds = 86'400;
  std::int64_t max_paths_per_call = 256;
  std::int64_t max_block_bytes = 8192;
  std::int64_t max_focus_section_bytes = 16'384;
  std::int64_t max_text_bytes = 16'384;
  std::int64_t dump_max_bytes = 8000;
  bool screen_secrets = true;
  AgentIdArgument agent_id_argument = AgentIdArgument::kFallback;
};

/// Shortest lease any tool accepts, in seconds (below this a lease expires before the
/// caller can act on it).
inline constexpr std::int64_t kMinTtlSeconds = 5;

/// JSON Schema of the `working:` section (additionalProperties: false, defaults stated).
nlohmann::json SettingsSchema();

/// Parses an already schema-validated section; missing keys take defaults. Throws
/// std::runtime_error naming the key when values contradict each other (e.g. a default
/// ttl above the maximum).
Settings ParseSettings(const nlohmann::json& section);

}  // namespace kioku::working
