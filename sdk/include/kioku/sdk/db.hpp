#pragma once
/// @file db.hpp
/// Database helpers shared by every layer: opening a connection with kioku's pragmas,
/// write transactions that survive several processes sharing one file, and id lookup by
/// unique prefix.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>

namespace kioku::sdk {

/// The size a WAL file is cut back to when SQLite restarts it after a checkpoint
/// (`journal_size_limit`). Without it the file keeps its largest size for as long as any
/// connection stays open, so a running server kept one-shot processes, which skip the
/// checkpoint only below this size, paying a full teardown (cli::EndOneShot).
inline constexpr std::int64_t kWalSizeLimitBytes = 1 << 20;

/// WAL pages after which a commit checkpoints the WAL into the database
/// (`wal_autocheckpoint`; SQLite's default is 1,000, 4 MiB). A page that several commits
/// change between two checkpoints is written back once, so the longer interval writes fewer
/// pages: 3,000 more memories at 100,000 wrote 15–20% more per second (bench/README.md).
/// Every connection must use the same value: one with a lower value would checkpoint in
/// each of its commits while the WAL stays above it. The WAL then holds ~16 MiB at most
/// while checkpoints can finish; readers on older snapshots hold them back (16 parallel HTTP
/// clients: peaks of 35–53 MB, 23–37 MB at 1,000 pages). The commit that crosses the bound
/// does the checkpoint: a one-shot process doing it took 148 ms instead of ~40 (123 ms at
/// 1,000 pages), a quarter as often. A process that opens a database nobody has open after
/// a crash reads the WAL once to rebuild its index (~1.4 M instructions per MiB).
inline constexpr int kWalAutocheckpointPages = 4000;

/// Opens (creating if needed) a connection with kioku's settings: WAL journal,
/// synchronous=NORMAL, foreign_keys=ON, journal_size_limit = kWalSizeLimitBytes,
/// wal_autocheckpoint = kWalAutocheckpointPages, busy_timeout = `busy_timeout_ms`. Throws
/// SQLite::Exception naming the path when the file cannot be opened. A file this call
/// creates gets mode 0600. The connection is opened NOMUTEX: use it from one thread.
SQLite::Database OpenDatabase(const std::string& path, int busy_timeout_ms = 5000);

/// True while `db` is inside a transaction (sqlite3_get_autocommit is 0).
bool InTransaction(SQLite::Database& db);

/// True when `e` is SQLITE_BUSY or SQLITE_LOCKED (primary or extended code): another
/// connection held the lock past the busy timeout, so the work may succeed if retried.
bool IsBusyError(const SQLite::Exception& e);

/// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`. Immediate transactions take the write
/// lock up front, so they wait on busy_timeout instead of failing on upgrade (see SQLite
/// "isolation" and "lang_transaction" docs). If SQLITE_BUSY/LOCKED still surfaces (at BEGIN,
/// inside `body`, or at COMMIT) the transaction is rolled back and the whole `body` retried
/// up to `max_attempts` times with jittered exponential back-off (1 ms doubling, capped at
/// 50 ms), while the call as a whole has taken less than the connection's busy timeout (an
/// attempt that waited out a lock held elsewhere is not repeated: the call waits about one
/// busy timeout, not max_attempts of them). Any other exception rolls back and propagates. `body` must therefore keep its
/// side effects inside the database, or be safe to repeat.
/// Within one module (the host, or one plugin: each links its own copy of this SDK), writers
/// of one database file take turns on a mutex first (waiting at most the connection's busy
/// timeout, then SQLITE_BUSY as from SQLite): SQLite's busy handler sleeps between tries
/// (1, 2, 5 … 100 ms; sqlite3.c sqliteDefaultBusyCallback), so a waiting writer started
/// late, and four workers writing large batches with one tool starved one past the busy
/// timeout ("database busy" on 2 of 40 piped calls). Writers of other modules and other
/// processes still meet at SQLite's lock.
/// Do not nest: when `db` is already inside a transaction (e.g. a Migration's `apply`),
/// `body` simply runs in that transaction — no BEGIN/COMMIT, no retry; whoever opened the
/// outer transaction owns commit, rollback and retry.
void WithWriteTransaction(SQLite::Database& db, const std::function<void()>& body,
                          int max_attempts = 12);

struct Migration;  // plugin.hpp

/// Runs one migration step's SQL, then its code, in the transaction `db` has open; a step
/// with `foreign_keys_off` must then pass `PRAGMA foreign_key_check`, else throws
/// std::runtime_error naming the first table whose rows point at a missing parent (the
/// caller's transaction rolls back). Run it inside a MigrationForeignKeys guard.
void ApplyMigrationStep(SQLite::Database& db, const Migration& m);

/// Turns foreign key enforcement off for its lifetime when `m.foreign_keys_off` (SQLite
/// ignores the pragma inside a transaction, so make it before BEGIN), and on again after.
class MigrationForeignKeys {
 public:
  MigrationForeignKeys(SQLite::Database& db, const Migration& m);
  ~MigrationForeignKeys();
  MigrationForeignKeys(const MigrationForeignKeys&) = delete;
  MigrationForeignKeys& operator=(const MigrationForeignKeys&) = delete;

 private:
  SQLite::Database& db_;
  bool off_;
};

/// How many writers of this module wait for the write lock of `db`'s file in
/// WithWriteTransaction right now (0 for an in-memory database). For diagnostics and tests.
int WritersWaiting(SQLite::Database& db);

/// Resolves a user-typed id or id prefix against `table.column` (identifiers trusted, from plugin code; the
/// prefix is bound). Rules (ARCHITECTURE.md "Storage"): an exact id wins; else a prefix of >= 4 characters must
/// match one row (indexed range scan `col >= p AND col < p'`, BINARY; on no match the ASCII upper-cased prefix
/// is tried, ULIDs being upper-case). Throws ToolError for: a prefix holding what no id holds — '*', '%', '?'
/// (no wildcards), a space, control or non-ASCII byte ("id prefix 'pn*' holds '*', which no memory id contains
/// (…): send the id or at least 4 of its first characters"); one shorter than 4 characters ("id prefix 'ab' is
/// too short: send at least 4 characters of the id"); no match ("unknown <noun> id 'x'", noting that '_' is
/// matched as itself); several matches ("id prefix 'x' matches several <noun> ids: a, b, c, d, e, …; send more
/// characters"). `noun` words the messages ("memory").
std::string ResolveIdPrefix(SQLite::Database& db, std::string_view table,
                            std::string_view column, std::string_view id_or_prefix,
                            std::string_view noun);

/// Where ResolveIdPrefix below finds ids, for ids not stored in one indexed column (e.g.
/// computed ones, sdk::DerivedId): `exact(id)` says whether a row has exactly that id;
/// `starting(prefix, n)` returns up to `n` ids starting with `prefix` (BINARY), ascending.
struct IdLookup {
  std::function<bool(const std::string& id)> exact;
  std::function<std::vector<std::string>(const std::string& prefix, std::size_t n)> starting;
};

/// ResolveIdPrefix with the same rules and messages over `lookup`.
std::string ResolveIdPrefix(const IdLookup& lookup, std::string_view id_or_prefix, std::string_view noun);

}  // namespace kioku::sdk
