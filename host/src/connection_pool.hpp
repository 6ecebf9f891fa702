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
  /// false: the connections close without checkpointing the WAL (SQLite checkpoints and
  /// removes it when the last connection to a database closes). For one-shot processes.
  void SetCheckpointOnClose(bool on) { checkpoint_on_close_ = on; }

 private:
  std::filesystem::path path_;
  int busy_timeout_ms_;
  bool checkpoint_on_close_ = true;
  std::uint64_t id_;  // distinguishes pools whose addresses get reused
  std::mutex mutex_;
  std::vector<std::shared_ptr<SQLite::Database>> all_;
};

}  // namespace kioku::host
