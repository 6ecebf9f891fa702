#pragma once
/// @file schema.hpp
/// Tables of the affective layer and their migrations.
///
/// affective_outcomes      raw outcomes, one row per recorded call; pruned after
///                         `retention_days` (see retention in recorder.hpp).
/// affective_buckets       per (tool, agent, model, project, UTC day) counters, updated in
///                         the same transaction as each raw insert and never pruned, so
///                         feedback_query / feedback_route read buckets, not raw rows.
/// affective_latency_bins  per bucket, the non-empty bins of its latency histogram
///                         (latency_histogram.hpp).
/// affective_meta          small key/value state (last retention pass).

#include <vector>

#include "kioku/sdk/plugin.hpp"

namespace kioku::affective {

std::vector<sdk::Migration> AffectiveMigrations();

}  // namespace kioku::affective
