#pragma once
/// @file schema.hpp
/// Tables of the affective layer and their migrations.
///
/// affective_outcomes      raw outcomes, one row per recorded call; pruned after
///                         `retention_days` (see retention in recorder.hpp).
/// affective_buckets       per (tool, agent, model, project, UTC day): counters and a
///                         latency histogram (BLOB, latency_histogram.hpp). Read by
///                         feedback_query for a time window and by feedback_route for a
///                         non-default half-life.
/// affective_totals        per (tool, agent, model, project): all-time counters and
///                         histogram, plus forward-decay accumulators for the configured
///                         half-life (ranking.hpp). Read by feedback_query without a window
///                         and by feedback_route with the default half-life.
/// affective_meta          small key/value state (last retention pass).
/// Buckets and totals are updated in the same transaction as each raw insert and are never
/// pruned, so no read scans raw rows except the partial edge days of a query window and
/// the few recent failures it lists.

#include <vector>

#include "kioku/sdk/column_renames.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/project_identity.hpp"

namespace kioku::affective {

/// v2 rewrites old project-key spellings with `projects` (HostServices::Projects()); v3
/// merges the buckets and totals v2 had to leave under an old spelling (project_merge.hpp).
std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects = {});

/// Migration 4: time columns named `<event>_at` like every layer's (they were `*_ms`);
/// the same list lets an older export import (ExporterSpec::renamed_columns).
const sdk::ColumnRenames& TimeColumnRenames();

}  // namespace kioku::affective
