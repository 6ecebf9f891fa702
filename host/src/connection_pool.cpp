#include "connection_pool.hpp"

#include <atomic>
#include <unordered_map>

#include <sqlite3.h>

#include "kioku/sdk/db.hpp"

namespace kioku::host {
namespace {
std::atomic<std::uint64_t> next_pool_id{1};
}

ConnectionPool::ConnectionPool(std::filesystem::path db_path, int busy_timeout_ms)
    : path_(std::move(db_path)), busy_timeout_ms_(busy_timeout_ms), id_(next_pool_id++) {}

ConnectionPool::~ConnectionPool() {
  std::lock_guard lock(mutex_);
  if (ClosesWithoutCheckpoint()) {
    for (const auto& db : all_) sqlite3_db_config(db->getHandle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  }
  all_.clear();
}

bool ConnectionPool::ClosesWithoutCheckpoint() const {
  if (checkpoint_above_wal_bytes_ == 0) return false;
  std::error_code ec;
  const auto wal_bytes = std::filesystem::file_size(path_.string() + "-wal", ec);
  return ec || wal_bytes <= checkpoint_above_wal_bytes_;
}

SQLite::Database& ConnectionPool::ForThisThread() {
  // Weak references: the pool owns the connections, so destroying the pool closes them
  // even while threads that used them live on; stale entries are dropped lazily.
  thread_local std::unordered_map<std::uint64_t, std::weak_ptr<SQLite::Database>> mine;
  if (auto it = mine.find(id_); it != mine.end()) {
    if (auto db = it->second.lock()) return *db;
  }
  for (auto it = mine.begin(); it != mine.end();) {
    it = it->second.expired() ? mine.erase(it) : std::next(it);
  }
  auto db = std::make_shared<SQLite::Database>(sdk::OpenDatabase(path_.string(), busy_timeout_ms_));
  {
    std::lock_guard lock(mutex_);
    all_.push_back(db);
  }
  mine[id_] = db;
  return *db;
}

}  // namespace kioku::host
