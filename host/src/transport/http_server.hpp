#pragma once
/// @file http_server.hpp
/// The Streamable HTTP transport (MCP 2025-11-25 `basic/transports` and 2026-07-28
/// `basic/transports/streamable-http`) plus a plain JSON API, on Boost.Beast. Beast and Asio
/// stay in http_server.cpp (pimpl) so including this header costs little.
///
/// Endpoints:
///   POST   /mcp              one JSON-RPC message per request; answers `application/json`,
///                            except a legacy tools/call while a server request (roots/list)
///                            is queued for the client: then `text/event-stream` with that
///                            request first and the call's response last (http_push.hpp);
///                            notifications and client responses get 202 with an empty body.
///   DELETE /mcp              ends a legacy session (`Mcp-Session-Id`): 204, unknown 404.
///   GET    /mcp              405: no server-initiated stream is offered.
///   GET    /healthz          {"status":"ok","tools":N}; no token needed.
///   GET    /v1/tools         {"tools":[...]}, the entries of MCP tools/list.
///   POST   /v1/tools/{name}  the body is the arguments object; 200 {content,
///                            structuredContent, isError} (isError results are still 200),
///                            unknown tool 404, bad JSON 400.
///
/// Both protocol eras on one endpoint (2026-07-28 basic_versioning.mdx "dual-era server"):
///   - legacy: `initialize` mints a session whose id is sent in `Mcp-Session-Id`; later
///     messages must carry it (missing 400, unknown or expired 404), and an
///     `MCP-Protocol-Version` header, when sent, must be a supported legacy version (400);
///   - modern: a request whose params `_meta` holds io.modelcontextprotocol/protocolVersion is
///     stateless; `MCP-Protocol-Version`, `Mcp-Method` and (tools/call) `Mcp-Name` headers are
///     required and must equal the body (Base64 sentinel `=?base64?...?=` decoded), else 400
///     with JSON-RPC -32020 HeaderMismatch. Modern -32022/-32021/-32602/-32600 errors are sent
///     with 400 and -32601 with 404 (streamable-http.mdx "Protocol Version Header").
/// Security (streamable-http.mdx "Security & Endpoint"): a present `Origin` that is not
/// allowed gets 403; on a loopback bind a `Host` that is not loopback (or allowed_hosts)
/// gets 403; bearer tokens, when configured, are required on every endpoint but
/// /healthz (401 with `WWW-Authenticate: Bearer`) and name the caller's agent id; a
/// non-loopback bind without tokens is refused at Start().
///
/// Other answers: a body that is not JSON 400 with -32700, a batch or non-object 400 with
/// -32600 (JSON-RPC errors about the exchange itself carry "id": null, JSON-RPC 2.0
/// section 5); Content-Type other than JSON 415; an Accept that excludes application/json 406;
/// a legacy request cancelled by notifications/cancelled 202 with no body; allowed browser
/// origins get CORS headers (Mcp-Session-Id exposed) and OPTIONS preflights 204.
///
/// Tool calls run on a worker pool so a slow tool never blocks the I/O thread; every other
/// method is answered inline. A connection has at most one request in flight (no
/// pipelining), so queued calls are bounded by max_connections. Slow or silent clients are
/// bounded by header_timeout_ms and the per-address limit (see HttpServerOptions).
/// Connections are kept alive; Stop() drains. Not done: cancelling a call when its client
/// disconnects, a GET SSE stream,
/// Mcp-Param-* validation (no kioku tool declares x-mcp-header).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::host {

class Runtime;
namespace mcp {
class Dispatcher;
}

