#pragma once
/// @file connection_pool.hpp
/// One SQLite connection per thread per database, opened lazily and closed with the pool.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include <SQLiteCpp/Database.h>

namespace kioku::host {

class ConnectionPool {
 public:
  ConnectionPool(std::filesystem::path db_path, int busy_timeout_ms);
  /// Closes every connection. No thread may use one afterwards.
  ~ConnectionPool();
  /// The calling thread's connection (opened on first use).
  SQLite::Database& ForThisThread();
  const std::filesystem::path& Path() const { return path_; }
  /// The connections close without checkpointing the WAL while its file holds at most
  /// `wal_bytes` (default 0: always checkpoint; SQLite checkpoints and removes the WAL when
  /// the last connection to a database closes). For one-shot processes, which would
  /// otherwise pay a checkpoint and fsync each: the WAL their writes leave is bounded, since
  /// the next process to open a database nobody has open rebuilds its index by reading
  /// every frame (~1.4 M instructions per MiB; at the 4 MiB autocheckpoint that was a
  /// fifth of a cold `kioku call`).
  void SetCheckpointOnCloseAbove(std::uintmax_t wal_bytes) { checkpoint_above_wal_bytes_ = wal_bytes; }
  /// Whether the connections would close now without checkpointing: a bound is set and the
  /// WAL holds at most that many bytes (or there is none).
  bool ClosesWithoutCheckpoint() const;

 private:
  std::filesystem::path path_;
  int busy_timeout_ms_;
  std::uintmax_t checkpoint_above_wal_bytes_ = 0;
  std::uint64_t id_;  // distinguishes pools whose addresses get reused
  std::mutex mutex_;
  std::vector<std::shared_ptr<SQLite::Database>> all_;
};

}  // namespace kioku::host
