#pragma once
/// @file stats.hpp
/// feedback_query's aggregates, computed from day buckets.
///
/// No window: read from the all-time totals (one row per tool/agent/model/project).
/// Time window [since, until): whole UTC days inside it are read from buckets; the partial
/// days at its edges are read from raw rows, so the window is exact — unless an edge day
/// is older than the retention window, whose raw rows may be gone: then that whole day's
/// bucket is used and the result says `day_granularity: true`.
/// Latency percentiles come from the buckets' log-scale histograms (±9.05 %, see
/// latency_histogram.hpp). success_rate = (success + ½ · partial) / n, like the routing score.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "outcome.hpp"
#include "store.hpp"

namespace kioku::affective {

struct StatsParams {
  Filter filter;
  std::optional<std::int64_t> since_ms;  ///< inclusive
  std::optional<std::int64_t> until_ms;  ///< exclusive
  bool by_agent = false;
  bool by_model = false;
  bool by_project = false;
  int recent_failures = 5;
  int limit = 50;
  std::int64_t now_ms = 0;
  int retention_days = 90;
};

struct ToolStats {
  std::string tool;
  std::string agent_id, model, project_id;  ///< Set only for the grouped dimensions.
  std::array<std::int64_t, kOutcomeKinds> counts{};
  std::int64_t n = 0;
  double success_rate = 0;
  std::optional<double> latency_p50_ms, latency_p95_ms, latency_mean_ms;
  std::optional<double> avg_confidence;
  std::int64_t last_at_ms = 0;
  std::vector<OutcomeRecord> recent_failures;  ///< Newest first; from raw rows.
};

struct StatsResult {
  std::vector<ToolStats> rows;  ///< Sorted by n desc, then tool; at most `limit`.
  std::size_t total_groups = 0;
  bool day_granularity = false;
};

StatsResult QueryStats(SQLite::Database& db, const StatsParams& params);

}  // namespace kioku::affective
