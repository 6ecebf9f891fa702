#include "kioku/sdk/db.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <latch>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::sdk {
namespace {

using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("kioku-sdk-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

int CountRows(SQLite::Database& db, const std::string& table) {
  return db.execAndGet("SELECT count(*) FROM " + table).getInt();
}

TEST(OpenDatabase, SetsKiokuPragmas) {
  TempDir dir;
  SQLite::Database db = OpenDatabase(dir.File("k.db"), 1234);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);
  EXPECT_EQ(db.execAndGet("PRAGMA synchronous").getInt(), 1);  // NORMAL
  EXPECT_EQ(db.execAndGet("PRAGMA busy_timeout").getInt(), 1234);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_size_limit").getInt64(), kWalSizeLimitBytes);
  EXPECT_EQ(db.execAndGet("PRAGMA wal_autocheckpoint").getInt(), kWalAutocheckpointPages);
}

// Commits checkpoint only past kWalAutocheckpointPages: 8 MiB of writes (2,000 pages, past
// SQLite's default 1,000) stay in the WAL, and the commit that crosses the bound moves them
// into the database and restarts the WAL, which journal_size_limit then cuts back.
TEST(OpenDatabase, CommitsCheckpointOnlyPastTheAutocheckpointBound) {
  TempDir dir;
  const std::string path = dir.File("k.db");
  SQLite::Database reader = OpenDatabase(path);  // keeps the WAL from being removed
  SQLite::Database db = OpenDatabase(path);
  db.exec("CREATE TABLE t (v BLOB)");
  const auto wal_pages = [&] { return std::filesystem::file_size(path + "-wal") / 4096; };
  for (int i = 0; i < 200; ++i) db.exec("INSERT INTO t VALUES (zeroblob(40000))");
  EXPECT_GT(wal_pages(), 1000u);
  const auto db_pages = [&] { return std::filesystem::file_size(path) / 4096; };
  EXPECT_LT(db_pages(), 100u);  // not checkpointed yet
  for (int i = 0; i < 300 && wal_pages() > 1000u; ++i) db.exec("INSERT INTO t VALUES (zeroblob(40000))");
  EXPECT_GT(db_pages(), 2000u);  // checkpointed
  db.exec("INSERT INTO t VALUES (zeroblob(10))");
  EXPECT_LE(std::filesystem::file_size(path + "-wal"), static_cast<std::uintmax_t>(kWalSizeLimitBytes) + 8 * 4096);
  EXPECT_GT(reader.execAndGet("SELECT count(*) FROM t").getInt(), 200);
}

// A connection kept open (a running server) used to keep the WAL at its largest size for
// good: SQLite reuses the file after a checkpoint but never shortens it unless told to.
TEST(OpenDatabase, TheWalIsCutBackWhenItRestartsWhileAnotherConnectionStaysOpen) {
  const auto wal_after_4_mib = [](bool limited) {
    TempDir dir;
    const std::string path = dir.File("k.db");
    SQLite::Database server = OpenDatabase(path);
    server.exec("CREATE TABLE t (v BLOB)");
    SQLite::Database writer = OpenDatabase(path);
    if (!limited) writer.exec("PRAGMA journal_size_limit=-1");
    for (int i = 0; i < 100; ++i) writer.exec("INSERT INTO t VALUES (zeroblob(40000))");
    writer.exec("PRAGMA wal_checkpoint(PASSIVE)");
    writer.exec("INSERT INTO t VALUES (zeroblob(10))");  // restarts the WAL
    EXPECT_EQ(server.execAndGet("SELECT count(*) FROM t").getInt(), 101);
    return std::filesystem::file_size(path + "-wal");
  };
  EXPECT_LE(wal_after_4_mib(true), static_cast<std::uintmax_t>(kWalSizeLimitBytes));
  EXPECT_GT(wal_after_4_mib(false), static_cast<std::uintmax_t>(kWalSizeLimitBytes));
}

// Two connections opening a new database at once (two agents' first start): both open it.
// Before OpenDatabase retried the switch to WAL, the second failed with "database is
// locked" in about half of such starts (two processes) and in most rounds here.
TEST(OpenDatabase, TwoOpeningANewDatabaseAtOnceBothOpenIt) {
  TempDir dir;
  int failed = 0;
  for (int round = 0; round < 40; ++round) {
    const std::string path = dir.File("new" + std::to_string(round) + ".db");
    std::latch start(2);
    auto open = [&] {
      start.arrive_and_wait();
      try {
        SQLite::Database db = OpenDatabase(path, 5000);
        return db.execAndGet("PRAGMA journal_mode").getString() == "wal";
      } catch (const std::exception&) {
        return false;
      }
    };
    auto a = std::async(std::launch::async, open);
    auto b = std::async(std::launch::async, open);
    failed += !a.get() + !b.get();
  }
  EXPECT_EQ(failed, 0);
}

TEST(OpenDatabase, CreatesFileOwnerOnly) {
  TempDir dir;
  const std::string path = dir.File("k.db");
  { SQLite::Database db = OpenDatabase(path); }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(OpenDatabase, ErrorNamesThePath) {
  try {
    OpenDatabase("/nonexistent-dir-kioku/sub/k.db");
    FAIL() << "expected SQLite::Exception";
  } catch (const SQLite::Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent-dir-kioku/sub/k.db"));
  }
}

TEST(OpenDatabase, WorksInMemory) {
  SQLite::Database db = OpenDatabase(":memory:");
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);
}

class WriteTransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = std::make_unique<SQLite::Database>(OpenDatabase(dir_.File("k.db")));
    db_->exec("CREATE TABLE t (v INTEGER)");
  }
  TempDir dir_;
  std::unique_ptr<SQLite::Database> db_;
};

