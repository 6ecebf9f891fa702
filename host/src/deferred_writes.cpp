#include "deferred_writes.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

#include <SQLiteCpp/Exception.h>

#include "connection_pool.hpp"
#include "kioku/sdk/db.hpp"

namespace kioku::host {

DeferredWrites::DeferredWrites(ConnectionPool& pool, const sdk::Clock& clock, sdk::Logger& log,
                               DeferredWriteOptions options)
    : pool_(pool), clock_(clock), log_(log), options_(options) {
  thread_ = std::thread([this] { Loop(); });
}

DeferredWrites::~DeferredWrites() { Stop(); }

bool DeferredWrites::DueLocked() const {
  if (pending_.empty()) return false;
  if (stopping_ || requested_ > completed_ || pending_.size() >= std::max<std::size_t>(1, options_.max_writes)) {
    return true;
  }
  return oldest_ms_ && clock_.NowMs() - *oldest_ms_ >= options_.max_age_ms;
}

void DeferredWrites::Add(DeferredWrite write) {
  if (!write) return;
  std::unique_lock lock(mutex_);
  if (stopped_) {
    // Late writes (a plugin's Stop, a CLI after shutdown) still land, on this thread.
    lock.unlock();
    std::vector<DeferredWrite> one;
    one.push_back(std::move(write));
    if (!WriteBatch(one)) log_.Warn("deferred writes: a write after shutdown was dropped (database locked)");
    return;
  }
  if (pending_.size() >= options_.max_queued) {
    pending_.erase(pending_.begin());
    log_.Warn("deferred writes: queue full (" + std::to_string(options_.max_queued) +
              "; the database stayed locked); dropped the oldest");
  }
  if (pending_.empty()) oldest_ms_ = clock_.NowMs();
  pending_.push_back(std::move(write));
  if (DueLocked()) wake_.notify_one();
}

void DeferredWrites::Flush() {
  std::unique_lock lock(mutex_);
  if (stopped_) return;
  const std::uint64_t ticket = ++requested_;
  wake_.notify_one();
  done_.wait(lock, [&] { return completed_ >= ticket || stopped_; });
}

void DeferredWrites::FlushHere() {
  std::vector<DeferredWrite> batch;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    batch.swap(pending_);
    oldest_ms_.reset();
  }
  if (batch.empty()) return;
  if (WriteBatch(batch)) return;
  ReportLockedOut(batch.size(), /*dropped=*/false);
  std::lock_guard lock(mutex_);
  pending_.insert(pending_.begin(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
  oldest_ms_ = clock_.NowMs();
}

void DeferredWrites::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      // Another caller is stopping (or has stopped): nothing more to do here.
    } else {
      stopping_ = true;
      wake_.notify_one();
    }
  }
  std::call_once(joined_, [this] { thread_.join(); });
}

std::size_t DeferredWrites::Pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

std::uint64_t DeferredWrites::Batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

void DeferredWrites::Loop() {
  // Real time only paces how often the age bound is looked at; whether a batch is due is
  // decided by the injected clock (tests move a ManualClock, never sleep).
  const auto poll = std::chrono::milliseconds(std::clamp<std::int64_t>(options_.max_age_ms, 10, 60'000));
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, poll, [&] { return stopping_ || DueLocked() || requested_ > completed_; });
    const std::uint64_t ticket = requested_;
    if (DueLocked()) {
      std::vector<DeferredWrite> batch;
      batch.swap(pending_);
      oldest_ms_.reset();
      lock.unlock();
      const bool locked_out = !WriteBatch(batch);
      // At shutdown there is no later (a one-shot process exits next): the batch is dropped.
      if (locked_out) ReportLockedOut(batch.size(), /*dropped=*/stopping_);
      if (!locked_out || stopping_) batch.clear();  // destroy the writes outside the lock
      lock.lock();
      ++batches_;
      if (locked_out && !stopping_) {
        // The database stayed locked through every retry: keep the batch (bounded) and try
        // again after another max_age_ms, instead of losing the counters.
        const std::size_t room = options_.max_queued > pending_.size() ? options_.max_queued - pending_.size() : 0;
        if (batch.size() > room) batch.erase(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(batch.size() - room));
        pending_.insert(pending_.begin(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
        oldest_ms_ = clock_.NowMs();
        lock.unlock();
        batch.clear();
        lock.lock();
      }
    }
    completed_ = std::max(completed_, ticket);
    if (stopping_ && pending_.empty()) {
      stopped_ = true;  // from now on Add() writes inline
      done_.notify_all();
      return;
    }
    done_.notify_all();
  }
}

void DeferredWrites::ReportLockedOut(std::size_t writes, bool dropped) {
  log_.Warn(dropped ? "deferred writes: the database stayed locked through every retry at shutdown; dropped " +
                          std::to_string(writes) + " (usage counters and call outcomes, never a memory)"
                    : "deferred writes: database still locked after retries; keeping " + std::to_string(writes) +
                          " writes for later");
}

bool DeferredWrites::WriteBatch(std::vector<DeferredWrite>& batch) {
  if (batch.empty()) return true;
  try {
    auto& db = pool_.ForThisThread();
    sdk::WithWriteTransaction(db, [&] {
      for (auto& write : batch) {
        // A savepoint per write: one bad write is undone and logged, the rest still land;
        // SQLITE_BUSY propagates so the whole batch is retried.
        db.exec("SAVEPOINT deferred_write");
        try {
          write(db);
          db.exec("RELEASE deferred_write");
        } catch (const SQLite::Exception& e) {
          if (sdk::IsBusyError(e)) throw;
          db.exec("ROLLBACK TO deferred_write");
          db.exec("RELEASE deferred_write");
          log_.Warn(std::string("deferred write failed and was skipped: ") + e.what());
        } catch (const std::exception& e) {
          db.exec("ROLLBACK TO deferred_write");
          db.exec("RELEASE deferred_write");
          log_.Warn(std::string("deferred write failed and was skipped: ") + e.what());
        }
      }
    });
    return true;
  } catch (const SQLite::Exception& e) {
    if (sdk::IsBusyError(e)) return false;  // the caller keeps or drops the batch, and says which
    log_.Warn("deferred writes: dropped a batch of " + std::to_string(batch.size()) + " (" + e.what() + ")");
  } catch (const std::exception& e) {
    log_.Warn("deferred writes: dropped a batch of " + std::to_string(batch.size()) + " (" + e.what() + ")");
  }
  return true;
}

}  // namespace kioku::host
