#include "transport/worker_pool.hpp"

#include <algorithm>
#include <utility>

namespace kioku::host {

PreferredWorkerPool::PreferredWorkerPool(int workers) : workers_(static_cast<std::size_t>(std::max(1, workers))) {
  threads_.reserve(workers_.size());
  for (std::size_t i = 0; i < workers_.size(); ++i) threads_.emplace_back([this, i] { Run(i); });
}

PreferredWorkerPool::~PreferredWorkerPool() { Join(); }

void PreferredWorkerPool::Post(Task task) {
  std::lock_guard lock(mutex_);
  for (Worker& w : workers_) {
    if (!w.idle) continue;
    w.idle = false;
    w.handed = std::move(task);
    w.wake.notify_one();
    return;
  }
  queued_.push_back(std::move(task));
}

void PreferredWorkerPool::Run(std::size_t index) {
  Worker& self = workers_[index];
  std::unique_lock lock(mutex_);
  for (;;) {
    Task task;
    if (self.handed) {
      task = std::exchange(self.handed, nullptr);
    } else if (!queued_.empty()) {
      task = std::move(queued_.front());
      queued_.pop_front();
    } else if (stopping_) {
      return;
    } else {
      self.idle = true;
      self.wake.wait(lock, [&] { return self.handed || stopping_; });
      continue;
    }
    self.idle = false;
    lock.unlock();
    std::function<void()> then = task();
    lock.lock();
    // Idle before the continuation runs (unless work is queued): the request a client sends
    // once it has the answer is handed to this worker, not to another.
    if (queued_.empty() && !stopping_) self.idle = true;
    if (then) {
      lock.unlock();
      then();
      lock.lock();
    }
  }
}

void PreferredWorkerPool::Join() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    for (Worker& w : workers_) w.wake.notify_one();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

}  // namespace kioku::host
