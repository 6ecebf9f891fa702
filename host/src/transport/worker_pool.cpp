#include "transport/worker_pool.hpp"

#include <algorithm>
#include <utility>

#include <boost/asio/post.hpp>

namespace kioku::host {

PreferredWorkerPool::PreferredWorkerPool(int workers)
    : workers_(std::max(1, workers)), first_(1), others_(static_cast<std::size_t>(std::max(1, workers_ - 1))) {}

PreferredWorkerPool::~PreferredWorkerPool() { Join(); }

void PreferredWorkerPool::Post(Task task) {
  if (workers_ == 1) {
    boost::asio::post(first_, [task = std::move(task)] {
      if (auto then = task()) then();
    });
  } else if (!first_busy_.exchange(true)) {
    boost::asio::post(first_, [this, task = std::move(task)] {
      std::function<void()> then = task();
      first_busy_.store(false);
      if (then) then();
    });
  } else {
    boost::asio::post(others_, [task = std::move(task)] {
      if (auto then = task()) then();
    });
  }
}

void PreferredWorkerPool::Join() {
  first_.join();
  others_.join();
}

}  // namespace kioku::host