TEST_F(WriteTransactionTest, CommitsBody) {
  WithWriteTransaction(*db_, [&] { db_->exec("INSERT INTO t VALUES (1)"); });
  EXPECT_EQ(CountRows(*db_, "t"), 1);
  EXPECT_NE(sqlite3_get_autocommit(db_->getHandle()), 0);  // transaction closed
}

TEST_F(WriteTransactionTest, RollsBackAndRethrowsOtherErrors) {
  EXPECT_THROW(WithWriteTransaction(*db_,
                                    [&] {
                                      db_->exec("INSERT INTO t VALUES (1)");
                                      throw std::runtime_error("bad input");
                                    }),
               std::runtime_error);
  EXPECT_EQ(CountRows(*db_, "t"), 0);
  EXPECT_NE(sqlite3_get_autocommit(db_->getHandle()), 0);
  int calls = 0;
  EXPECT_THROW(WithWriteTransaction(*db_,
                                    [&] {
                                      ++calls;
                                      db_->exec("INSERT INTO missing VALUES (1)");
                                    }),
               SQLite::Exception);
  EXPECT_EQ(calls, 1);  // not a busy error: no retry
}

TEST_F(WriteTransactionTest, RetriesBusyErrorsAndKeepsOnlyTheLastAttempt) {
  int calls = 0;
  WithWriteTransaction(*db_, [&] {
    ++calls;
    db_->exec("INSERT INTO t VALUES (1)");
    if (calls < 3) throw SQLite::Exception("database is locked", SQLITE_BUSY);
  });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(CountRows(*db_, "t"), 1);
}

TEST_F(WriteTransactionTest, RecognisesExtendedBusyCodes) {
  int calls = 0;
  WithWriteTransaction(*db_, [&] {
    if (++calls == 1) throw SQLite::Exception("snapshot busy", SQLITE_BUSY_SNAPSHOT);
    if (calls == 2) throw SQLite::Exception("table locked", SQLITE_LOCKED_SHAREDCACHE);
  });
  EXPECT_EQ(calls, 3);
}

TEST_F(WriteTransactionTest, GivesUpAfterMaxAttempts) {
  int calls = 0;
  try {
    WithWriteTransaction(
        *db_,
        [&] {
          ++calls;
          db_->exec("INSERT INTO t VALUES (1)");
          throw SQLite::Exception("database is locked", SQLITE_BUSY);
        },
        4);
    FAIL() << "expected SQLite::Exception";
  } catch (const SQLite::Exception& e) {
    EXPECT_EQ(e.getErrorCode(), SQLITE_BUSY);
  }
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(CountRows(*db_, "t"), 0);
}

TEST_F(WriteTransactionTest, NestedUseJoinsTheOuterTransaction) {
  db_->exec("BEGIN");
  WithWriteTransaction(*db_, [&] { db_->exec("INSERT INTO t VALUES (1)"); });
  EXPECT_EQ(sqlite3_get_autocommit(db_->getHandle()), 0);  // still the outer transaction
  db_->exec("ROLLBACK");
  EXPECT_EQ(CountRows(*db_, "t"), 0);
}

