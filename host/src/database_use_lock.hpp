#pragma once
/// @file database_use_lock.hpp
/// Which kioku processes have a database open: every Runtime started in serve mode (`kioku
/// serve`, `kioku call`, hooks, `kioku doctor`, …) holds a SHARED flock(2) on
/// `<database>.lock` until it ends; `kioku backup restore` takes it EXCLUSIVE, so it refuses
/// while any of them runs, and a process starting during a restore refuses to start.
///
/// Why a lock file and not SQLite's own locks: an idle connection in WAL mode holds no lock
/// a second process can test through SQLite's API (only a shared lock on a byte of the -shm
/// file, an implementation detail), and replacing the file under an open connection would
/// leave that process writing into the unlinked old database. flock(2) locks belong to the
/// open file description, so they end when the process dies (no stale pid files) and two
/// opens in one process conflict like two processes do. Advisory: only kioku takes it.

#include <filesystem>
#include <memory>

namespace kioku::host {

class DatabaseUseLock {
 public:
  enum class Mode { kShared, kExclusive };
  /// Takes the lock on `<db_path>.lock` (created 0600) without waiting. Returns null when
  /// another holder's lock conflicts (someone holds it exclusive, or — for kExclusive —
  /// anyone holds it). Throws std::runtime_error naming the file when it cannot be opened.
  static std::unique_ptr<DatabaseUseLock> TryAcquire(const std::filesystem::path& db_path, Mode mode);
  /// The lock file of `db_path`.
  static std::filesystem::path LockPath(const std::filesystem::path& db_path);
  ~DatabaseUseLock();
  DatabaseUseLock(const DatabaseUseLock&) = delete;
  DatabaseUseLock& operator=(const DatabaseUseLock&) = delete;

 private:
  explicit DatabaseUseLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace kioku::host
