#pragma once
/// @file tool.hpp
/// Tool specifications, call context and results — the MCP `Tool` / `CallToolResult` shapes
/// (MCP schema 2025-11-25 and 2026-07-28, `Tool`, `ToolAnnotations`, `CallToolResult`).

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "kioku/sdk/abi.hpp"
#include "kioku/sdk/json.hpp"

namespace kioku::sdk {

/// MCP tool annotations. Hints only; clients must not trust them for security.
struct ToolAnnotations {
  bool read_only = false;    ///< readOnlyHint: the tool does not modify stored state.
  bool destructive = false;  ///< destructiveHint: may delete or overwrite (only if !read_only).
  bool idempotent = false;   ///< idempotentHint: repeating the call has no further effect.
  bool open_world = false;   ///< openWorldHint: kioku tools touch only kioku's database.
};

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
};

/// Who is calling. Filled by the host from the transport (HTTP token, MCP clientInfo,
/// KIOKU_AGENT_ID) — see ARCHITECTURE.md "Identity and scope". Empty string = unknown.
struct Caller {
  std::string agent_id;      ///< Stable agent identity, e.g. "claude-code" or a token's agent.
  std::string session_id;    ///< Transport session (Mcp-Session-Id) or client-supplied id.
  std::string project_root;  ///< Absolute path of the project the server serves.
  std::string project_id;    ///< Normalized git remote + path in repo, or the root path.
  std::string client_name;   ///< MCP clientInfo.name, when known.
};

/// Per-call context handed to a handler. Valid for the duration of the call only.
struct CallContext {
  Caller caller;
  /// Soft deadline; handlers doing long loops should check `Expired()` and stop.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Set by the host when the client sent notifications/cancelled for this request.
  const std::atomic<bool>* cancelled = nullptr;

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
