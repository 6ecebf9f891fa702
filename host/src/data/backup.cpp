#include "data/backup.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/private_file.hpp"
#include "database_use_lock.hpp"
#include "kioku/sdk/db.hpp"

namespace kioku::host {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "kioku-";

std::optional<std::int64_t> ParseStamp(const std::string& name) {
  // kioku-YYYYMMDDTHHMMSSmmmZ[-N].db
  if (name.rfind(kPrefix, 0) != 0 || name.size() < 6 + 19 + 3) return std::nullopt;
  if (name.substr(name.size() - 3) != ".db") return std::nullopt;
  const std::string s = name.substr(6, 19);
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(s.c_str(), "%4d%2d%2dT%2d%2d%2d%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &ms) != 7 || s[8] != 'T' || s[18] != 'Z') {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(::timegm(&tm)) * 1000 + ms;
}

// SQLite's progress handler: every 10,000 virtual-machine steps `stop` is asked, and true
// interrupts the statement running on `db` (SQLITE_INTERRUPT, "interrupted").
void StopWith(SQLite::Database& db, const StopRequested& stop) {
  if (!stop) return;
  sqlite3_progress_handler(
      db.getHandle(), 10000,
      [](void* f) -> int { return (*static_cast<const StopRequested*>(f))() ? 1 : 0; },
      const_cast<StopRequested*>(&stop));
}

// The temporary copies (.kioku-snapshot-<pid>-<time>.tmp, and SQLite's -journal beside one)
// whose process is gone: a snapshot killed mid-copy leaves one as large as the database.
void RemoveAbandonedCopies(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string head = ".kioku-snapshot-";
    if (name.rfind(head, 0) != 0 || name.find(".tmp") == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + head.size(), nullptr, 10);
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) {
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
  }
}

std::string IntegrityCheck(SQLite::Database& db) {
  SQLite::Statement q(db, "PRAGMA integrity_check");
  std::string result;
  while (q.executeStep()) result += (result.empty() ? "" : "; ") + q.getColumn(0).getString();
  return result;
}

std::map<std::string, int> Versions(SQLite::Database& db, const std::string& what) {
  if (!db.tableExists("kioku_migrations")) {
    throw std::runtime_error(what + " is not a kioku database (no kioku_migrations table)");
  }
  std::map<std::string, int> out;
  SQLite::Statement q(db, "SELECT plugin, version FROM kioku_migrations");
  while (q.executeStep()) out[q.getColumn(0).getString()] = q.getColumn(1).getInt();
  return out;
}

}  // namespace

fs::path BackupDir(const BackupSettings& settings, const fs::path& data_dir) {
  return settings.dir.empty() ? data_dir / "backups" : settings.dir;
}

std::vector<SnapshotInfo> ListSnapshots(const fs::path& dir) {
  std::vector<SnapshotInfo> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    auto at = ParseStamp(entry.path().filename().string());
    if (!at) continue;
    out.push_back({entry.path(), *at, entry.file_size(ec)});
  }
  std::sort(out.begin(), out.end(), [](const SnapshotInfo& a, const SnapshotInfo& b) {
    return a.taken_at_ms != b.taken_at_ms ? a.taken_at_ms > b.taken_at_ms : a.path > b.path;
  });
  return out;
}

SnapshotInfo TakeSnapshot(const fs::path& db_path, const fs::path& dir, std::int64_t now_ms, const StopRequested& stop) {
  std::error_code ec;
  if (!fs::is_regular_file(db_path, ec)) throw std::runtime_error("no database at " + db_path.string() + " to snapshot");
  MakePrivateDir(dir);
  const fs::path tmp = dir / (".kioku-snapshot-" + std::to_string(::getpid()) + "-" + FileStamp(now_ms) + ".tmp");
  fs::remove(tmp, ec);
  struct Cleanup {
    const fs::path& p;
    ~Cleanup() {
      std::error_code e;
      fs::remove(p, e);
    }
  } cleanup{tmp};
  {
    // Created empty and 0600 before SQLite writes into it (VACUUM INTO accepts an empty
    // file): there is no moment with a copy others could read.
    const int fd = ::open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0) throw std::runtime_error("cannot create " + tmp.string() + ": " + std::strerror(errno));
    ::close(fd);
  }
  try {
    SQLite::Database src = sdk::OpenDatabase(db_path.string());
    StopWith(src, stop);
    SQLite::Statement vacuum(src, "VACUUM INTO ?");
    vacuum.bind(1, tmp.string());
    vacuum.exec();
  } catch (const std::exception& e) {
    throw std::runtime_error("snapshot of " + db_path.string() + " failed (VACUUM INTO): " + e.what());
  }
  ::chmod(tmp.c_str(), 0600);
  {
    SQLite::Database copy(tmp.string(), SQLite::OPEN_READONLY);
    StopWith(copy, stop);
    std::string check;
    try {
      check = IntegrityCheck(copy);
    } catch (const std::exception& e) {
      throw std::runtime_error("snapshot of " + db_path.string() + " failed (integrity_check of the copy): " + e.what());
    }
    if (check != "ok") throw std::runtime_error("snapshot failed integrity_check: " + check);
  }
  const fs::path target = LinkToFreeName(tmp, dir, kPrefix + FileStamp(now_ms), ".db");
  return {target, now_ms, fs::file_size(target, ec)};
}

