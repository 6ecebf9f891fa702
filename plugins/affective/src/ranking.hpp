#pragma once
/// @file ranking.hpp
/// feedback_route's ranking, computed from day buckets (never from raw rows).
///
/// For each tool, over its buckets b (filtered by agent/model/project):
///   w_b   = 0.5^((now − t_b) / half_life)       t_b = mean time of the bucket's outcomes
///   n_eff = Σ w_b · n_b
///   s_eff = Σ w_b · (success_b + ½ · partial_b)
///   decayed_rate = s_eff / n_eff
///   wilson_lower = WilsonLowerBound(s_eff, n_eff, z)            (scoring.hpp)
///   score = wilson_lower + (explore ? ExplorationBonus(n_eff, Σ n_eff, weight) : 0)
///   confident = n_eff >= min_samples
/// Day granularity: every outcome of a bucket gets the weight of the bucket's mean time.
/// All of a bucket's outcomes lie within one day of that mean, so each weight is off by at
/// most a factor 2^(±1/half_life) (±5.1 % at the default 14 days); equal-time outcomes are
/// exact. Buckets older than kHorizonHalfLives half-lives (weight < 1e-9) are not read.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "store.hpp"

namespace kioku::affective {

inline constexpr double kHorizonHalfLives = 30;

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
  std::int64_t n = 0;                  ///< Raw outcomes within the horizon.
  std::optional<std::int64_t> last_at_ms;
};

/// Ranks the tools named in `params.filter.tools` (all of them, tried or not) or, when that
/// list is empty, every tool with outcomes. Sorted by score desc, then n_effective desc,
/// then name.
std::vector<RouteEntry> RankTools(SQLite::Database& db, const RouteParams& params);

}  // namespace kioku::affective
