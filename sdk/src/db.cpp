#include "kioku/sdk/db.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/fts_rank.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::sdk {
namespace {

constexpr std::size_t kMinPrefixChars = 4;
constexpr int kMaxListedMatches = 5;

// The writer lock of a database file in this module (see WithWriteTransaction), and how
// many writers wait for it.
struct Writer {
  std::timed_mutex lock;
  std::atomic<int> waiting{0};
};

// The Writer of database file `file`: one per file the process writes, kept until it exits.
Writer& WriterOf(const std::string& file) {
  static std::mutex guard;
  static std::map<std::string, std::unique_ptr<Writer>> writers;
  std::lock_guard lock(guard);
  std::unique_ptr<Writer>& w = writers[file];
  if (!w) w = std::make_unique<Writer>();
  return *w;
}

// `db`'s main file, or "" for an in-memory or temporary database.
std::string FileOf(SQLite::Database& db) {
  const char* file = sqlite3_db_filename(db.getHandle(), "main");
  return file == nullptr ? std::string() : std::string(file);
}

void RollbackQuietly(SQLite::Database& db) {
  if (!InTransaction(db)) return;  // SQLite may already have rolled back (e.g. on SQLITE_FULL)
  try {
    db.exec("ROLLBACK");
  } catch (const SQLite::Exception&) {
    // Nothing more we can do; the original error is the one worth reporting.
  }
}

// The longest sleep before retry `attempt` + 1: 1, 2, 4, ... 50 ms.
int BackOffCapMs(int attempt) { return std::min(50, 1 << std::min(attempt - 1, 6)); }

void BackOff(int attempt) {
  thread_local std::mt19937 rng{std::random_device{}()};
  const int cap_ms = BackOffCapMs(attempt);
  // "Full jitter" (AWS Architecture Blog, "Exponential Backoff and Jitter"): spread
  // contending processes so they do not retry in lockstep.
  std::uniform_int_distribution<int> dist(cap_ms * 500, cap_ms * 1000);
  std::this_thread::sleep_for(std::chrono::microseconds(dist(rng)));
}

// For display in error messages: user input may be huge or contain control bytes.
// The typed text as quoted in a message: valid UTF-8, control bytes as U+FFFD (a NUL would
// end the ToolError's what() right there), at most 64 bytes.
std::string Shown(std::string_view s) {
  std::string shown;
  for (const char ch : TruncateUtf8(SanitizeUtf8(s), 64)) {
    if (static_cast<unsigned char>(ch) < 0x20) shown += "\xEF\xBF\xBD";
    else shown += ch;
  }
  return shown;
}

// The first character of `typed` no id holds: not printable ASCII (ids are ULIDs, UUIDs or
// printable ASCII names), or a wildcard a user may expect to work ('*', '%', '?'; prefixes
// match by their first characters only). Empty when there is none.
std::string NonIdCharacter(std::string_view typed) {
  for (const char ch : typed) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '*' || c == '%' || c == '?') return std::string(1, ch);
    if (c < 0x21 || c > 0x7E) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      return c == ' ' ? std::string("a space") : std::string("byte ") + hex;
    }
  }
  return {};
}

std::vector<std::string> MatchPrefix(SQLite::Database& db, const std::string& table,
                                     const std::string& column, const std::string& prefix, std::size_t n) {
  // A range instead of LIKE/GLOB so the column's index is used and `%`/`_` in user text
  // mean nothing. Comparison is by the column's collation (BINARY for ids).
  const std::string upper = PrefixUpperBound(prefix);
  std::string sql = "SELECT " + column + " FROM " + table + " WHERE " + column + " >= ?";
  if (!upper.empty()) sql += " AND " + column + " < ?";
  sql += " ORDER BY " + column + " LIMIT " + std::to_string(n);
  SQLite::Statement q(db, sql);
  q.bind(1, prefix);
  if (!upper.empty()) q.bind(2, upper);
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

// Takes the writer lock of `db`'s file for this module; none for an in-memory or temporary
// database. Waits at most the connection's busy timeout, or, without one (0, or a busy
// handler of the caller's), as long as the retries of `max_attempts` would sleep. Throws
// SQLite's busy error (SQLITE_BUSY) when the wait runs out, as a lock held elsewhere does.
std::unique_lock<std::timed_mutex> LockWriter(SQLite::Database& db, int max_attempts) {
  const std::string file = FileOf(db);
  if (file.empty()) return {};
  Writer& writer = WriterOf(file);
  std::unique_lock lock(writer.lock, std::try_to_lock);
  if (lock.owns_lock()) return lock;
  int wait_ms = db.execAndGet("PRAGMA busy_timeout").getInt();
  if (wait_ms <= 0) {
    for (int attempt = 1; attempt < max_attempts; ++attempt) wait_ms += BackOffCapMs(attempt);
  }
  ++writer.waiting;
  const bool got = lock.try_lock_for(std::chrono::milliseconds(wait_ms));
  --writer.waiting;
  if (!got) {
    throw SQLite::Exception("database is locked (another write of this module held it)", SQLITE_BUSY);
  }
  return lock;
}

}  // namespace