struct HttpServerOptions {
  /// IP address to bind ("127.0.0.1", "::1", "0.0.0.0"; "localhost" means 127.0.0.1).
  std::string address = "127.0.0.1";
  /// TCP port; 0 binds an ephemeral port (read it back with HttpServer::Port()).
  std::uint16_t port = 7077;
  /// Bearer token → agent id. Empty = no authentication (allowed on loopback only).
  std::map<std::string, std::string> tokens;
  /// Agent id → the projects its tokens may use (first = default when a request names
  /// none); a request for another project is answered 403. No entry = any project.
  std::map<std::string, std::vector<sdk::ProjectInfo>> agent_projects;
  /// Browser origins allowed besides loopback ones, exact match ("https://app.example").
  /// When bound to loopback, http(s)://localhost, 127.0.0.1 and [::1] on any port are allowed.
  std::vector<std::string> allowed_origins;
  /// On a loopback bind, Host header names accepted besides localhost, 127.0.0.1 and [::1]
  /// (any port); any other Host gets 403 (DNS rebinding). Ignored on other binds.
  std::vector<std::string> allowed_hosts;
  std::size_t max_body_bytes = 4 * 1024 * 1024;  ///< Larger bodies: 413 (JSON-RPC error on /mcp).
  /// A body over max_body_bytes is read and discarded up to this many more bytes before the
  /// 413 goes out, so clients that write the whole body first (Node fetch, Python) see it.
  std::size_t max_discard_bytes = 64 * 1024 * 1024;
  std::size_t max_header_bytes = 8 * 1024;       ///< Request line + headers; larger: 431.
  /// The whole request line and headers must arrive within this time, counted from the
  /// accept (or, on a kept-alive connection, from the end of the previous answer); a silent
  /// or trickling client is disconnected then, so half-open sockets cannot hold the slots.
  int header_timeout_ms = 10'000;
  int read_timeout_ms = 30'000;   ///< Per request body read.
  int write_timeout_ms = 30'000;  ///< Per response write.
  int worker_threads = 4;         ///< Threads running tool calls.
  int io_threads = 1;             ///< Threads running the sockets.
  /// Legacy sessions unused this long are forgotten (their id then gets 404). 0 = never.
  /// Measured with the Runtime's clock, so tests move it with a ManualClock.
  std::int64_t session_idle_ms = 30 * 60 * 1000;
  std::size_t max_sessions = 1024;     ///< Beyond this the least recently used session goes.
  /// Open connections at most, and at most max_connections_per_ip from one client address.
  /// A connection over either limit is answered 503 (JSON body naming the limit,
  /// Retry-After: 1) and closed; one over twice max_connections is closed unanswered.
  std::size_t max_connections = 256;
  std::size_t max_connections_per_ip = 64;
  int drain_timeout_ms = 10'000;       ///< Stop() waits this long for in-flight requests.
  /// Identity template for every call: project_root/project_id of the server and a default
  /// agent_id (e.g. KIOKU_AGENT_ID); a bearer token's agent id replaces agent_id.
  sdk::Caller base_caller;
};

/// Parses "ADDR:PORT", "[V6]:PORT", ":PORT" (keeps the address) or "PORT" into `options`.
/// Throws std::runtime_error with a one-line message naming the text on anything else.
void ParseListenAddress(std::string_view text, HttpServerOptions& options);

/// Serves `dispatcher` (and `runtime`'s tools for /v1) over HTTP. `runtime` and
/// `dispatcher` must outlive the server.
///
/// Use from a CLI:
///   HttpServer server(runtime, dispatcher, options);
///   server.Start();                  // binds; throws std::runtime_error on refusal/bind error
///   server.Run(stop_flag);           // blocks until stop_flag (set by a signal handler)
///                                    // is true, then drains: same as Stop()
/// or Start() … Stop() from any thread, with Wait() blocking until Stop() has finished.
class HttpServer {
 public:
  HttpServer(Runtime& runtime, mcp::Dispatcher& dispatcher, HttpServerOptions options);
  /// Stops (drains) if still running.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Checks the options, binds, listens and starts the I/O and worker threads. Throws
  /// std::runtime_error (one line naming the address and what to configure) when a
  /// non-loopback address has no tokens, or when the bind fails. Call once.
  void Start();
  /// The bound port (after Start()).
  std::uint16_t Port() const;
  /// Stops accepting, closes idle keep-alive connections, lets requests already read
  /// finish (at most drain_timeout_ms), then closes everything and joins the threads.
  /// Idempotent; thread-safe; not async-signal-safe (set Run's flag from signal handlers).
  void Stop();
  /// Blocks until Stop() has completed.
  void Wait();
  /// Start() if not started, block until `stop` becomes true (polled every 50 ms, so a
  /// signal handler may set it), then Stop().
  void Run(const std::atomic<bool>& stop);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kioku::host
