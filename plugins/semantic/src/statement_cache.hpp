#pragma once
/// @file statement_cache.hpp
/// Prepared statements reused across calls. Preparing the recall statements (joins over
/// FTS5 with filters) costs more than running them on a small store, so hot paths reuse
/// them. One cache per plugin instance, keyed by connection handle and SQL text.
///
/// Lifetime: the cache must be destroyed before any connection it holds statements for is
/// closed (SQLiteCpp closes with sqlite3_close, which refuses while statements are open).
/// The host destroys plugin instances before its connection pool, and the plugin owns the
/// cache, so that holds for tool calls; a private database (harness, benchmarks) must
/// declare its cache after the database.
///
/// Thread-safety: Get is safe from any thread. A returned statement belongs to the calling
/// thread's connection, which only that thread uses (HostServices::Db), so using it
/// needs no lock. Use one statement to completion before calling Get again: when a
/// connection's entry count reaches kMaxPerConnection its statements are all dropped.

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

namespace kioku::semantic {

class StatementCache {
 public:
  static constexpr std::size_t kMaxPerConnection = 256;

  StatementCache() = default;
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  /// The statement for (db, sql), prepared on first use; reset, bindings cleared.
  SQLite::Statement& Get(SQLite::Database& db, const std::string& sql);

 private:
  using PerConnection = std::unordered_map<std::string, std::unique_ptr<SQLite::Statement>>;
  std::mutex mutex_;
  std::unordered_map<const void*, PerConnection> by_connection_;
};

}  // namespace kioku::semantic
