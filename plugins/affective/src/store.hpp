#pragma once
/// @file store.hpp
/// Reads and writes of the affective tables (schema.hpp). Functions take the calling
/// thread's connection; writers expect to run inside sdk::WithWriteTransaction.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "latency_histogram.hpp"
#include "outcome.hpp"
#include "scoring.hpp"

namespace kioku::affective {

/// UTC day number of a Unix ms time (floor division, so times before 1970 work too).
std::int64_t DayOf(std::int64_t at_ms);

/// Outcome counters kept per bucket and per all-time total.
struct Counters {
  std::array<std::int64_t, kOutcomeKinds> counts{};  ///< Indexed by OutcomeKind.
  std::int64_t n = 0;
  std::int64_t last_at_ms = 0;
  std::int64_t latency_n = 0;
  double latency_sum_ms = 0;
  std::int64_t confidence_n = 0;
  double confidence_sum = 0;
  LatencyHistogram latency;

  void Add(const OutcomeRecord& r);
  void Merge(const Counters& other);
  std::int64_t Count(OutcomeKind k) const { return counts[static_cast<std::size_t>(k)]; }
  /// success + ½ · partial
  double SuccessCredit() const;
};

struct WriteStats {
  std::int64_t inserted = 0;
  std::int64_t duplicates = 0;  ///< Skipped: their source_id was already stored.
  /// Skipped by Recorder::Record: they carry a source_id but are older than the retention
  /// window, where the raw row that deduplicates them may already be gone.
  std::int64_t expired = 0;
};

/// Inserts `records` (already validated and normalized) into affective_outcomes and folds
/// every inserted one into its day bucket and its all-time total (whose forward-decay
/// accumulators use `half_life_ms`). Records whose non-empty source_id is already stored
/// are skipped (idempotent re-ingest). Each distinct bucket/total key of the batch is read
/// and written once. Must run inside a write transaction so raw rows, buckets and totals
/// never disagree.
WriteStats WriteOutcomes(SQLite::Database& db, const std::vector<OutcomeRecord>& records,
                         double half_life_ms);

/// Folds `into_buckets` into their day buckets and `into_totals` into their all-time totals
/// (rows already in affective_outcomes), as WriteOutcomes does for the rows it inserts:
/// counters add, last_at_ms takes the later, histograms merge, forward-decay sums grow.
/// Inside a write transaction.
void FoldOutcomes(SQLite::Database& db, const std::vector<OutcomeRecord>& into_buckets,
                  const std::vector<OutcomeRecord>& into_totals, double half_life_ms);

/// Merge import of aggregates (`kioku import` into a database that has stats of its own).
/// The rule, per table:
///   - affective_outcomes (events): copied; a row already here is skipped (export.hpp);
///   - affective_buckets / affective_totals: a key new to this database takes the file's
///     row as it is (it counts the file's outcomes, also those its source has pruned); a key
///     this database already has keeps its row and gains the outcomes the import added
///     (recomputed from the imported event rows, so a second import of the same file adds
///     nothing). Counts the file's row holds beyond its raw outcomes (pruned at the source)
///     are not added: they cannot be told apart from outcomes both databases share;
///   - affective_meta (housekeeping times of this database): kept.
/// BeginImportBaseline records which outcomes, buckets and totals exist (TEMP tables, on
/// this connection); FoldImportedOutcomes, after the rows are in, folds every outcome not
/// in the baseline into the baseline's buckets and totals, drops the TEMP tables and returns
/// how many outcomes it folded. Both run inside the import's write transaction.
void BeginImportBaseline(SQLite::Database& db);
std::int64_t FoldImportedOutcomes(SQLite::Database& db, double half_life_ms);

/// True when some totals were written under another half-life (RebuildDecay has work);
/// a read, so start-up takes no write lock when nothing changed.
bool DecayStale(SQLite::Database& db, double half_life_ms);

/// Recomputes the forward-decay accumulators of every total whose half-life is not
/// `half_life_ms` from its day buckets (each bucket's outcomes placed at the bucket's mean
/// time). Used when the configured half-life changes. Returns how many totals changed.
std::int64_t RebuildDecay(SQLite::Database& db, double half_life_ms);

/// Which rows a read covers. Empty/nullopt fields do not filter. `tools` (exact names) and
/// `tool_prefix` combine with AND.
struct Filter {
  std::vector<std::string> tools;
  std::string tool_prefix;
  std::optional<std::string> agent_id;
  std::optional<std::string> model;
  std::optional<std::string> project_id;
};

struct KeyFields {
  std::string tool, agent_id, model, project_id;
};

/// One row of affective_buckets.
struct BucketRow : KeyFields {
  std::int64_t day = 0;
  std::int64_t offset_sum_ms = 0;  ///< Σ (at_ms − day start) over the bucket's outcomes.
  Counters c;
  /// Mean time of the bucket's outcomes (Unix ms): day start + offset_sum / n.
  double MeanAtMs() const;
};

/// One row of affective_totals.
struct TotalsRow : KeyFields {
  Counters c;
  ForwardDecay decay;
};

/// Calls `fn` for every bucket matching `filter` with min_day <= day <= max_day. The
/// latency histogram is decoded only when `with_latency`.
void ForEachBucket(SQLite::Database& db, const Filter& filter, std::int64_t min_day,
                   std::int64_t max_day, bool with_latency,
                   const std::function<void(const BucketRow&)>& fn);

/// Calls `fn` for every all-time total matching `filter`.
void ForEachTotal(SQLite::Database& db, const Filter& filter, bool with_latency,
                  const std::function<void(const TotalsRow&)>& fn);

/// Calls `fn` for every raw outcome matching `filter` with from_ms <= at_ms < to_ms.
void ForEachRawOutcome(SQLite::Database& db, const Filter& filter, std::int64_t from_ms,
                       std::int64_t to_ms, const std::function<void(const OutcomeRecord&)>& fn);

/// The newest non-success raw outcomes matching `filter` in [from_ms, to_ms), newest first.
std::vector<OutcomeRecord> RecentFailures(SQLite::Database& db, const Filter& filter,
                                          std::int64_t from_ms, std::int64_t to_ms, int limit);

/// Deletes up to `limit` raw outcomes with at_ms < cutoff_ms (oldest first); returns how
/// many. Buckets and totals are untouched.
std::int64_t DeleteRawBefore(SQLite::Database& db, std::int64_t cutoff_ms, int limit);

std::optional<std::int64_t> ReadMeta(SQLite::Database& db, const std::string& key);
void WriteMeta(SQLite::Database& db, const std::string& key, std::int64_t value);

}  // namespace kioku::affective
