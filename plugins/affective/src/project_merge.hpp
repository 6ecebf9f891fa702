#pragma once
/// @file project_merge.hpp
/// Merging day buckets and totals stored under an old spelling of a project into the row of
/// its current key (sdk::CanonicalProjectKey). Migration 2 moved every row it could with
/// UPDATE OR IGNORE; a row whose (tool, agent, model, project[, day]) already existed under
/// the new key stayed under the old spelling, so one project had two buckets and its
/// Wilson score saw only part of its outcomes. This pass adds such a row's counters and
/// latency histogram into the new key's row and deletes it.

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/project_identity.hpp"

namespace kioku::affective {

/// Merges every affective_buckets / affective_totals row whose project_id is not its own
/// CanonicalProjectKey into the row of that key (moves it when there is none). Counters
/// add; last_at_ms takes the later; histograms merge bin by bin; forward-decay sums of the
/// same half-life are rebased onto the later landmark and added (g(t) = 2^(t/h) of Cormode
/// et al., "Forward Decay", ICDE 2009: Σ 2^((tᵢ−L₁)/h) = 2^((L₂−L₁)/h) Σ 2^((tᵢ−L₂)/h)); of
/// different half-lives, the row is marked stale (half_life_ms 0) so the start-up rebuild
/// recomputes it from the merged buckets. Runs inside the caller's transaction; throws
/// SQLite::Exception on database errors. Returns the rows merged or moved.
int MergeProjectSpellings(SQLite::Database& db, const sdk::ProjectOptions& options);

}  // namespace kioku::affective