bool IsBusyError(const SQLite::Exception& e) {
  const int primary = e.getErrorCode() & 0xff;
  const int extended = e.getExtendedErrorCode() & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED || extended == SQLITE_BUSY ||
         extended == SQLITE_LOCKED;
}

bool InTransaction(SQLite::Database& db) { return sqlite3_get_autocommit(db.getHandle()) == 0; }

namespace {

// Two processes opening a new database at once (two agents' first `kioku serve`, a hook and
// a server): the second's switch to WAL fails with SQLITE_BUSY at once, without waiting in
// the busy handler, while the first holds the lock it takes to switch (31 of 60 concurrent
// first starts failed with "database is locked"). Retried until the busy timeout.
void UseWal(SQLite::Database& db, int busy_timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode=WAL");
      return;
    } catch (const SQLite::Exception& e) {
      if (!IsBusyError(e) || std::chrono::steady_clock::now() >= deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

}  // namespace

SQLite::Database OpenDatabase(const std::string& path, int busy_timeout_ms) {
  const bool is_file = !path.empty() && path != ":memory:" && path.rfind("file:", 0) != 0;
  std::error_code ec;
  const bool existed = is_file && std::filesystem::exists(path, ec);
  try {
    // NOMUTEX: a connection is used by one thread only (HostServices::Db is per thread).
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX,
                        busy_timeout_ms);
    if (is_file && !existed) {
      // Memories may hold private text: owner-only (ARCHITECTURE.md "Storage"). The -wal
      // and -shm files SQLite creates later copy this mode.
      std::filesystem::permissions(path,
                                   std::filesystem::perms::owner_read |
                                       std::filesystem::perms::owner_write,
                                   std::filesystem::perm_options::replace, ec);
    }
    UseWal(db, busy_timeout_ms);
    db.exec("PRAGMA synchronous=NORMAL");
    db.exec("PRAGMA foreign_keys=ON");
    db.exec("PRAGMA journal_size_limit=" + std::to_string(kWalSizeLimitBytes));
    db.exec("PRAGMA wal_autocheckpoint=" + std::to_string(kWalAutocheckpointPages));
    // Statement journals (the pages a statement inside a transaction changes, kept so the
    // statement alone can roll back) in memory: on disk they were two write syscalls per
    // page, two thirds of all writes of a batch memory_remember (pager.c openSubJournal
    // keeps them in memory when temp_store is MEMORY). Temporary tables and sorts follow.
    db.exec("PRAGMA temp_store=MEMORY");
    db.setBusyTimeout(busy_timeout_ms);
    RegisterFtsRank(db.getHandle());
    return db;
  } catch (const SQLite::Exception& e) {
    throw SQLite::Exception("cannot open database '" + path + "': " + e.what(),
                            e.getErrorCode());
  }
}

void ApplyMigrationStep(SQLite::Database& db, const Migration& m) {
  if (!m.sql.empty()) db.exec(m.sql);
  if (m.apply) m.apply(db);
  if (!m.foreign_keys_off) return;
  SQLite::Statement check(db, "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 1");
  if (check.executeStep()) {
    throw std::runtime_error("table " + check.getColumn(0).getString() + " row " + check.getColumn(1).getString() +
                             " names a missing row of " + check.getColumn(2).getString() + " after the step");
  }
}

MigrationForeignKeys::MigrationForeignKeys(SQLite::Database& db, const Migration& m)
    : db_(db), off_(m.foreign_keys_off) {
  if (off_) db_.exec("PRAGMA foreign_keys=OFF");
}

MigrationForeignKeys::~MigrationForeignKeys() {
  if (!off_) return;
  try {
    db_.exec("PRAGMA foreign_keys=ON");
  } catch (...) {  // a destructor must not throw; the connection stays usable either way
  }
}

int WritersWaiting(SQLite::Database& db) {
  const std::string file = FileOf(db);
  return file.empty() ? 0 : WriterOf(file).waiting.load();
}

void WithWriteTransaction(SQLite::Database& db, const std::function<void()>& body,
                          int max_attempts) {
  if (InTransaction(db)) {
    // Already inside a transaction (e.g. a migration's `apply`): join it. Begin, commit
    // and retry belong to whoever opened it; SQLite has no nested BEGIN.
    body();
    return;
  }
  const std::unique_lock<std::timed_mutex> writer = LockWriter(db, max_attempts);
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    try {
      db.exec("BEGIN IMMEDIATE");
      body();
      db.exec("COMMIT");
      return;
    } catch (const SQLite::Exception& e) {
      RollbackQuietly(db);
      if (!IsBusyError(e) || attempt >= max_attempts) throw;
      // An attempt that met a lock another process holds has already waited out the busy
      // timeout inside SQLite; trying again would multiply that wait (12 attempts of 5 s
      // kept a call a minute). Retries are for busy errors that come back at once (a WAL
      // snapshot gone stale, a table locked by this process's other connection): only while
      // the whole call is still within one busy timeout (0: SQLite does not wait, or a busy
      // handler of the caller's does; then the retries are the wait).
      const int timeout_ms = db.execAndGet("PRAGMA busy_timeout").getInt();
      const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      if (timeout_ms > 0 && waited.count() >= timeout_ms) throw;
    } catch (...) {
      RollbackQuietly(db);
      throw;
    }
    BackOff(attempt);
  }
}

