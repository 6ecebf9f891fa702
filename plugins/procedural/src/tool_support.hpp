#pragma once
/// @file tool_support.hpp
/// What the procedural tool handlers share: the caller as an Actor, limits, argument
/// readers the SDK does not offer (task references, trimmed text, integer ranges).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/tool.hpp"
#include "plan_ops.hpp"

namespace kioku::sdk {
class LayerVectors;
}

namespace kioku::procedural {

using sdk::Json;

/// Bounds of stored text (UTF-8 bytes) and of one request.
inline constexpr std::size_t kMaxTitleBytes = 300;
inline constexpr std::size_t kMaxTextBytes = 4000;
inline constexpr std::size_t kMaxNoteBytes = 2000;
inline constexpr std::size_t kMaxMarkdownBytes = 512 * 1024;
inline constexpr int kMaxTasks = 2000;
inline constexpr int kMaxCriteria = 20;
inline constexpr int kMaxTags = 20;
inline constexpr int kMaxSteps = 100;
/// Tasks and ready tasks shown by plan_status when no limit is sent.
inline constexpr int kDefaultTaskPage = 50;
inline constexpr int kReadyShown = 20;

/// What the handlers need; owned by the plugin, outlives every registration.
struct ToolContext {
  sdk::HostServices& host;
  /// Procedure embeddings (status "off" without an embedder); owned by the plugin.
  sdk::LayerVectors* vectors = nullptr;
  std::int64_t Now() const { return host.GetClock().NowMs(); }
  SQLite::Database& Db() const { return host.Db(); }
};

/// The caller: its agent id ("unknown" when the transport cannot tell) and project
/// (project_id, else the project root, else "").
Actor ActorOf(const sdk::CallContext& ctx);

/// A task reference: "t3", "T3", "3" or 3. ToolError naming `field` otherwise.
int TaskRef(const Json& value, const std::string& field);

/// args[key] as trimmed text of at most `max_bytes` (invalid UTF-8 replaced); nullopt when
/// absent; ToolError naming the key when too long.
std::optional<std::string> Text(const Json& args, const char* key, std::size_t max_bytes);
/// Checks one already-extracted string the same way; `field` names it in errors.
std::string CheckedText(const std::string& raw, const std::string& field, std::size_t max_bytes);

/// args[key] as an integer in [min, max]; `fallback` when absent; ToolError naming the key
/// and the range otherwise (the schema says only "integer", to stay short).
std::int64_t IntArg(const Json& args, const char* key, std::int64_t min, std::int64_t max,
                    std::int64_t fallback);
/// Each item of args[key] as an integer in [min, max] (empty when absent).
std::vector<int> IntListArg(const Json& args, const char* key, int min, int max);

/// ToolError when `array` has more than `max` items ("tasks has 2500 items; the limit is …").
void CheckCount(const Json& array, std::size_t max, const std::string& field);

/// Tags: trimmed, non-empty, at most kMaxTags of at most 64 bytes.
std::vector<std::string> TagsArg(const Json& args);

std::string Rfc(std::int64_t ms);

/// JSON Schema builders: sdk/schema.hpp. tools/list is paid in context: no titles, no
/// per-property descriptions unless the name does not explain itself; lengths and counts
/// are checked by the handlers, in bytes, with messages naming the field.
namespace schema = sdk::schema;

void RegisterPlanTools(sdk::Registrar& registrar, ToolContext& ctx);
void RegisterProcedureTools(sdk::Registrar& registrar, ToolContext& ctx);

}  // namespace kioku::procedural
