#pragma once
/// @file sql.hpp
/// SQL helpers for a layer's store files: binding values without hand-numbered indexes,
/// composing WHERE clauses with IN lists and prefix ranges, and a prepared-statement cache
/// whose statements cannot be reset or freed under a caller that still uses them.
///
/// Include only from store files (SQL lives there, not in tool handlers); this header
/// pulls SQLiteCpp's Statement.h.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

namespace kioku::sdk {

/// A value to bind: NULL, INTEGER, REAL or TEXT (booleans bind as 0/1 INTEGER).
using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

/// Binds one value at 1-based `index`.
void BindValue(SQLite::Statement& stmt, int index, const SqlValue& value);

/// Binds `values` to ?1, ?2, … in order (after clearing earlier bindings is the caller's
/// choice; this only sets). Throws SQLite::Exception when there are more values than
/// parameters.
void BindAll(SQLite::Statement& stmt, const std::vector<SqlValue>& values);

/// Binds `args` to ?1, ?2, … in order — SQLiteCpp's `SQLite::bind` (VariadicBind.h)
/// extended to std::optional (nullopt binds NULL), std::string_view and bool. Example:
///   sdk::Bind(q, project_id, agent_id, now_ms, std::optional<std::string>{});
template <class... Args>
void Bind(SQLite::Statement& stmt, const Args&... args);

/// Smallest string greater than every string that starts with `prefix` in byte (BINARY
/// collation) order, or "" when none exists (empty prefix, or all bytes 0xff). With it a
/// prefix filter is the range `col >= prefix AND col < upper`, which uses the column's
/// index, unlike LIKE/GLOB (where `%`, `_`, `*` in user text would also mean something).
std::string PrefixUpperBound(std::string_view prefix);

/// Builds a WHERE clause and its bindings together, so placeholders and values cannot get
/// out of step. Conditions are joined with AND. Column names come from plugin code.
///   sdk::SqlWhere w;
///   w.In("tool", tools).Prefix("tool", prefix).Equal("agent_id", agent);
///   SQLite::Statement q(db, "SELECT … FROM t" + w.Sql() + " ORDER BY …");
///   sdk::BindAll(q, w.Values());
class SqlWhere {
 public:
  /// `column IN (?, ?, …)`; an empty list adds `0` (matches nothing), as SQL's IN () would.
  SqlWhere& In(std::string_view column, const std::vector<std::string>& values);
  /// `column >= ? [AND column < ?]` (PrefixUpperBound); an empty prefix adds nothing.
  SqlWhere& Prefix(std::string_view column, std::string_view prefix);
  /// `column = ?`; nothing when `value` is nullopt.
  SqlWhere& Equal(std::string_view column, const std::optional<std::string>& value);
  /// Any condition with its own `?` placeholders, e.g. Raw("at_ms >= ?", {since}).
  SqlWhere& Raw(std::string_view condition, std::vector<SqlValue> values = {});

  /// " WHERE a AND b" ("" when no condition was added).
  std::string Sql() const;
  /// " AND a AND b", for appending to a query that already has a WHERE.
  std::string AndSql() const;
  const std::vector<SqlValue>& Values() const { return values_; }

 private:
  std::vector<std::string> conditions_;
  std::vector<SqlValue> values_;
};

/// `n` comma-separated placeholders, "?, ?, ?" (for VALUES lists; SqlWhere::In for IN).
std::string Placeholders(std::size_t n);

class StatementCache;

/// Idle prepared statements of one connection, keyed by their SQL text.
using StatementShelf = std::unordered_multimap<std::string, std::unique_ptr<SQLite::Statement>>;

/// A statement leased from a StatementCache: the caller owns it exclusively until the
/// lease is destroyed, which resets it, clears its bindings and returns it to the cache.
/// Move-only. Use it on the thread whose connection it belongs to.
class CachedStatement {
 public:
  CachedStatement(CachedStatement&& other) noexcept;
  CachedStatement& operator=(CachedStatement&&) = delete;
  CachedStatement(const CachedStatement&) = delete;
  CachedStatement& operator=(const CachedStatement&) = delete;
  ~CachedStatement();

