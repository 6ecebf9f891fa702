#pragma once
/// @file dispatcher.hpp
/// The MCP JSON-RPC dispatcher, shared by every transport (no transport knowledge here).
/// Dual-era (see reference/mcp-spec-2026-07-28/basic_versioning.mdx):
///   - legacy: `initialize` handshake negotiating 2025-11-25 / 2025-06-18 / 2025-03-26,
///     `notifications/initialized`, `ping`, `tools/list`, `tools/call`,
///     `notifications/cancelled`;
///   - modern 2026-07-28: no handshake (`initialize` and `ping` answer -32601); every request carries `_meta`
///     `io.modelcontextprotocol/protocolVersion` and `.../clientCapabilities`; results carry
///     `resultType` and `_meta.io.modelcontextprotocol/serverInfo`; `server/discover`;
///     list results carry `ttlMs`/`cacheScope`; errors -32022 (unsupported version) and
///     -32602 (missing per-request fields).

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::host {

class Runtime;
struct RegisteredTool;

namespace mcp {

inline constexpr const char* kModernVersion = "2026-07-28";
/// Legacy versions answered by `initialize`, newest first.
inline const std::vector<std::string> kLegacyVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};

/// Per-request `_meta` keys of the 2026-07-28 protocol (basic_index.mdx "Per-request protocol
/// fields"); shared by the dispatcher and the HTTP transport, which routes on them.
inline constexpr const char* kMetaVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";

/// `params._meta` when `params` is an object holding an object `_meta`, else nullptr.
const nlohmann::json* RequestMeta(const nlohmann::json& params);
/// A 2026-07-28 request: its params._meta carries the protocol version.
bool IsModernRequest(const nlohmann::json& params);
/// Every protocol version we answer: the modern one, then kLegacyVersions.
std::vector<std::string> SupportedVersions();

/// JSON-RPC / MCP error codes.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kHeaderMismatch = -32020,
  kMissingClientCapability = -32021,
  kUnsupportedProtocolVersion = -32022,
  /// kioku: the caller's token may not use the requested project (HTTP 403).
  kProjectForbidden = -32003,
};

/// Per-request project a client names: `params._meta["dev.kioku/project"]` (the HTTP
/// transport copies the `Kioku-Project` header there). A file:// URI, a path or a project id.
inline constexpr const char* kMetaProject = "dev.kioku/project";

/// MCP roots of a legacy connection (2025-11-25 client_roots.mdx): requested with
/// `roots/list` after `notifications/initialized` and again on
/// `notifications/roots/list_changed`. Shared by copies of a Session.
struct RootsState {
  std::mutex mutex;
  std::condition_variable answered;
  bool pending = false;     ///< A roots/list request is out and unanswered.
  std::string request_id;   ///< Its JSON-RPC id ("kioku-roots-<n>").
  int sequence = 0;
  std::optional<sdk::ProjectInfo> project;  ///< From the latest answer; nullopt = none.
};

/// State of one client connection (a stdio process, or a legacy HTTP `Mcp-Session-Id`).
/// Modern requests are stateless and only read `base_caller`, `instance_id` and
/// `allowed_projects` from it.
struct Session {
  std::string id;  ///< Transport session id (stdio: generated; HTTP: Mcp-Session-Id).
  /// Identity the transport established: agent id from a bearer token (trusted) or the
  /// environment (KIOKU_AGENT_ID); project root/identity of the server.
  sdk::Caller base_caller;
  std::string protocol_version;   ///< Negotiated by legacy `initialize`; empty before it.
  std::string client_name;        ///< From legacy initialize clientInfo.name.
  /// Distinct per connection (Caller::instance_id); "" for stateless HTTP requests.
  std::string instance_id;
  bool client_roots = false;  ///< Legacy initialize declared capabilities.roots.
  /// Sends a server→client message (stdio). Unset: no server requests (roots/list) possible.
  std::function<void(const nlohmann::json&)> send;
  /// Projects this connection may use (an HTTP token's `projects`); the first is its default.
  /// Empty = any project.
  std::vector<sdk::ProjectInfo> allowed_projects;
  std::shared_ptr<RootsState> roots = std::make_shared<RootsState>();
};

struct DispatcherOptions {
  std::string server_name = "kioku";
  std::string server_version;
  std::string instructions;
  std::size_t page_size = 100;      ///< tools/list page size (cursor pagination).
  long long list_ttl_ms = 300'000;  ///< Modern CacheableResult ttlMs for tools/list, discover.
  bool json_text_block = false;     ///< Also send structuredContent as a JSON text block.
  sdk::ProjectOptions projects;     ///< Identity settings (config `identity:`).
  /// How long a tool call waits for the client's answer to an outstanding roots/list before
  /// it runs with the project it has.
  int roots_wait_ms = 5000;
  std::size_t context_token_budget = 2000;  ///< Budget of the `context` prompt and resource.
  std::size_t context_max_chars = 10000;
};

