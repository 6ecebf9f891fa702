#pragma once
/// @file embed_worker.hpp
/// The background embed worker: takes due rows from semantic_embed_queue, embeds their
/// text in batches, refuses any vector of the wrong length, zero norm or NaN, stores unit
/// vectors under the embedder's model, and de-duplicates: a newly embedded memory whose
/// cosine to an older live memory of the same kind, scope, subject and value is at least
/// `vectors.dedup_threshold` reaffirms that memory and is superseded by it (history rows on
/// both). Writes never wait for it: the queue is filled by triggers (vectors.hpp).
///
/// A failed batch stays queued with exponential backoff per row (5 s · 2^attempts, capped
/// at 1 h, host clock); an open circuit leaves rows untouched. The thread starts
/// `start_delay_ms` after Start, wakes every `poll_ms`, and Stop joins it (waiting at most
/// for the embedding request in flight).

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/host.hpp"
#include "vector_index.hpp"

namespace kioku::semantic {

struct EmbedPass {
  int stored = 0;     ///< Vectors written.
  int rejected = 0;   ///< Rows whose vector was refused (wrong length, zero norm, NaN).
  int failed = 0;     ///< Rows left queued because the request failed.
  int deduped = 0;    ///< New memories folded into an older near-identical one.
  bool idle = false;  ///< Nothing was due.
  std::string error;  ///< The request's error, when it failed.
};

class EmbedWorker {
 public:
  EmbedWorker(sdk::HostServices& host, MemoryVectors& vectors);
  ~EmbedWorker();

  /// Starts the thread (no-op without an embedder).
  void Start();
  /// Stops and joins the thread. Idempotent.
  void Stop();

  /// One pass on `db` (this thread's connection): up to batch_size due rows.
  EmbedPass RunOnce(SQLite::Database& db);

 private:
  void Loop();
  bool Dedup(SQLite::Database& db, std::int64_t seq, const std::vector<float>& unit);

  sdk::HostServices& host_;
  MemoryVectors& vectors_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kioku::semantic
