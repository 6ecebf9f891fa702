#pragma once
/// @file http_push.hpp
/// Server→client requests of a legacy Streamable HTTP session (today only `roots/list`,
/// 2025-11-25 client/roots.mdx), delivered the way basic/transports.mdx "Sending Messages
/// to the Server" allows: the answer to a POSTed JSON-RPC request may be an SSE stream that
/// carries server requests before the response. The dispatcher's Session::send queues the
/// message here (after notifications/initialized, again on notifications/roots/list_changed);
/// the next tools/call whose Accept lists text/event-stream is answered as such a stream:
/// the queued requests first, then the call's result. The client POSTs its answer, the
/// dispatcher takes it (RootsState), and the waiting call runs with that project.
/// No standalone GET stream is offered (GET /mcp stays 405).

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/dispatcher.hpp"

namespace kioku::host {

/// Thread-safe queue of one session's server→client messages. A request replaces a queued
/// one of the same method (a newer roots/list supersedes one never delivered).
class HttpPushQueue {
 public:
  void Push(const nlohmann::json& message);
  /// The queued messages, serialized one per element, oldest first; the queue is then empty.
  std::vector<std::string> TakeAll();

 private:
  std::mutex mutex_;
  std::vector<nlohmann::json> messages_;
};

/// The Session::send of a legacy HTTP session: queues into `queue`. A named type so the
/// router finds the queue again through std::function::target.
struct HttpPush {
  std::shared_ptr<HttpPushQueue> queue;
  void operator()(const nlohmann::json& message) const { queue->Push(message); }
};

/// Gives `session` an HttpPush send (call before the session is shared).
void InstallHttpPush(mcp::Session& session);

/// What `session` has queued (serialized messages); empty when nothing, or when its send
/// is not an HttpPush.
std::vector<std::string> TakeHttpPushed(const mcp::Session& session);

/// One SSE event (WHATWG HTML "server-sent events"): "event: message\ndata: <json>\n\n".
/// `json_text` is one serialized message (no newlines, as DumpJson writes it).
std::string SseEvent(std::string_view json_text);

}  // namespace kioku::host
