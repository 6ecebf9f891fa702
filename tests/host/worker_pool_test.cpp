// PreferredWorkerPool: a client that waits for each answer is served by one thread (one warm
// database connection); a call that arrives while that thread is busy runs beside it.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "transport/worker_pool.hpp"

namespace kioku::host {
namespace {

// Posts a task that records its thread and waits until its continuation (run after the
// first worker is idle again) has run, as a client waiting for the answer would.
std::thread::id RunAndWait(PreferredWorkerPool& pool) {
  std::promise<std::thread::id> answered;
  pool.Post([&answered]() -> std::function<void()> {
    const std::thread::id id = std::this_thread::get_id();
    return [&answered, id] { answered.set_value(id); };
  });
  return answered.get_future().get();
}

TEST(PreferredWorkerPool, ACallerThatWaitsForEachAnswerStaysOnOneThread) {
  PreferredWorkerPool pool(4);
  const std::thread::id first = RunAndWait(pool);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(RunAndWait(pool), first) << "call " << i;
}

TEST(PreferredWorkerPool, ACallPostedWhileTheFirstIsBusyRunsBesideIt) {
  PreferredWorkerPool pool(4);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<std::thread::id> blocked_on;
  pool.Post([&, released]() -> std::function<void()> {
    blocked_on.set_value(std::this_thread::get_id());
    released.wait();
    return {};
  });
  const std::thread::id first = blocked_on.get_future().get();
  // Runs although the first worker is still blocked: on another thread.
  const std::thread::id second = RunAndWait(pool);
  EXPECT_NE(second, first);
  release.set_value();
  pool.Join();
}

// A task posted while every worker was busy is taken by the first one to finish, not kept
// for a worker that stays busy (a write waiting on another process's lock, say).
TEST(PreferredWorkerPool, AQueuedTaskGoesToTheFirstWorkerThatFrees) {
  PreferredWorkerPool pool(2);
  std::promise<void> release_a, release_b, a_started, b_started;
  std::shared_future<void> a_go = release_a.get_future().share(), b_go = release_b.get_future().share();
  pool.Post([&, a_go]() -> std::function<void()> {
    a_started.set_value();
    a_go.wait();
    return {};
  });
  a_started.get_future().wait();
  pool.Post([&, b_go]() -> std::function<void()> {
    b_started.set_value();
    b_go.wait();
    return {};
  });
  b_started.get_future().wait();
  std::promise<void> c_done;
  pool.Post([&]() -> std::function<void()> { return [&] { c_done.set_value(); }; });  // queued: both busy
  release_a.set_value();
  c_done.get_future().wait();  // while B still blocks
  release_b.set_value();
  pool.Join();
}

TEST(PreferredWorkerPool, OneWorkerQueuesEverything) {
  PreferredWorkerPool pool(1);
  std::mutex mu;
  std::set<std::thread::id> threads;
  for (int i = 0; i < 20; ++i) {
    pool.Post([&]() -> std::function<void()> {
      std::lock_guard lock(mu);
      threads.insert(std::this_thread::get_id());
      return {};
    });
  }
  pool.Join();
  EXPECT_EQ(threads.size(), 1u);
}

TEST(PreferredWorkerPool, JoinWaitsForEveryTaskAndContinuation) {
  std::atomic<int> done{0};
  {
    PreferredWorkerPool pool(3);
    for (int i = 0; i < 100; ++i) {
      pool.Post([&]() -> std::function<void()> { return [&] { ++done; }; });
    }
    pool.Join();
    EXPECT_EQ(done.load(), 100);
  }
}

}  // namespace
}  // namespace kioku::host
