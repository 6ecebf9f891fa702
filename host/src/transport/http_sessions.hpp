#pragma once
/// @file http_sessions.hpp
/// Legacy (2025-11-25 "Session Management") Streamable HTTP sessions: ids minted at
/// `initialize`, looked up on every later message, ended by DELETE or idle expiry.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kioku/sdk/clock.hpp"
#include "mcp/dispatcher.hpp"

namespace kioku::host {

/// Thread-safe table of sessions. A session handed out stays valid (shared ownership) even
/// if it is erased or expires while a request still uses it.
class HttpSessionTable {
 public:
  /// `idle_ms` 0 = sessions never expire. `clock` must outlive the table.
  HttpSessionTable(const sdk::Clock& clock, std::int64_t idle_ms, std::size_t max_sessions);

  /// A new session (not yet stored) with a fresh id: 32 hex digits from std::random_device
  /// (128 bits; visible ASCII as the spec requires).
  std::shared_ptr<mcp::Session> Make(const sdk::Caller& base_caller) const;
  /// Stores `session` (after a successful initialize). Drops expired sessions and, at
  /// max_sessions, the least recently used one.
  void Insert(std::shared_ptr<mcp::Session> session);
  /// The live session `id` owned by `agent_id`, touching its idle timer; nullptr when the id
  /// is unknown, expired, or belongs to another agent (all answered 404).
  std::shared_ptr<mcp::Session> Find(const std::string& id, const std::string& agent_id);
  /// Removes session `id` owned by `agent_id`; false when there is none.
  bool Erase(const std::string& id, const std::string& agent_id);
  std::size_t Size() const;

 private:
  struct Entry {
    std::shared_ptr<mcp::Session> session;
    std::int64_t last_used_ms = 0;
  };
  bool Expired(const Entry& entry, std::int64_t now_ms) const;

  const sdk::Clock& clock_;
  std::int64_t idle_ms_;
  std::size_t max_sessions_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> sessions_;
};

}  // namespace kioku::host
