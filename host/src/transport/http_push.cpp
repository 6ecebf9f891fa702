#include "transport/http_push.hpp"

#include <algorithm>

#include "kioku/sdk/json.hpp"

namespace kioku::host {

void HttpPushQueue::Push(const nlohmann::json& message) {
  std::lock_guard lock(mutex_);
  if (message.contains("method") && message.contains("id")) {
    const auto& method = message["method"];
    std::erase_if(messages_, [&](const nlohmann::json& m) {
      return m.contains("id") && m.value("method", nlohmann::json()) == method;
    });
  }
  messages_.push_back(message);
}

std::vector<std::string> HttpPushQueue::TakeAll() {
  std::vector<nlohmann::json> taken;
  {
    std::lock_guard lock(mutex_);
    taken.swap(messages_);
  }
  std::vector<std::string> out;
  out.reserve(taken.size());
  for (const auto& m : taken) out.push_back(sdk::DumpJson(m));
  return out;
}

void InstallHttpPush(mcp::Session& session) {
  session.send = HttpPush{std::make_shared<HttpPushQueue>()};
}

std::vector<std::string> TakeHttpPushed(const mcp::Session& session) {
  const HttpPush* push = session.send.target<HttpPush>();
  if (push == nullptr || !push->queue) return {};
  return push->queue->TakeAll();
}

std::string SseEvent(std::string_view json_text) {
  std::string out = "event: message\ndata: ";
  out += json_text;
  out += "\n\n";
  return out;
}

}  // namespace kioku::host
