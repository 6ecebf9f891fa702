#pragma once
/// @file http_router.hpp
/// What the HTTP transport answers, without any socket code: routing, Origin and bearer
/// checks, the MCP header rules of both eras, sessions and the plain JSON API. The Beast
/// layer (http_server.cpp) turns bytes into HttpRequest and HttpResponse back into bytes.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transport/http_server.hpp"
#include "transport/http_sessions.hpp"

namespace kioku::host {

/// One parsed HTTP request. Header names are lower-case; repeated headers stay separate.
struct HttpRequest {
  std::string method;  ///< "GET", "POST", ...
  std::string target;  ///< Origin-form, e.g. "/mcp?x=1".
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// The first value of header `lower_name`, or nullptr.
  const std::string* Header(std::string_view lower_name) const;
  /// How many times header `lower_name` occurs.
  int Count(std::string_view lower_name) const;
};

struct HttpResponse {
  unsigned status = 200;
  std::string content_type;  ///< Empty with an empty body (202, 204).
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< Extra headers.
};

/// The outcome of routing: a response now, or work (a tool call) that yields it and must
/// run on a worker thread.
struct HttpRoute {
  HttpResponse response;
  std::function<HttpResponse()> work;
  /// With `work`: server→client messages (serialized JSON-RPC, http_push.hpp) to send first;
  /// non-empty turns the answer into an SSE stream: these events, then work's body.
  std::vector<std::string> events;
};

/// Thread-safe; Route may run on several I/O threads at once, and the returned work on
/// workers. Holds references to `runtime`, `dispatcher` and `options`: they outlive it.
class HttpRouter {
 public:
  /// `loopback`: the server is bound to a loopback address (localhost origins allowed).
  HttpRouter(Runtime& runtime, mcp::Dispatcher& dispatcher, const HttpServerOptions& options, bool loopback);

  HttpRoute Route(const HttpRequest& request);

 private:
  HttpRoute RouteChecked(const HttpRequest& request, const std::string* origin);
  HttpRoute PostMcp(const HttpRequest& request, const std::string& agent_id);
  HttpRoute PostModern(const HttpRequest& request, const nlohmann::json& message, const std::string& agent_id);
  HttpRoute PostLegacy(const HttpRequest& request, const nlohmann::json& message, const std::string& agent_id);
  HttpResponse DeleteMcp(const HttpRequest& request, const std::string& agent_id);
  HttpResponse ListTools();
  HttpRoute CallToolApi(const HttpRequest& request, const std::string& name, const std::string& agent_id);
  HttpResponse Healthz() const;

  bool OriginAllowed(const std::string& origin) const;
  /// On a loopback bind: the Host header (port dropped) is localhost, 127.0.0.1, [::1] or
  /// one of allowed_hosts; no Host header is accepted (HTTP/1.0). Two are a 400 before
  /// any check (RouteChecked).
  bool HostAllowed(const HttpRequest& request) const;
  /// The agent id of a valid bearer token (or the base agent id without tokens); nullopt
  /// when tokens are configured and the request has none or a wrong one.
  std::optional<std::string> Authenticate(const HttpRequest& request) const;
  std::shared_ptr<mcp::Session> TempSession(const std::string& agent_id) const;

  Runtime& runtime_;
  mcp::Dispatcher& dispatcher_;
  const HttpServerOptions& options_;
  bool loopback_;
  HttpSessionTable sessions_;
};

/// The 413 for a body over `limit` bytes: a JSON-RPC error (-32600, "id": null) on /mcp like
/// every other /mcp error, `{"error": ...}` elsewhere.
HttpResponse BodyTooLarge(std::string_view target, std::size_t limit);

/// Decodes the 2026-07-28 header Base64 sentinel "=?base64?<b64>?=" (streamable-http.mdx
/// "Value Encoding"); a value without the sentinel is returned as is. nullopt when the
/// sentinel holds invalid Base64.
std::optional<std::string> DecodeHeaderValue(std::string_view value);

}  // namespace kioku::host