  SQLite::Statement& operator*() const { return *node_.mapped(); }
  SQLite::Statement* operator->() const { return node_.mapped().get(); }

 private:
  friend class StatementCache;
  CachedStatement(StatementCache* cache, const void* connection, StatementShelf::node_type node);
  StatementCache* cache_;
  const void* connection_;
  StatementShelf::node_type node_;  ///< SQL text and statement, taken off the shelf whole (no copy)
};

/// Prepared statements reused across calls, keyed by (connection, SQL text). Preparing a
/// join over FTS5 costs more than running it on a small store, so hot paths reuse them.
///
/// No use-one-at-a-time trap: Get hands out a lease (CachedStatement) that takes the
/// statement out of the cache. Two leases of the same SQL at once (a nested query, a
/// recursive helper) get two statements; eviction only ever drops idle statements, so a
/// lease is never reset or freed under its holder.
///
/// Bounds: at most `max_idle_per_connection` idle statements per connection; returning a
/// statement beyond that frees it instead (the least useful policy that cannot thrash a
/// working set smaller than the bound).
///
/// Lifetime: destroy the cache before the connections it holds statements for are closed
/// (sqlite3_close refuses while statements are open); every lease must be gone before the
/// cache. The host destroys plugin instances before its connection pool, so a cache owned
/// by the plugin is safe; a private database (tests, benchmarks) must be declared before
/// the cache.
///
/// Thread-safety: Get and lease destruction lock a mutex; the statement itself belongs to
/// the calling thread's connection (HostServices::Db) and needs no lock.
class StatementCache {
 public:
  explicit StatementCache(std::size_t max_idle_per_connection = 256)
      : max_idle_(max_idle_per_connection) {}
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  /// A lease on a statement for `sql` on `db`: a cached idle one (reset, no bindings) or a
  /// newly prepared one. Throws SQLite::Exception when `sql` does not prepare.
  CachedStatement Get(SQLite::Database& db, const std::string& sql);

  /// Idle statements currently cached for `db` (for tests).
  std::size_t IdleCount(SQLite::Database& db);

 private:
  friend class CachedStatement;
  void Return(const void* connection, StatementShelf::node_type node);

  std::size_t max_idle_;
  std::mutex mutex_;
  std::unordered_map<const void*, StatementShelf> idle_;
};

// ---- template definitions ---------------------------------------------------------------

namespace detail {
// One argument of Bind, bound as its own type: no SqlValue (a copy of every string) on the
// way. Text is copied once, by SQLite (SQLITE_TRANSIENT): the caller's string may be a
// temporary that dies before the statement runs.
inline void BindOne(SQLite::Statement& stmt, int index, std::nullptr_t) { stmt.bind(index); }
inline void BindOne(SQLite::Statement& stmt, int index, bool v) { stmt.bind(index, std::int64_t{v ? 1 : 0}); }
inline void BindOne(SQLite::Statement& stmt, int index, double v) { stmt.bind(index, v); }
inline void BindOne(SQLite::Statement& stmt, int index, float v) { stmt.bind(index, static_cast<double>(v)); }
inline void BindOne(SQLite::Statement& stmt, int index, const std::string& v) { stmt.bind(index, v); }
inline void BindOne(SQLite::Statement& stmt, int index, std::string_view v) { stmt.bind(index, std::string(v)); }
inline void BindOne(SQLite::Statement& stmt, int index, const char* v) { stmt.bind(index, v); }
inline void BindOne(SQLite::Statement& stmt, int index, const SqlValue& v) { BindValue(stmt, index, v); }
template <class T>
  requires std::is_integral_v<T>
void BindOne(SQLite::Statement& stmt, int index, T v) {
  stmt.bind(index, static_cast<std::int64_t>(v));
}
template <class T>
void BindOne(SQLite::Statement& stmt, int index, const std::optional<T>& v) {
  if (v) {
    BindOne(stmt, index, *v);
  } else {
    stmt.bind(index);
  }
}
}  // namespace detail

template <class... Args>
void Bind(SQLite::Statement& stmt, const Args&... args) {
  int index = 0;
  (detail::BindOne(stmt, ++index, args), ...);
}

}  // namespace kioku::sdk