// Two real connections: the second one's BEGIN IMMEDIATE hits a held write lock (busy
// handler refuses to wait), and succeeds on a retry once the first one commits.
TEST_F(WriteTransactionTest, RetriesRealLockContentionAcrossConnections) {
  SQLite::Database other = OpenDatabase(dir_.File("k.db"));
  db_->exec("BEGIN IMMEDIATE");
  db_->exec("INSERT INTO t VALUES (1)");

  struct Signal {
    std::mutex mu;
    std::condition_variable cv;
    bool busy_seen = false;
    std::atomic<int> busy_calls{0};
  } signal;
  sqlite3_busy_handler(
      other.getHandle(),
      [](void* arg, int) -> int {
        auto* s = static_cast<Signal*>(arg);
        ++s->busy_calls;
        {
          std::lock_guard<std::mutex> lock(s->mu);
          s->busy_seen = true;
        }
        s->cv.notify_all();
        return 0;  // do not wait: surface SQLITE_BUSY to WithWriteTransaction
      },
      &signal);

  std::thread releaser([&] {
    std::unique_lock<std::mutex> lock(signal.mu);
    signal.cv.wait(lock, [&] { return signal.busy_seen; });
    db_->exec("COMMIT");
  });
  WithWriteTransaction(other, [&] { other.exec("INSERT INTO t VALUES (2)"); });
  releaser.join();
  EXPECT_GE(signal.busy_calls.load(), 1);
  EXPECT_EQ(CountRows(*db_, "t"), 2);
}

// A lock another connection holds throughout: SQLite waits out the busy timeout in the
// first attempt, and that wait is not repeated (12 attempts of 5 s kept a call a minute).
TEST_F(WriteTransactionTest, ALockHeldPastTheBusyTimeoutIsWaitedForOnce) {
  SQLite::Database other = OpenDatabase(dir_.File("k.db"), 30);
  int begins = 0;
  sqlite3_trace_v2(
      other.getHandle(), SQLITE_TRACE_STMT,
      [](unsigned, void* n, void*, void* sql) -> int {
        if (std::string_view(static_cast<const char*>(sql)) == "BEGIN IMMEDIATE") ++*static_cast<int*>(n);
        return 0;
      },
      &begins);
  db_->exec("BEGIN IMMEDIATE");
  int calls = 0;
  try {
    WithWriteTransaction(other, [&] { ++calls; });
    ADD_FAILURE() << "expected SQLITE_BUSY";
  } catch (const SQLite::Exception& e) {
    EXPECT_TRUE(IsBusyError(e)) << e.what();
  }
  db_->exec("ROLLBACK");
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(calls, 0);
}

// Writers of one process take turns on a mutex, not in SQLite's busy handler (which sleeps
// 1 … 100 ms between tries, so a waiting writer started late and could be starved past the
// busy timeout by its siblings): the second writer begins only after the first committed.
TEST_F(WriteTransactionTest, WritersOfOneProcessTakeTurnsBeforeTheyBegin) {
  SQLite::Database other = OpenDatabase(dir_.File("k.db"), 60'000);
  struct Log {
    std::mutex mu;
    std::vector<std::string> lines;
  } log;
  const auto trace = [](unsigned, void* arg, void*, void* sql) -> int {
    auto* l = static_cast<Log*>(arg);
    const std::string_view text(static_cast<const char*>(sql));
    if (text == "BEGIN IMMEDIATE" || text == "COMMIT") {
      std::lock_guard lock(l->mu);
      l->lines.emplace_back(text);
    }
    return 0;
  };
  sqlite3_trace_v2(db_->getHandle(), SQLITE_TRACE_STMT, trace, &log);
  sqlite3_trace_v2(other.getHandle(), SQLITE_TRACE_STMT, trace, &log);
  std::promise<void> second_starts;
  std::thread second;
  WithWriteTransaction(*db_, [&] {
    db_->exec("INSERT INTO t VALUES (1)");
    second = std::thread([&] {
      second_starts.set_value();
      WithWriteTransaction(other, [&] { other.exec("INSERT INTO t VALUES (2)"); });
    });
    second_starts.get_future().wait();
    while (WritersWaiting(*db_) == 0) std::this_thread::yield();  // it waits while this one holds
  });
  second.join();
  EXPECT_EQ(WritersWaiting(*db_), 0);
  EXPECT_EQ(log.lines, (std::vector<std::string>{"BEGIN IMMEDIATE", "COMMIT", "BEGIN IMMEDIATE", "COMMIT"}));
  EXPECT_EQ(db_->execAndGet("SELECT group_concat(v) FROM (SELECT v FROM t ORDER BY rowid)").getString(), "1,2");
}

// A writer of this process holding the lock past the other's busy timeout: the other gets
// SQLite's busy error (as from a lock held elsewhere) and its body never runs.
TEST_F(WriteTransactionTest, AWriterOfThisProcessHeldPastTheBusyTimeoutIsABusyError) {
  SQLite::Database other = OpenDatabase(dir_.File("k.db"), 1);
  int calls = 0;
  WithWriteTransaction(*db_, [&] {
    std::thread second([&] {
      try {
        WithWriteTransaction(other, [&] { ++calls; });
        ADD_FAILURE() << "expected SQLITE_BUSY";
      } catch (const SQLite::Exception& e) {
        EXPECT_TRUE(IsBusyError(e)) << e.what();
      }
    });
    second.join();  // held until the other gave up
  });
  EXPECT_EQ(calls, 0);
}

class ResolveIdPrefixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.exec("CREATE TABLE items (id TEXT PRIMARY KEY, body TEXT)");
    for (const char* id : {"01ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAW",
                           "01BX5ZZKBKACTAV9WEVGEMMVRZ", "abc"}) {
      SQLite::Statement q(db_, "INSERT INTO items (id) VALUES (?)");
      q.bind(1, id);
      q.exec();
    }
  }
  std::string Resolve(std::string_view typed) {
    return ResolveIdPrefix(db_, "items", "id", typed, "memory");
  }
  std::string ErrorOf(std::string_view typed) {
    try {
      Resolve(typed);
    } catch (const ToolError& e) {
      return e.what();
    }
    return "(no error)";
  }
  SQLite::Database db_{":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
};

