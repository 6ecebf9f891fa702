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

#include "outcome.hpp"

namespace kioku::affective {

/// UTC day number of a Unix ms time (floor division, so times before 1970 work too).
std::int64_t DayOf(std::int64_t at_ms);

struct WriteStats {
  std::int64_t inserted = 0;
  std::int64_t duplicates = 0;  ///< Skipped: their source_id was already stored.
  /// Skipped by Recorder::Record: they carry a source_id but are older than the retention
  /// window, where the raw row that deduplicates them may already be gone.
  std::int64_t expired = 0;
};

/// Inserts `records` (already validated and normalized) into affective_outcomes and folds
/// every inserted one into its (tool, agent, model, project, day) bucket and latency bins.
/// Records whose non-empty source_id is already stored are skipped (idempotent re-ingest).
/// Buckets are upserted once per distinct key of the batch. Must run inside a write
/// transaction so raw rows and buckets never disagree.
WriteStats WriteOutcomes(SQLite::Database& db, const std::vector<OutcomeRecord>& records);

/// Which rows a read covers. Empty/nullopt fields do not filter. `tools` (exact names) and
/// `tool_prefix` combine with AND.
struct Filter {
  std::vector<std::string> tools;
  std::string tool_prefix;
  std::optional<std::string> agent_id;
  std::optional<std::string> model;
  std::optional<std::string> project_id;
};

/// One row of affective_buckets.
struct BucketRow {
  std::int64_t id = 0;
  std::string tool, agent_id, model, project_id;
  std::int64_t day = 0;
  std::array<std::int64_t, kOutcomeKinds> counts{};  ///< Indexed by OutcomeKind.
  std::int64_t n = 0;
  std::int64_t offset_sum_ms = 0;  ///< Σ (at_ms − day start) over the bucket's rows.
  std::int64_t last_at_ms = 0;
  std::int64_t latency_n = 0;
  double latency_sum_ms = 0;
  std::int64_t confidence_n = 0;
  double confidence_sum = 0;

  /// Mean time of the bucket's outcomes (Unix ms): day start + offset_sum / n.
  double MeanAtMs() const;
};

/// Calls `fn` for every bucket matching `filter` with min_day <= day <= max_day.
void ForEachBucket(SQLite::Database& db, const Filter& filter, std::int64_t min_day,
                   std::int64_t max_day, const std::function<void(const BucketRow&)>& fn);

/// Calls `fn(bucket_key_row, bin, count)` for every latency bin of the buckets
/// ForEachBucket would visit; only the key fields (tool/agent/model/project/day) of the
/// row are filled.
void ForEachBucketLatencyBin(
    SQLite::Database& db, const Filter& filter, std::int64_t min_day, std::int64_t max_day,
    const std::function<void(const BucketRow&, int bin, std::int64_t count)>& fn);

/// Calls `fn` for every raw outcome matching `filter` with from_ms <= at_ms < to_ms.
void ForEachRawOutcome(SQLite::Database& db, const Filter& filter, std::int64_t from_ms,
                       std::int64_t to_ms, const std::function<void(const OutcomeRecord&)>& fn);

/// The newest non-success raw outcomes matching `filter` in [from_ms, to_ms), newest first.
std::vector<OutcomeRecord> RecentFailures(SQLite::Database& db, const Filter& filter,
                                          std::int64_t from_ms, std::int64_t to_ms, int limit);

/// Deletes up to `limit` raw outcomes with at_ms < cutoff_ms (oldest first); returns how
/// many. Buckets are untouched.
std::int64_t DeleteRawBefore(SQLite::Database& db, std::int64_t cutoff_ms, int limit);

std::int64_t CountRawOutcomes(SQLite::Database& db);

std::optional<std::int64_t> ReadMeta(SQLite::Database& db, const std::string& key);
void WriteMeta(SQLite::Database& db, const std::string& key, std::int64_t value);

}  // namespace kioku::affective