std::string ResolveIdPrefix(SQLite::Database& db, std::string_view table,
                            std::string_view column, std::string_view id_or_prefix,
                            std::string_view noun) {
  const std::string t(table), c(column);
  IdLookup lookup;
  lookup.exact = [&](const std::string& id) {
    SQLite::Statement q(db, "SELECT 1 FROM " + t + " WHERE " + c + " = ? LIMIT 1");
    q.bind(1, id);
    return q.executeStep();
  };
  lookup.starting = [&](const std::string& prefix, std::size_t n) { return MatchPrefix(db, t, c, prefix, n); };
  return ResolveIdPrefix(lookup, id_or_prefix, noun);
}

std::string ResolveIdPrefix(const IdLookup& lookup, std::string_view id_or_prefix, std::string_view noun) {
  const std::string typed(id_or_prefix);
  if (lookup.exact(typed)) return typed;
  if (const std::string bad = NonIdCharacter(typed); !bad.empty()) {
    const bool wildcard = bad.size() == 1;
    throw ToolError("id prefix '" + Shown(typed) + "' holds " + (wildcard ? "'" + bad + "'" : bad) +
                    ", which no " + std::string(noun) + " id contains" +
                    (wildcard ? " (a prefix matches by its first characters; there are no wildcards)" : "") +
                    ": send the id or at least " + std::to_string(kMinPrefixChars) +
                    " of its first characters");
  }
  if (Utf8Length(typed) < kMinPrefixChars) {
    throw ToolError("id prefix '" + Shown(typed) + "' is too short: send at least " +
                    std::to_string(kMinPrefixChars) + " characters of the id");
  }
  std::vector<std::string> matches = lookup.starting(typed, static_cast<std::size_t>(kMaxListedMatches) + 1);
  if (matches.empty()) {
    // ULIDs are upper-case Crockford base32 but people type them in lower case.
    std::string upper = typed;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') ? static_cast<char>(ch - 'a' + 'A') : ch;
    });
    if (upper != typed) matches = lookup.starting(upper, static_cast<std::size_t>(kMaxListedMatches) + 1);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    // '_' may be part of a real id (session names), so it is matched literally; say so.
    const bool underscore = typed.find('_') != std::string::npos;
    throw ToolError("unknown " + std::string(noun) + " id '" + Shown(typed) + "'" +
                    (underscore ? " ('_' is matched as itself, not as a wildcard)" : ""));
  }
  std::string list;
  for (std::size_t i = 0; i < matches.size() && i < kMaxListedMatches; ++i) {
    if (i > 0) list += ", ";
    list += matches[i];
  }
  if (matches.size() > kMaxListedMatches) list += ", …";
  throw ToolError("id prefix '" + Shown(typed) + "' matches several " + std::string(noun) +
                  " ids: " + list + "; send more characters");
}

}  // namespace kioku::sdk
