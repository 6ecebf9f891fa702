#pragma once
/// @file recorder.hpp
/// The single write path of the affective layer (feedback_record, automatic capture and
/// the hook all go through it) and the retention pass over raw rows.
///
/// Retention: raw outcomes older than `retention_days` are deleted; day buckets are kept,
/// so aggregates and routing keep their history. The pass runs
///   - from Plugin::Start (up to kStartPruneChunks chunks), and
///   - opportunistically after a write, at most once per hour of clock time per deployment
///     (the time of the last completed pass is kept in affective_meta so several processes
///     share it), one chunk of kPruneChunkRows rows per write. A pass that still had rows to
///     delete does not count as completed, so the next write continues it. Chunks keep each
///     write transaction short for the other processes sharing the database.

#include <atomic>
#include <cstdint>
#include <vector>

#include "kioku/sdk/host.hpp"
#include "outcome.hpp"
#include "settings.hpp"
#include "store.hpp"

namespace kioku::affective {

inline constexpr int kPruneChunkRows = 5000;
inline constexpr int kStartPruneChunks = 40;
inline constexpr std::int64_t kPruneIntervalMs = 3'600'000;
inline constexpr const char* kMetaLastPrune = "retention.last_completed_ms";

struct PruneStats {
  std::int64_t deleted = 0;
  bool completed = false;  ///< Nothing older than the cutoff is left.
  bool ran = false;        ///< False when skipped because a pass completed < 1 h ago.
};

/// Thread-safe (state is the database plus one atomic).
class Recorder {
 public:
  Recorder(sdk::HostServices& host, const Settings& settings) : host_(host), settings_(settings) {}

  /// Cuts, redacts and cleans the error text of a record as every source must:
  /// invalid UTF-8 replaced, secrets replaced by sdk::RedactSecrets (before cutting, so no
  /// half secret survives), whitespace collapsed, then cut to `error_max_bytes`.
  std::string CleanError(std::string_view error) const;

  /// Writes the records in one write transaction, then gives retention one chunk. Records
  /// with a source_id dated before the retention window are skipped (WriteStats::expired).
  WriteStats Record(const std::vector<OutcomeRecord>& records);

  /// The configured half-life in ms (the one the totals' forward decay uses).
  double HalfLifeMs() const;

  /// Recomputes decayed totals written under another half-life (see store.hpp
  /// RebuildDecay); returns how many keys changed. Run from Plugin::Start.
  std::int64_t RebuildDecayIfNeeded();

  /// Retention when due (see file comment); `max_chunks` bounds the work of this call.
  PruneStats MaybePrune(int max_chunks);

  /// Retention now, regardless of the interval.
  PruneStats Prune(int max_chunks);

 private:
  sdk::HostServices& host_;
  const Settings& settings_;
  /// Clock time before which this process need not look at affective_meta again.
  std::atomic<std::int64_t> next_check_ms_{0};
};

}  // namespace kioku::affective
