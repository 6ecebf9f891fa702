#pragma once
/// @file backup.hpp
/// Online snapshots of the database and restoring one (`kioku backup`, the automatic
/// snapshot at `kioku serve` start).
///
/// A snapshot is `VACUUM INTO` a temporary file in the backup directory (SQLite "VACUUM
/// INTO", 3.27+: a transactionally consistent copy taken through a read transaction, so
/// writers in other processes keep going), checked with `PRAGMA integrity_check`, made
/// 0600 and then linked to its final name `kioku-YYYYMMDDTHHMMSSmmmZ.db` with link(2),
/// which never replaces an existing file. The directory is created 0700.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kioku::host {

/// Config `backup:` (config/kioku.yaml).
struct BackupSettings {
  std::filesystem::path dir;     ///< Empty = <data dir>/backups.
  double auto_after_hours = 24;  ///< Snapshot at serve start when the newest is older; 0 = never.
  int keep = 7;                  ///< Snapshots kept by rotation (newest first); >= 1.
};

/// One snapshot on disk.
struct SnapshotInfo {
  std::filesystem::path path;
  std::int64_t taken_at_ms = 0;  ///< From the file name (UTC).
  std::uintmax_t bytes = 0;
};

/// The backup directory of `settings` for data directory `data_dir`.
std::filesystem::path BackupDir(const BackupSettings& settings, const std::filesystem::path& data_dir);

/// Snapshots, newest first (files named kioku-*.db whose name carries a time).
std::vector<SnapshotInfo> ListSnapshots(const std::filesystem::path& dir);

/// Asked now and then while a snapshot is taken (SQLite's progress handler, every few
/// thousand virtual-machine steps); true stops it.
using StopRequested = std::function<bool()>;

/// Takes a snapshot of `db_path` into `dir` at `now_ms`. Throws std::runtime_error naming
/// the step that failed (the temporary file is removed; nothing else changes), also when
/// `stop` asked it to stop ("… interrupted").
SnapshotInfo TakeSnapshot(const std::filesystem::path& db_path, const std::filesystem::path& dir, std::int64_t now_ms,
                          const StopRequested& stop = {});

/// Deletes the oldest snapshots beyond `keep`; returns the deleted paths.
std::vector<std::filesystem::path> RotateSnapshots(const std::filesystem::path& dir, int keep);

/// TakeSnapshot + RotateSnapshots when the newest snapshot is older than
/// `auto_after_hours` (or there is none and the database exists). Returns the snapshot
/// taken, if any. Throws like TakeSnapshot. First removes the temporary copies that
/// snapshots of processes no longer running left in `dir` (killed mid-copy).
std::optional<SnapshotInfo> AutoSnapshot(const std::filesystem::path& db_path, const BackupSettings& settings,
                                         const std::filesystem::path& data_dir, std::int64_t now_ms,
                                         const StopRequested& stop = {});

/// Checks `file` before a restore: it opens as SQLite, `PRAGMA integrity_check` is "ok", it
/// has kioku's `kioku_migrations` table, and no plugin's version in it is above the one in
/// the current database `db_path` (when that exists: it was migrated by this binary).
/// Throws std::runtime_error saying which check failed.
void CheckRestorable(const std::filesystem::path& file, const std::filesystem::path& db_path);

/// Restores `file` as `db_path`: CheckRestorable, then the current database is
/// checkpointed and moved aside to `<db_path>.before-restore-<time>` (returned), and a
/// 0600 copy of `file` takes its place by rename. Refused (std::runtime_error saying so,
/// nothing changed) while any kioku process has the database open: the restore takes the
/// use lock exclusive (database_use_lock.hpp) and holds it until the new file is in place.
std::filesystem::path RestoreSnapshot(const std::filesystem::path& file, const std::filesystem::path& db_path,
                                      std::int64_t now_ms);

}  // namespace kioku::host