/// The context block (context/context_block.hpp) is offered to clients without hooks as
/// both a prompt and a resource, advertised only when some layer provides context:
///   - prompt `context` (optional argument `query`): user-invoked, e.g. Claude Code's
///     `/mcp__kioku__context`, VS Code and Cursor prompt pickers; the query narrows it;
///   - resource `kioku://context` (text/plain): application-attached (Claude Desktop, VS
///     Code "Add Context", Cursor @-mentions), the session-start block.
/// Neither costs tool-list tokens, and neither runs unless the client asks.
inline constexpr const char* kContextPromptName = "context";
inline constexpr const char* kContextResourceUri = "kioku://context";

/// Thread-safe: Handle may run concurrently for different requests of one session (tool
/// calls on worker threads), and cancellation arrives on another thread.
class Dispatcher {
 public:
  Dispatcher(Runtime& runtime, DispatcherOptions options);

  /// Handles one JSON-RPC message (already parsed). Returns the response object, or
  /// nullopt for notifications, client responses and cancelled requests.
  std::optional<nlohmann::json> Handle(const nlohmann::json& message, Session& session);

  /// Parses `text` (one message) and handles it; a parse failure yields the -32700
  /// response. Returns the serialized response line (no newline) or "" when none is due.
  std::string HandleText(std::string_view text, Session& session);

  /// Parses one message. Refuses (returns nullopt and fills `error_response` with a -32700
  /// response) text that is not JSON, numbers beyond double range, and nesting deeper than
  /// kMaxDepth — checked on the raw text first, because nlohmann copies recursively and a
  /// 100,000-deep array would overflow the stack. A message that is JSON but for invalid
  /// UTF-8 inside a string gets a -32700 carrying its id when the id can be read.
  static std::optional<nlohmann::json> ParseMessage(std::string_view text, nlohmann::json& error_response);
  static constexpr int kMaxDepth = 64;

  /// Shutdown: cancels every call at every stage — running (its handler sees Cancelled()),
  /// queued for a worker, or handled later. The queued and later ones never run and are not
  /// answered; one that was running is answered with what it returns (a write that did not
  /// check Cancelled() is stored, and its answer says so to a client still reading).
  void CancelAll();

  /// True when `message` is a `tools/call` request (transports run those on workers).
  static bool IsToolCall(const nlohmann::json& message);

  /// Builds a JSON-RPC error response. A null `id` (the request's id could not be read: a
  /// parse error, an invalid request, a fault of the HTTP exchange) is sent as "id": null,
  /// as JSON-RPC 2.0 section 5 requires and the official MCP SDK servers do.
  static nlohmann::json ErrorResponse(const nlohmann::json& id, int code, std::string message,
                                      nlohmann::json data = nullptr);

  const DispatcherOptions& Options() const { return options_; }

 private:
  nlohmann::json Initialize(const nlohmann::json& params, Session& session);
  nlohmann::json Discover() const;
  nlohmann::json ListTools(const nlohmann::json& params, bool modern) const;
  nlohmann::json CallTool(const nlohmann::json& params, Session& session,
                          bool modern, const std::shared_ptr<std::atomic<bool>>& cancel);
  nlohmann::json ToolJson(const RegisteredTool& tool) const;
  nlohmann::json Capabilities(bool modern) const;
  nlohmann::json ListPrompts(bool modern) const;
  nlohmann::json GetPrompt(const nlohmann::json& params, Session& session, bool modern);
  nlohmann::json ListResources(bool modern) const;
  nlohmann::json ReadResource(const nlohmann::json& params, Session& session, bool modern);
  std::string ContextText(const std::string& query, const sdk::Caller& caller);
  /// The caller of a request: the session's identity, then the client's name.
  sdk::Caller CallerFor(const nlohmann::json& params, const Session& session, bool modern) const;
  bool OffersContext() const;
  void Cancel(const nlohmann::json& params, Session& session);
  /// Sends roots/list when the client declared roots and the transport can send.
  void RequestRoots(Session& session);
  /// A client's answer to our roots/list; false when `message` answers something else.
  bool TakeRootsAnswer(const nlohmann::json& message, Session& session);
  /// The project of one tools/call (see the order in the .cpp); nullopt when a 2026-07-28
  /// client declared roots and must first answer the InputRequiredResult returned in `ask`.
  std::optional<sdk::ProjectInfo> CallProject(const nlohmann::json& params, Session& session, bool modern,
                                              nlohmann::json& ask);

  Runtime& runtime_;
  DispatcherOptions options_;
  std::mutex inflight_mutex_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> inflight_;  // session|id → flag
  static constexpr std::size_t kMaxEarlyCancels = 1024;
  std::deque<std::string> early_cancels_;  // keys of cancellations that arrived first
  std::atomic<bool> shutting_down_{false};  // CancelAll ran: every later tools/call is cancelled
};

}  // namespace mcp
}  // namespace kioku::host
