#include "transport/http_sessions.hpp"

#include <algorithm>
#include <random>

namespace kioku::host {

HttpSessionTable::HttpSessionTable(const sdk::Clock& clock, std::int64_t idle_ms, std::size_t max_sessions)
    : clock_(clock), idle_ms_(idle_ms), max_sessions_(std::max<std::size_t>(1, max_sessions)) {}

std::shared_ptr<mcp::Session> HttpSessionTable::Make(const sdk::Caller& base_caller) const {
  // std::random_device reads the kernel CSPRNG on Linux (libstdc++ "default" token), which
  // is what 2025-11-25 asks of session ids ("cryptographically secure").
  static thread_local std::random_device device;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (int word = 0; word < 4; ++word) {
    std::uint32_t bits = device();
    for (int nibble = 0; nibble < 8; ++nibble, bits >>= 4) id.push_back(kHex[bits & 0xF]);
  }
  auto session = std::make_shared<mcp::Session>();
  session->id = std::move(id);
  session->base_caller = base_caller;
  // A separate random word, not part of the id: the instance is shown to other agents.
  std::string instance;
  for (std::uint32_t bits = device(), nibble = 0; nibble < 8; ++nibble, bits >>= 4) instance.push_back(kHex[bits & 0xF]);
  session->instance_id = std::move(instance);
  return session;
}

bool HttpSessionTable::Expired(const Entry& entry, std::int64_t now_ms) const {
  return idle_ms_ > 0 && now_ms - entry.last_used_ms > idle_ms_;
}

void HttpSessionTable::Insert(std::shared_ptr<mcp::Session> session) {
  const std::int64_t now = clock_.NowMs();
  std::lock_guard lock(mutex_);
  std::erase_if(sessions_, [&](const auto& item) { return Expired(item.second, now); });
  if (sessions_.size() >= max_sessions_) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](const auto& a, const auto& b) {
      return a.second.last_used_ms < b.second.last_used_ms;
    });
    sessions_.erase(oldest);
  }
  std::string id = session->id;
  sessions_[std::move(id)] = Entry{std::move(session), now};
}

std::shared_ptr<mcp::Session> HttpSessionTable::Find(const std::string& id, const std::string& agent_id) {
  const std::int64_t now = clock_.NowMs();
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  if (Expired(it->second, now)) {
    sessions_.erase(it);
    return nullptr;
  }
  // A session is bound to the agent that opened it, so a leaked id is useless with another
  // token (2025-11-25 security_best_practices "Session Hijacking").
  if (it->second.session->base_caller.agent_id != agent_id) return nullptr;
  it->second.last_used_ms = std::max(it->second.last_used_ms, now);
  return it->second.session;
}

bool HttpSessionTable::Erase(const std::string& id, const std::string& agent_id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.session->base_caller.agent_id != agent_id) return false;
  const bool live = !Expired(it->second, clock_.NowMs());
  sessions_.erase(it);
  return live;
}

std::size_t HttpSessionTable::Size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

}  // namespace kioku::host
