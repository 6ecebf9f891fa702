// Snapshots taken while other processes write, rotation, the automatic snapshot, restore.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <random>

#include "data/backup.hpp"
#include "database_use_lock.hpp"
#include "migrations.hpp"
#include "runtime.hpp"
#include "kioku/sdk/db.hpp"

namespace kioku {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("kioku-backup-test-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// A kioku-shaped database: the host's migrations table and one table writers fill in pairs.
void CreateDatabase(const fs::path& db_path) {
  auto db = sdk::OpenDatabase(db_path.string());
  db.exec("CREATE TABLE kioku_migrations (plugin TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER);"
          "INSERT INTO kioku_migrations VALUES ('semantic', 4, 0);"
          "CREATE TABLE pairs (writer INTEGER, k INTEGER, half TEXT, PRIMARY KEY (writer, k, half));");
}

std::string Dump(const fs::path& db_path) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT writer, k, half FROM pairs ORDER BY writer, k, half");
  std::string out;
  while (q.executeStep()) {
    out += q.getColumn(0).getString() + "/" + q.getColumn(1).getString() + "/" + q.getColumn(2).getString() + "\n";
  }
  return out;
}

std::string Mode(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", st.st_mode & 07777);
  return buf;
}

// Child: writes (k, a) and (k, b) in one transaction per k, reporting each commit on
// `done_fd`, until `stop_fd` reaches end of file. Never returns.
[[noreturn]] void Writer(const fs::path& db_path, int writer, int done_fd, int stop_fd) {
  int code = 0;
  try {
    auto db = sdk::OpenDatabase(db_path.string());
    SQLite::Statement ins(db, "INSERT INTO pairs VALUES (?, ?, ?)");
    for (int k = 0;; ++k) {
      sdk::WithWriteTransaction(db, [&] {
        for (const char* half : {"a", "b"}) {
          ins.reset();
          ins.bind(1, writer);
          ins.bind(2, k);
          ins.bind(3, half);
          ins.exec();
        }
      });
      char b = 1;
      if (::write(done_fd, &b, 1) != 1) break;
      pollfd p{stop_fd, POLLIN, 0};
      if (::poll(&p, 1, 0) > 0) break;  // EOF: the parent closed the stop pipe
    }
  } catch (...) {
    code = 3;
  }
  ::_exit(code);
}

TEST(Backup, SnapshotWhileFourProcessesWriteIsConsistentAndRestoresEqual) {
  TempDir tmp;
  const fs::path db_path = tmp.path / "kioku.db";
  CreateDatabase(db_path);
  constexpr int kWriters = 4;
  int stop[2];
  ASSERT_EQ(::pipe(stop), 0);
  std::vector<pid_t> pids;
  std::vector<int> done_fds;
  for (int w = 0; w < kWriters; ++w) {
    int done[2];
    ASSERT_EQ(::pipe(done), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(stop[1]);
      ::close(done[0]);
      Writer(db_path, w, done[1], stop[0]);
    }
    ::close(done[1]);
    pids.push_back(pid);
    done_fds.push_back(done[0]);
  }
  ::close(stop[0]);
  auto wait_commits = [&](int n) {
    for (int fd : done_fds) {
      for (int i = 0; i < n; ++i) {
        char b;
        ASSERT_EQ(::read(fd, &b, 1), 1);
      }
    }
  };
  wait_commits(20);  // every writer is mid-stream
  const fs::path dir = tmp.path / "backups";
  const host::SnapshotInfo snap = host::TakeSnapshot(db_path, dir, 1'700'000'000'000);
  wait_commits(20);  // and kept writing while and after the snapshot ran
  ::close(stop[1]);
  for (int fd : done_fds) {
    char buf[256];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
    ::close(fd);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }

  EXPECT_EQ(Mode(dir), "0700");
  EXPECT_EQ(Mode(snap.path), "0600");
  {
    SQLite::Database s(snap.path.string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(s.execAndGet("PRAGMA integrity_check").getString(), "ok");
    // Consistent: no half of a pair without the other, and something from every writer.
    EXPECT_EQ(s.execAndGet("SELECT count(*) FROM (SELECT 1 FROM pairs GROUP BY writer, k HAVING count(*) <> 2)").getInt(), 0);
    EXPECT_EQ(s.execAndGet("SELECT count(DISTINCT writer) FROM pairs").getInt(), kWriters);
  }
  const std::string at_snapshot = Dump(snap.path);
  const std::string latest = Dump(db_path);
  EXPECT_LT(at_snapshot.size(), latest.size());

  const fs::path aside = host::RestoreSnapshot(snap.path, db_path, 1'700'000'100'000);
  EXPECT_EQ(Dump(db_path), at_snapshot);
  EXPECT_EQ(Dump(aside), latest);  // the database before the restore is kept
  EXPECT_EQ(Mode(db_path), "0600");
}

TEST(Backup, NeverOverwritesAndRotatesAndAutoSnapshotsByAge) {
  TempDir tmp;
  const fs::path db_path = tmp.path / "kioku.db";
  CreateDatabase(db_path);
  const fs::path dir = tmp.path / "b";
  const auto a = host::TakeSnapshot(db_path, dir, 1'000'000);
  const auto b = host::TakeSnapshot(db_path, dir, 1'000'000);  // same millisecond
  EXPECT_NE(a.path, b.path);
  EXPECT_TRUE(fs::exists(a.path));
  EXPECT_EQ(host::ListSnapshots(dir).size(), 2u);

  host::BackupSettings settings;
  settings.dir = dir;
  settings.auto_after_hours = 24;
  settings.keep = 2;
  const std::int64_t hour = 3'600'000;
  EXPECT_FALSE(host::AutoSnapshot(db_path, settings, tmp.path, 1'000'000 + hour).has_value());
  auto taken = host::AutoSnapshot(db_path, settings, tmp.path, 1'000'000 + 25 * hour);
  ASSERT_TRUE(taken.has_value());
  auto kept = host::ListSnapshots(dir);
  ASSERT_EQ(kept.size(), 2u);  // rotation keeps the newest two
  EXPECT_EQ(kept.front().path, taken->path);
  settings.auto_after_hours = 0;
  EXPECT_FALSE(host::AutoSnapshot(db_path, settings, tmp.path, 1'000'000 + 100 * hour).has_value());
}

// A server that stops while its automatic snapshot runs abandons it: nothing is left in the
// backup folder, and the next start takes it. A copy a killed process left is removed then.
TEST(Backup, AStoppedSnapshotLeavesNothingAndAKilledOnesCopyIsRemovedLater) {
  TempDir tmp;
  const fs::path db_path = tmp.path / "kioku.db";
  CreateDatabase(db_path);
  {
    auto db = sdk::OpenDatabase(db_path.string());
    db.exec("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
            "INSERT INTO pairs SELECT i, 1, 'some text' FROM n");
  }
  const fs::path dir = tmp.path / "b";
  int asked = 0;
  try {
    host::TakeSnapshot(db_path, dir, 1'000'000, [&asked] { return ++asked >= 1; });
    ADD_FAILURE() << "the snapshot ran to the end although asked to stop";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("interrupt"), std::string::npos) << e.what();
  }
  EXPECT_GE(asked, 1);
  EXPECT_TRUE(fs::is_empty(dir));

  // Copies named for a process that is gone (pid 2^22 + 1 is above Linux's pid_max) go;
  // one of a running process (this one) stays.
  const fs::path gone = dir / ".kioku-snapshot-4194305-19700101T000000000Z.tmp";
  const fs::path gone_journal = dir / ".kioku-snapshot-4194305-19700101T000000000Z.tmp-journal";
  const fs::path running = dir / (".kioku-snapshot-" + std::to_string(::getpid()) + "-19700101T000000000Z.tmp");
  for (const fs::path& p : {gone, gone_journal, running}) std::fclose(std::fopen(p.c_str(), "w"));
  host::BackupSettings settings;
  settings.dir = dir;
  settings.auto_after_hours = 24;
  ASSERT_TRUE(host::AutoSnapshot(db_path, settings, tmp.path, 2'000'000).has_value());
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_FALSE(fs::exists(gone_journal));
  EXPECT_TRUE(fs::exists(running));
  EXPECT_EQ(host::ListSnapshots(dir).size(), 1u);
}

TEST(Backup, RestoreRefusesBrokenOrNewerFilesAndChangesNothing) {
  TempDir tmp;
  const fs::path db_path = tmp.path / "kioku.db";
  CreateDatabase(db_path);
  {
    auto db = sdk::OpenDatabase(db_path.string());
    db.exec("INSERT INTO pairs VALUES (1, 1, 'a')");
  }
  const std::string before = Dump(db_path);
  const fs::path junk = tmp.path / "junk.db";
  {
    std::FILE* f = std::fopen(junk.c_str(), "w");
    std::fputs("this is not a database, just text long enough to look like a header ...", f);
    std::fclose(f);
  }
  EXPECT_THROW(host::RestoreSnapshot(junk, db_path, 5), std::runtime_error);
  const fs::path newer = tmp.path / "newer.db";
  CreateDatabase(newer);
  {
    auto db = sdk::OpenDatabase(newer.string());
    db.exec("UPDATE kioku_migrations SET version = 99");
  }
  try {
    host::RestoreSnapshot(newer, db_path, 5);
    ADD_FAILURE() << "restored a database newer than this kioku";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
  const fs::path plain = tmp.path / "plain.db";
  { auto db = sdk::OpenDatabase(plain.string()); db.exec("CREATE TABLE x (y)"); }
  EXPECT_THROW(host::RestoreSnapshot(plain, db_path, 5), std::runtime_error);
  EXPECT_EQ(Dump(db_path), before);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(tmp.path)) files += e.path().filename().string().find("before-restore") != std::string::npos;
  EXPECT_EQ(files, 0u);
}

TEST(Backup, RestoreRefusesWhileAKiokuProcessHasTheDatabaseOpen) {
  TempDir tmp;
  const fs::path db_path = tmp.path / "kioku.db";
  CreateDatabase(db_path);
  const auto snap = host::TakeSnapshot(db_path, tmp.path / "b", 1'000'000);
  {
    auto db = sdk::OpenDatabase(db_path.string());
    db.exec("INSERT INTO pairs VALUES (7, 7, 'after the snapshot')");
  }
  const std::string before = Dump(db_path);
  {
    // An idle server: started, no transaction open, no call running.
    host::RuntimeOptions options;
    options.data_dir = tmp.path;
    host::Runtime server(options);
    server.Start();
    try {
      host::RestoreSnapshot(snap.path, db_path, 2'000'000);
      ADD_FAILURE() << "restored under a running server";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("running kioku"), std::string::npos) << e.what();
    }
    EXPECT_EQ(Dump(db_path), before);

    // While a restore holds the lock, a process that starts is refused and says why.
    auto restoring = host::DatabaseUseLock::TryAcquire(tmp.path / "other.db", host::DatabaseUseLock::Mode::kExclusive);
    ASSERT_TRUE(restoring);
    host::RuntimeOptions other;
    other.data_dir = tmp.path;
    other.db_path = tmp.path / "other.db";
    host::Runtime late(other);
    try {
      late.Start();
      ADD_FAILURE() << "started during a restore";
    } catch (const host::DatabaseLockedError& e) {
      EXPECT_NE(std::string(e.what()).find("being restored"), std::string::npos) << e.what();
    }
  }
  // The server has stopped: the restore goes ahead.
  host::RestoreSnapshot(snap.path, db_path, 2'000'000);
  EXPECT_EQ(Dump(db_path), Dump(snap.path));
}

}  // namespace
}  // namespace kioku
