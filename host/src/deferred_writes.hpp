#pragma once
/// @file deferred_writes.hpp
/// The host's background writer behind HostServices::DeferWrite: bookkeeping writes that
/// must not run on a request thread (recall counters, automatic outcome capture) are queued
/// in memory and written in batches, one BEGIN IMMEDIATE transaction per batch, on one
/// background thread with its own connection. So a read tool never waits for, or fails on,
/// another process's write lock.
///
/// A batch is flushed when it holds `max_writes` writes, when its oldest write is
/// `max_age_ms` old (by the injected clock, checked on every Add and every `max_age_ms` of
/// real time), on Flush(), and on Stop(). kill -9 loses at most the unflushed batch —
/// counters and captured outcomes, never a memory (those are written on the request path).

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/host.hpp"

namespace kioku::host {

class ConnectionPool;

struct DeferredWriteOptions {
  std::size_t max_writes = 256;   ///< A batch this full is flushed at once.
  std::int64_t max_age_ms = 1000; ///< A batch whose oldest write is this old is flushed.
  /// Queued writes beyond this (the database stayed locked through several flushes) are
  /// dropped, oldest first, and the drop is logged: memory stays bounded.
  std::size_t max_queued = 65'536;
};

using DeferredWrite = std::function<void(SQLite::Database&)>;

/// Thread-safe. The writes (std::function objects that may come from a plugin library) are
/// destroyed on the writer thread or in Stop(), before the caller unloads any library.
class DeferredWrites {
 public:
  DeferredWrites(ConnectionPool& pool, const sdk::Clock& clock, sdk::Logger& log, DeferredWriteOptions options);
  /// Stop(): flushes what is queued and joins the thread.
  ~DeferredWrites();
  DeferredWrites(const DeferredWrites&) = delete;
  DeferredWrites& operator=(const DeferredWrites&) = delete;

  /// Queues one write. Never touches the database; after Stop() the write runs inline.
  void Add(DeferredWrite write);
  /// Blocks until every write queued before the call has been written (or dropped).
  void Flush();
  /// Writes what is queued now on the calling thread's connection (its own transaction);
  /// what the database kept locked goes back to the queue for the writer thread. For a
  /// one-shot process at shutdown, whose thread already has a connection open.
  void FlushHere();
  /// Flushes and joins the writer thread. Idempotent.
  void Stop();

  /// Writes queued and not yet taken by the writer thread.
  std::size_t Pending() const;
  /// Batches written so far (a dropped batch counts too).
  std::uint64_t Batches() const;

 private:
  bool DueLocked() const;
  void Loop();
  /// False when the database stayed locked (the caller keeps or drops the batch and says
  /// which through ReportLockedOut); true when written, or dropped for another error (logged here).
  bool WriteBatch(std::vector<DeferredWrite>& batch);
  /// Logs a batch of `writes` the lock held back: kept for the next try, or `dropped`.
  void ReportLockedOut(std::size_t writes, bool dropped);

  ConnectionPool& pool_;
  const sdk::Clock& clock_;
  sdk::Logger& log_;
  const DeferredWriteOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<DeferredWrite> pending_;
  std::optional<std::int64_t> oldest_ms_;
  std::uint64_t requested_ = 0;  // Flush() generations asked for
  std::uint64_t completed_ = 0;  // and written
  std::uint64_t batches_ = 0;
  bool stopping_ = false;
  bool stopped_ = false;
  std::once_flag joined_;
  std::thread thread_;
};

}  // namespace kioku::host
