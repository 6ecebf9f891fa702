#pragma once
/// @file tool.hpp
/// Tool specifications, call context and results — the MCP `Tool` / `CallToolResult` shapes
/// (MCP schema 2025-11-25 and 2026-07-28, `Tool`, `ToolAnnotations`, `CallToolResult`).

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/visibility.hpp"

namespace kioku::sdk {

/// MCP tool annotations. Hints only; clients must not trust them for security.
struct ToolAnnotations {
  bool read_only = false;    ///< readOnlyHint: the tool does not modify stored state.
  bool destructive = false;  ///< destructiveHint: may delete or overwrite (only if !read_only).
  bool idempotent = false;   ///< idempotentHint: repeating the call has no further effect.
  bool open_world = false;   ///< openWorldHint: kioku tools touch only kioku's database.
};

/// Which `server.tools.profile` lists a tool. `kCore` tools are listed by default; `kFull`
/// tools only when the deployment selects `profile: full` or names them in
/// `server.tools.include`. Unlisted tools still exist: other plugins reach them through
/// HostServices::CallTool, and `kioku call` runs them. Mark a tool `kFull` when an agent
/// rarely needs it in a session (its schema costs context on every request).
enum class ToolProfile { kCore, kFull };

/// Declaration of one tool. `name` matches `^[a-z][a-z0-9_]*$`, <= 48 chars, `<noun>_<verb>`.
/// `input_schema` is a JSON Schema (draft 2020-12 subset valijson understands: type,
/// properties, required, additionalProperties, enum, minimum/maximum, minLength/maxLength,
/// minItems/maxItems, items, oneOf/anyOf) with `"type": "object"` at the root. The host
/// validates arguments against it before the handler runs.
/// `output_schema` (optional, null = none): when set, every successful result must carry
/// conforming `structured`; the host checks this and turns a violation into an error.
struct ToolSpec {
  std::string name;
  std::string title;
  std::string description;
  Json input_schema = Json{{"type", "object"}};
  Json output_schema = nullptr;
  ToolAnnotations annotations;
  ToolProfile profile = ToolProfile::kCore;
  /// Optional: sets input_schema and output_schema when the host first needs them (a
  /// tools/list, the tool's first call) instead of at registration. A server needs every
  /// tool's schemas at start anyway; a one-shot process (`kioku call`, `kioku context`, each
  /// hook) makes one call, and building the ~70 bundled tools' schemas was ~7.5 M
  /// instructions, ~3 ms of a cold call. The host runs it once, on whichever thread first
  /// needs the schemas, while the plugin is alive: capture by value, or what the plugin
  /// owns. An exception from it fails the start (or, in a one-shot process, the call) with
  /// a message naming the tool.
  std::function<void(ToolSpec&)> schemas;
};

/// Where Caller::agent_id came from, most trusted first (ARCHITECTURE.md "Identity and
/// scope": token, then client configuration, then the call's own argument).
enum class AgentSource {
  kNone,        ///< Nothing named the agent ("" or "unknown"); a tool's argument may.
  kClientInfo,  ///< MCP clientInfo.name (self-reported client software name).
  kConfig,      ///< The process configuration: KIOKU_AGENT_ID, a CLI flag, a hook's config.
  kToken,       ///< An HTTP bearer token's configured agent (authenticated).
};

/// Who is calling. Filled by the host from the transport (HTTP token, MCP clientInfo,
/// KIOKU_AGENT_ID, MCP roots, the Kioku-Project header) — see ARCHITECTURE.md "Identity and
/// scope". Empty string = unknown. Resolve the acting agent with sdk::ResolveAgentId
/// (caller.hpp), never by reading an `agent_id` argument directly.
struct Caller {
  std::string agent_id;      ///< Agent name, e.g. "claude-main"; shared by its windows.
  AgentSource agent_source = AgentSource::kNone;
  /// Distinct per connection / process (stdio process, HTTP session), "" when the transport
  /// has none (one-shot CLI calls, stateless HTTP). Two windows configured with the same
  /// agent_id differ here; layers that hold leases (claims, presence) key on both.
  std::string instance_id;
  std::string session_id;    ///< Transport session (Mcp-Session-Id) or client-supplied id.
  /// Top folder of the project: the repository's work-tree root (or a configured package's
  /// folder), else the folder itself. Relative paths in tools are relative to it.
  std::string project_root;
  std::string project_id;    ///< sdk::ResolveProject(...).id (project_identity.hpp).
  std::string working_dir;   ///< The folder the caller runs in (may be below project_root).
  std::string client_name;   ///< MCP clientInfo.name, when known.
};

/// Per-call context handed to a handler. Valid for the duration of the call only.
struct CallContext {
  Caller caller;
  /// Soft deadline; handlers doing long loops should check `Expired()` and stop.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Set by the host when the client sent notifications/cancelled for this request.
  const std::atomic<bool>* cancelled = nullptr;

  /// The most bytes of content this result may carry: `text` plus the serialized
  /// `structured` JSON, counted in UTF-8 bytes. 0 = no cap. The host sets it from
  /// `server.max_result_bytes`; a tool that lists or prints stored data fits itself under it
  /// (fewer items, shorter previews, a cursor and an `omitted` count). A result that still
  /// exceeds it is cut by the host (text at a UTF-8 boundary) or refused (structured).
  std::size_t result_budget_bytes = 0;

  bool Cancelled() const { return cancelled != nullptr && cancelled->load(); }
  bool Expired() const { return std::chrono::steady_clock::now() >= deadline; }
};

/// Result of a tool call: `text` is the compact answer shown to the model; `structured` is
/// the machine-readable `structuredContent` (object or null). `is_error` marks a failure the
/// caller can fix (MCP `isError`), never a protocol fault.
struct ToolResult {
  std::string text;
  Json structured = nullptr;
  bool is_error = false;

  static ToolResult Ok(std::string text, Json structured = nullptr) {
    return ToolResult{std::move(text), std::move(structured), false};
  }
  static ToolResult Error(std::string text, Json structured = nullptr) {
    return ToolResult{std::move(text), std::move(structured), true};
  }
};

/// Thrown by a handler for a failure the caller can fix ("unknown id 01J9…; send an id from
/// memory_list"). The host turns it into a result with `isError: true` and the message as
/// text. Any other exception becomes an isError result naming an internal error.
class KIOKU_EXPORT ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A tool implementation. Runs on a host worker thread; may run concurrently with itself.
/// `args` has already been validated against the tool's input schema.
using ToolHandler = std::function<ToolResult(const Json& args, const CallContext& ctx)>;

}  // namespace kioku::sdk
