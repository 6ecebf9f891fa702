#include "statement_cache.hpp"

namespace kioku::semantic {

SQLite::Statement& StatementCache::Get(SQLite::Database& db, const std::string& sql) {
  SQLite::Statement* stmt = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    PerConnection& mine = by_connection_[db.getHandle()];
    auto it = mine.find(sql);
    if (it != mine.end()) {
      stmt = it->second.get();
    } else {
      if (mine.size() >= kMaxPerConnection) mine.clear();
      // Preparing under the lock is fine: other threads only wait on the map, and
      // preparation takes microseconds.
      stmt = mine.emplace(sql, std::make_unique<SQLite::Statement>(db, sql)).first->second.get();
      return *stmt;
    }
  }
  stmt->reset();
  stmt->clearBindings();
  return *stmt;
}

}  // namespace kioku::semantic
