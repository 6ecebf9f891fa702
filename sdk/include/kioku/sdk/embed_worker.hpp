#pragma once
/// @file embed_worker.hpp
/// A layer's background embed worker: takes due rows from its queue (vector_tables.hpp),
/// embeds their text in batches of VectorSettings::batch_size, refuses any vector of the
/// wrong length, zero norm or NaN (CheckVector: the row stays queued with backoff), and
/// stores unit vectors under the embedder's model; the first vector fixes the store's
/// model and dimension. Writes never wait for it.
///
/// Backoff: a failed row is retried at now + min(1 h, 5 s · 2^attempts) (host clock). An
/// open circuit (EmbedResult::circuit_open) is not the rows' fault: they stay due,
/// untouched. The thread starts `start_delay_ms` after Start, runs passes while they make
/// progress, waits `poll_ms` when idle or after a failure, and Stop joins it (waiting at
/// most for the request in flight). A database error in a pass is logged; the next retries.
/// Failing requests are logged as EmbedFailureReport decides (a warning when embedding
/// starts failing, a note when it works again).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/layer_vectors.hpp"

namespace kioku::sdk {

struct EmbedPass {
  int stored = 0;     ///< Vectors written.
  int rejected = 0;   ///< Rows whose vector was refused (wrong length, zero norm, NaN).
  int failed = 0;     ///< Rows left queued because the request failed.
  int folded = 0;     ///< Rows the layer's hook folded into another (semantic dedup).
  bool idle = false;  ///< Nothing was due.
  std::string error;  ///< The request's error, when it failed.
};

/// What a layer's background worker logs about its passes, so a server whose endpoint fails
/// (a wrong key, a dead host) says so instead of falling back to text search in silence:
/// a warning when a pass fails after passes that worked (or at the first), again each
/// `kRepeatMs` (1 h) while it keeps failing (not per pass: an open circuit's error counts
/// down its seconds), and a note when a pass stores vectors again. Deciding only; the
/// worker logs.
class EmbedFailureReport {
 public:
  static constexpr std::int64_t kRepeatMs = 3'600'000;
  struct Line {
    LogLevel level;
    std::string text;
  };
  /// The line to log after `pass` at `now_ms` (host clock), if any; `items` names the
  /// layer's rows ("memories").
  std::optional<Line> After(const EmbedPass& pass, std::int64_t now_ms, const std::string& items);

 private:
  bool failing_ = false;  ///< the last pass with a request failed
  std::int64_t warned_at_ = 0;
};

/// Called inside the write transaction right after a row's FIRST vector (not a re-embed)
/// of the store's model is stored, with the row key and its unit vector. Returns true when
/// it folded the row into another (counted in EmbedPass::folded).
using FirstVectorHook = std::function<bool(SQLite::Database& db, std::int64_t seq, const std::vector<float>& unit)>;

class EmbedWorker {
 public:
  /// `host` and `vectors` outlive the worker.
  EmbedWorker(HostServices& host, LayerVectors& vectors, FirstVectorHook on_first = {});
  ~EmbedWorker();
  EmbedWorker(const EmbedWorker&) = delete;
  EmbedWorker& operator=(const EmbedWorker&) = delete;

  /// Starts the thread (no-op without an embedder or when running).
  void Start();
  /// Stops and joins the thread. Idempotent.
  void Stop();

  /// One pass on `db` (this thread's connection): up to batch_size due rows. The first
  /// pass (or Start) turns queueing on (VectorStore::StartQueueing).
  EmbedPass RunOnce(SQLite::Database& db);

 private:
  void Loop();
  void EnsureQueueing(SQLite::Database& db);

  HostServices& host_;
  LayerVectors& vectors_;
  FirstVectorHook on_first_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<bool> queueing_{false};
  EmbedFailureReport report_;  ///< used by the worker thread only
  std::thread thread_;
};

/// `kioku embed` for one layer, the part every layer shares (`args` after "embed"):
///   (none)    runs passes until nothing is due or the endpoint fails: "embedded N[, refused
///             M invalid vectors][, folded K near-duplicates]; Q still queued";
///   --all     makes the configured model the store's model (probing the dimension when the
///             config does not state it), queues every row, then drains as above;
///   --status  embedder, store model, vector and queue counts, and what search will do;
///   --calibrate [N]  RunCalibrateCommand on N (default 200, clamped to 10..5000) rows.
/// Every line starts with `label` ("" or e.g. "procedures: "). Returns the exit code: 0,
/// 1 (no embedder, endpoint failure, refused vectors), 2 (unknown argument, N not a number).
int RunEmbedCommand(HostServices& host, LayerVectors& vectors, EmbedWorker& worker, const std::string& label,
                    const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `kioku embed --calibrate` for one layer: LayerVectors::Calibrate on up to `sample` rows,
/// printed as three lines (cosines, three decimals; `<prefix>` = VectorTables::prefix):
///   on-topic  (<n>): p10 <x>  p50 <x>  p90 <x>
///   off-topic (<n>): p50 <x>  p90 <x>  p95 <x>
///   suggested <prefix>.vectors.min_score: <x> (now <current>)[; the distributions overlap: ...]
/// With fewer than kMinCalibrationRows embedded rows, one line "embed --calibrate: needs at
/// least 10 embedded <items>, found <n>" and exit 0 (not a fault: the CLI runs every
/// layer's command, and the others still report). Exit 1 with one line on `err` for no
/// embedder, another model's vectors or an endpoint failure.
int RunCalibrateCommand(LayerVectors& vectors, SQLite::Database& db, const std::string& label, int sample,
                        std::ostream& out, std::ostream& err);

/// The one command name several plugins may register (each layer with vectors adds its
/// own `kioku embed`); the CLI runs them all, in registration order, and exits with the
/// highest code.
inline constexpr const char* kEmbedCommandName = "embed";

/// The CommandSpec of a layer's `kioku embed` (kEmbedCommandName) running RunEmbedCommand
/// with "<items>: " labels.
CommandSpec EmbedCommandSpec(HostServices& host, LayerVectors& vectors, EmbedWorker& worker);

}  // namespace kioku::sdk
