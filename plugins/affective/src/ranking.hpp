#pragma once
/// @file ranking.hpp
/// feedback_route's ranking, computed from aggregates (never from raw rows).
///
/// For each tool, over its outcomes i (filtered by agent/model/project):
///   wᵢ    = 0.5^((now − tᵢ) / half_life)
///   n_eff = Σ wᵢ
///   s_eff = Σ wᵢ · creditᵢ          credit: success 1, partial ½, otherwise 0
///   decayed_rate = s_eff / n_eff
///   wilson_lower = WilsonLowerBound(s_eff, n_eff, z)            (scoring.hpp)
///   score = wilson_lower + (explore ? ExplorationBonus(n_eff, Σ n_eff, weight) : 0)
///   confident = n_eff >= min_samples
/// Two ways to get n_eff and s_eff:
///  - half_life equal to the configured one (the usual call): from the forward-decay
///    accumulators of affective_totals (scoring.hpp ForwardDecay) — exact per-outcome
///    weights, one row per (tool, agent, model, project) key.
///  - any other half_life: from day buckets, every outcome of a bucket weighted at the
///    bucket's mean time. All of a bucket's outcomes lie within one day of that mean, so each
///    weight is off by at most a factor 2^(±1/half_life) (±5.1 % at 14 days); outcomes
///    recorded at one instant are exact. Cost grows with days × keys.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "store.hpp"

namespace kioku::affective {

struct RouteParams {
  Filter filter;  ///< tools / tool_prefix / agent / model / project
  double half_life_days = 14;
  double min_samples = 10;
  double z = 1.96;
  double explore_weight = 0;  ///< 0 = no exploration bonus
  std::int64_t now_ms = 0;
};

struct RouteEntry {
  std::string tool;
  double score = 0;
  double wilson_lower = 0;
  double explore_bonus = 0;
  double n_effective = 0;
  std::optional<double> decayed_rate;  ///< nullopt when n_effective == 0
  bool confident = false;
  std::int64_t n = 0;                  ///< All outcomes ever recorded (matching the filter).
  std::optional<std::int64_t> last_at_ms;
  bool from_buckets = false;           ///< True when the day-bucket path was used.
};

/// Ranks the tools named in `params.filter.tools` (all of them, tried or not) or, when that
/// list is empty, every tool with outcomes. Sorted by score desc, then n_effective desc,
/// then name.
std::vector<RouteEntry> RankTools(SQLite::Database& db, const RouteParams& params);

}  // namespace kioku::affective