TEST_F(ResolveIdPrefixTest, ExactIdWins) {
  EXPECT_EQ(Resolve("01ARZ3NDEKTSV4RRFFQ69G5FAV"), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(Resolve("abc"), "abc");  // exact, even though shorter than 4
}

TEST_F(ResolveIdPrefixTest, UniquePrefixResolves) {
  EXPECT_EQ(Resolve("01BX"), "01BX5ZZKBKACTAV9WEVGEMMVRZ");
  EXPECT_EQ(Resolve("01ARZ3NDEKTSV4RRFFQ69G5FAW"), "01ARZ3NDEKTSV4RRFFQ69G5FAW");
}

TEST_F(ResolveIdPrefixTest, LowerCasePrefixOfUpperCaseIdResolves) {
  EXPECT_EQ(Resolve("01bx5z"), "01BX5ZZKBKACTAV9WEVGEMMVRZ");
}

TEST_F(ResolveIdPrefixTest, ShortPrefixIsRefused) {
  EXPECT_EQ(ErrorOf("01"), "id prefix '01' is too short: send at least 4 characters of the id");
  EXPECT_EQ(ErrorOf(""), "id prefix '' is too short: send at least 4 characters of the id");
}

TEST_F(ResolveIdPrefixTest, UnknownIdIsNamed) {
  EXPECT_EQ(ErrorOf("ZZZZ"), "unknown memory id 'ZZZZ'");
  // '_' may be part of a real id: matched as itself (no LIKE semantics), and said so.
  EXPECT_EQ(ErrorOf("01A_"), "unknown memory id '01A_' ('_' is matched as itself, not as a wildcard)");
}

// Issue 9: `pn*`-style prefixes (glob / LIKE characters, spaces, control bytes) are refused
// with a message naming the character, before any lookup — never silently matched.
TEST_F(ResolveIdPrefixTest, WildcardsAndNonIdCharactersAreRefused) {
  EXPECT_EQ(ErrorOf("01AR*"),
            "id prefix '01AR*' holds '*', which no memory id contains (a prefix matches by its first characters; "
            "there are no wildcards): send the id or at least 4 of its first characters");
  EXPECT_THAT(ErrorOf("01A%"), HasSubstr("holds '%', which no memory id contains"));
  EXPECT_THAT(ErrorOf("01BX?"), HasSubstr("holds '?'"));
  EXPECT_THAT(ErrorOf("pn*"), HasSubstr("holds '*'"));  // short, but the wildcard is the news
  EXPECT_THAT(ErrorOf("01BX 5ZZ"), HasSubstr("holds a space"));
  EXPECT_THAT(ErrorOf(std::string("01BX\x00", 5)), HasSubstr("holds byte 0x00"));
  EXPECT_THAT(ErrorOf("01BX\t"), HasSubstr("holds byte 0x09"));
  EXPECT_THAT(ErrorOf("01BX\xc3\xa9"), HasSubstr("holds byte 0xC3"));
  // An exact id still wins whatever it holds, and a clean prefix still resolves.
  SQLite::Statement q(db_, "INSERT INTO items (id) VALUES ('odd*id')");
  q.exec();
  EXPECT_EQ(Resolve("odd*id"), "odd*id");
  EXPECT_EQ(Resolve("01BX5"), "01BX5ZZKBKACTAV9WEVGEMMVRZ");
}

TEST_F(ResolveIdPrefixTest, AmbiguousPrefixListsCandidates) {
  EXPECT_EQ(ErrorOf("01ARZ"),
            "id prefix '01ARZ' matches several memory ids: 01ARZ3NDEKTSV4RRFFQ69G5FAV, "
            "01ARZ3NDEKTSV4RRFFQ69G5FAW; send more characters");
}

TEST_F(ResolveIdPrefixTest, ListsAtMostFiveCandidates) {
  for (int i = 0; i < 8; ++i) {
    SQLite::Statement q(db_, "INSERT INTO items (id) VALUES (?)");
    q.bind(1, "MANY" + std::to_string(i));
    q.exec();
  }
  EXPECT_EQ(ErrorOf("MANY"),
            "id prefix 'MANY' matches several memory ids: MANY0, MANY1, MANY2, MANY3, MANY4, "
            "…; send more characters");
}

TEST_F(ResolveIdPrefixTest, HugeOrBinaryInputIsShownTruncated) {
  const std::string huge(5000, 'Q');
  const std::string msg = ErrorOf(huge);
  EXPECT_THAT(msg, HasSubstr("unknown memory id 'QQQQ"));
  EXPECT_LT(msg.size(), 120u);
  EXPECT_THAT(ErrorOf("\xff\xff\xff\xff"), HasSubstr("holds byte 0xFF"));
}

TEST_F(ResolveIdPrefixTest, UsesTheIndex) {
  // The lookup must be a range search on the id index, not a table scan.
  SQLite::Statement plan(db_,
                         "EXPLAIN QUERY PLAN SELECT id FROM items WHERE id >= ? AND id < ?");
  std::string detail;
  while (plan.executeStep()) detail += plan.getColumn(3).getString();
  EXPECT_THAT(detail, HasSubstr("INDEX"));
}

// A table rebuild (create, copy, drop, rename) runs with foreign key enforcement off, so
// dropping the parent does not cascade into its children; a step that leaves a child row
// pointing at nothing is refused, and enforcement is on again either way.
TEST(MigrationStep, RebuildsAParentWithoutTouchingItsChildrenAndRefusesOrphans) {
  SQLite::Database db = OpenDatabase(":memory:");
  db.exec("CREATE TABLE p(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);"
          "CREATE TABLE c(p_seq INTEGER NOT NULL REFERENCES p(seq) ON DELETE CASCADE, x TEXT);"
          "INSERT INTO p VALUES (1, 'a'), (2, 'b'); INSERT INTO c VALUES (1, 'one'), (2, 'two');");
  Migration rebuild;
  rebuild.version = 2;
  rebuild.sql = "CREATE TABLE p_new(seq INTEGER PRIMARY KEY AUTOINCREMENT, own_id TEXT);"
                "INSERT INTO p_new SELECT seq, id FROM p; DROP TABLE p; ALTER TABLE p_new RENAME TO p;";
  rebuild.foreign_keys_off = true;
  {
    const MigrationForeignKeys keys(db, rebuild);
    WithWriteTransaction(db, [&] { ApplyMigrationStep(db, rebuild); });
  }
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM c").getInt(), 2);
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);

  Migration orphan;
  orphan.version = 3;
  orphan.sql = "DELETE FROM p WHERE seq = 2";
  orphan.foreign_keys_off = true;
  {
    const MigrationForeignKeys keys(db, orphan);
    try {
      WithWriteTransaction(db, [&] { ApplyMigrationStep(db, orphan); });
      ADD_FAILURE() << "a step leaving an orphan was committed";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("table c row 2 names a missing row of p"));
    }
  }
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM p").getInt(), 2);  // rolled back
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);
}

}  // namespace
}  // namespace kioku::sdk