std::vector<fs::path> RotateSnapshots(const fs::path& dir, int keep) {
  std::vector<fs::path> removed;
  auto all = ListSnapshots(dir);
  for (std::size_t i = static_cast<std::size_t>(std::max(keep, 1)); i < all.size(); ++i) {
    std::error_code ec;
    if (fs::remove(all[i].path, ec)) removed.push_back(all[i].path);
  }
  return removed;
}

std::optional<SnapshotInfo> AutoSnapshot(const fs::path& db_path, const BackupSettings& settings,
                                         const fs::path& data_dir, std::int64_t now_ms, const StopRequested& stop) {
  std::error_code ec;
  if (settings.auto_after_hours <= 0 || !fs::is_regular_file(db_path, ec)) return std::nullopt;
  const fs::path dir = BackupDir(settings, data_dir);
  RemoveAbandonedCopies(dir);
  auto all = ListSnapshots(dir);
  const auto max_age_ms = static_cast<std::int64_t>(settings.auto_after_hours * 3600.0 * 1000.0);
  if (!all.empty() && now_ms - all.front().taken_at_ms < max_age_ms) return std::nullopt;
  SnapshotInfo taken = TakeSnapshot(db_path, dir, now_ms, stop);
  RotateSnapshots(dir, settings.keep);
  return taken;
}

void CheckRestorable(const fs::path& file, const fs::path& db_path) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw std::runtime_error(file.string() + ": no such file");
  std::map<std::string, int> theirs;
  try {
    SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
    const std::string check = IntegrityCheck(db);
    if (check != "ok") throw std::runtime_error(file.string() + " failed integrity_check: " + check);
    theirs = Versions(db, file.string());
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(file.string() + " is not a readable SQLite database: " + e.what());
  }
  if (!fs::is_regular_file(db_path, ec)) return;
  SQLite::Database current(db_path.string(), SQLite::OPEN_READONLY);
  const auto ours = Versions(current, db_path.string());
  for (const auto& [plugin, version] : theirs) {
    auto it = ours.find(plugin);
    if (it != ours.end() && version > it->second) {
      throw std::runtime_error(file.string() + ": layer '" + plugin + "' has schema version " + std::to_string(version) +
                               ", newer than this kioku's " + std::to_string(it->second) +
                               "; restore it with a newer kioku");
    }
  }
}

fs::path RestoreSnapshot(const fs::path& file, const fs::path& db_path, std::int64_t now_ms) {
  CheckRestorable(file, db_path);
  // Held to the end: no kioku process starts on the database while it is replaced.
  const auto exclusive = DatabaseUseLock::TryAcquire(db_path, DatabaseUseLock::Mode::kExclusive);
  if (!exclusive) {
    throw std::runtime_error(db_path.string() + " is open in a running kioku process (`kioku serve`, a hook or " +
                             "another command holds " + DatabaseUseLock::LockPath(db_path).string() +
                             "); stop every kioku using it, then restore again");
  }
  std::error_code ec;
  const fs::path tmp = db_path.parent_path() / (".kioku-restore-" + FileStamp(now_ms) + ".tmp");
  fs::remove(tmp, ec);
  fs::copy_file(file, tmp, ec);
  if (ec) throw std::runtime_error("cannot copy " + file.string() + " to " + tmp.string() + ": " + ec.message());
  ::chmod(tmp.c_str(), 0600);
  fs::path aside;
  if (fs::is_regular_file(db_path, ec)) {
    {
      SQLite::Database current = sdk::OpenDatabase(db_path.string());
      SQLite::Statement cp(current, "PRAGMA wal_checkpoint(TRUNCATE)");
      if (cp.executeStep() && cp.getColumn(0).getInt() != 0) {
        fs::remove(tmp, ec);
        throw std::runtime_error(db_path.string() + " is in use (checkpoint blocked); stop every kioku serve first");
      }
    }
    aside = db_path.string() + ".before-restore-" + FileStamp(now_ms);
    if (::link(db_path.c_str(), aside.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot keep the current database aside as " + aside.string() + ": " + why);
    }
  }
  if (::rename(tmp.c_str(), db_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot move the restored copy into place: " + why);
  }
  fs::remove(db_path.string() + "-wal", ec);
  fs::remove(db_path.string() + "-shm", ec);
  return aside;
}

}  // namespace kioku::host
