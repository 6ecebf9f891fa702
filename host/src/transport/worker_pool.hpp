#pragma once
/// @file worker_pool.hpp
/// Threads that run a transport's tool calls, preferring the first: a task goes to the
/// lowest-numbered idle worker, so a client that waits for each answer, as most do, is
/// served by worker 0 every time; a task posted while every worker is busy waits in one
/// queue that whichever worker frees first takes from.
///
/// Why: each worker thread has its own database connection (HostServices::Db) with its own
/// parsed schema, prepared statements and page cache. Opening one costs ~5 M instructions,
/// and every statement is prepared again on it. asio's thread_pool wakes its threads in
/// turn, so such a client was spread over all of them: 1,000 batch writes over stdio opened
/// six connections instead of three and prepared every statement on each (+25 M
/// instructions, 4% of the run; callgrind).

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kioku::host {

class PreferredWorkerPool {
 public:
  /// A task does its work and returns what is left to do once its worker counts as idle
  /// again (e.g. sending the answer, after which the client sends its next request: that
  /// request then finds the same worker free). An empty continuation is skipped.
  using Task = std::function<std::function<void()>()>;

  /// `workers` threads (at least 1).
  explicit PreferredWorkerPool(int workers);
  ~PreferredWorkerPool();
  PreferredWorkerPool(const PreferredWorkerPool&) = delete;
  PreferredWorkerPool& operator=(const PreferredWorkerPool&) = delete;

  /// Hands `task` to the lowest-numbered idle worker, or queues it for the first worker to
  /// become idle. Safe to call from any thread; not after Join().
  void Post(Task task);
  /// Waits until every posted task and its continuation has finished, then ends the threads.
  void Join();

 private:
  struct Worker {
    std::condition_variable wake;
    Task handed;  // given by Post while this worker was idle (empty = none)
    bool idle = true;  // from the start: a task posted before the thread waits is handed to it
  };
  void Run(std::size_t index);

  std::mutex mutex_;
  std::vector<Worker> workers_;
  std::deque<Task> queued_;  // posted while every worker was busy
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kioku::host
