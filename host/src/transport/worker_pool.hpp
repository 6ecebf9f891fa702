#pragma once
/// @file worker_pool.hpp
/// Threads that run a transport's tool calls, with one preferred: the first worker takes every
/// task posted while it is idle, the others only the tasks posted while it is busy.
///
/// Why: each worker thread has its own database connection (HostServices::Db) with its own
/// parsed schema, prepared statements and page cache. Opening one costs ~5 M instructions,
/// and every statement is prepared again on it. A pool that wakes its threads in turn (asio's
/// thread_pool) spreads a client that waits for each answer, as most do, over all of them;
/// 1,000 batch writes over stdio then opened six connections instead of three and prepared
/// every statement on each (+25 M instructions, 4% of the run; callgrind).

#include <atomic>
#include <functional>

#include <boost/asio/thread_pool.hpp>

namespace kioku::host {

class PreferredWorkerPool {
 public:
  /// A task does its work and returns what is left to do once the first worker counts as
  /// idle again (e.g. sending the answer, after which the client sends its next request:
  /// that request then finds the first worker free). An empty continuation is skipped.
  using Task = std::function<std::function<void()>()>;

  /// `workers` threads in all (at least 1): the first, and workers − 1 others. With 1, every
  /// task queues on the first.
  explicit PreferredWorkerPool(int workers);
  ~PreferredWorkerPool();
  PreferredWorkerPool(const PreferredWorkerPool&) = delete;
  PreferredWorkerPool& operator=(const PreferredWorkerPool&) = delete;

  /// Runs `task` on the first worker if it is idle, else on another (queued when all are
  /// busy). Safe to call from any thread.
  void Post(Task task);
  /// Waits until every posted task has finished. Post nothing after it.
  void Join();

 private:
  int workers_;
  boost::asio::thread_pool first_;
  boost::asio::thread_pool others_;
  std::atomic<bool> first_busy_{false};
};

}  // namespace kioku::host
