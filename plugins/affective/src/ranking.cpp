#include "ranking.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "kioku/sdk/clock.hpp"
#include "scoring.hpp"

namespace kioku::affective {

std::vector<RouteEntry> RankTools(SQLite::Database& db, const RouteParams& params) {
  struct Acc {
    double n_eff = 0;
    double s_eff = 0;
    std::int64_t n = 0;
    std::int64_t last_at = std::numeric_limits<std::int64_t>::min();
  };
  std::unordered_map<std::string, Acc> acc;
  for (const auto& t : params.filter.tools) acc.try_emplace(t);

  const double day_ms = static_cast<double>(sdk::kMsPerDay);
  const double horizon_ms = kHorizonHalfLives * params.half_life_days * day_ms;
  const std::int64_t min_day =
      DayOf(params.now_ms - static_cast<std::int64_t>(std::min(horizon_ms, 9.0e15)));
  ForEachBucket(db, params.filter, min_day, std::numeric_limits<std::int64_t>::max(),
                [&](const BucketRow& b) {
                  const double age_days = (static_cast<double>(params.now_ms) - b.MeanAtMs()) / day_ms;
                  const double w = DecayWeight(age_days, params.half_life_days);
                  auto& a = acc[b.tool];
                  const auto success = b.counts[static_cast<std::size_t>(OutcomeKind::kSuccess)];
                  const auto partial = b.counts[static_cast<std::size_t>(OutcomeKind::kPartial)];
                  a.n_eff += w * static_cast<double>(b.n);
                  a.s_eff += w * (static_cast<double>(success) + 0.5 * static_cast<double>(partial));
                  a.n += b.n;
                  a.last_at = std::max(a.last_at, b.last_at_ms);
                });

  double n_total = 0;
  for (const auto& [tool, a] : acc) n_total += a.n_eff;

  std::vector<RouteEntry> out;
  out.reserve(acc.size());
  for (const auto& [tool, a] : acc) {
    RouteEntry e;
    e.tool = tool;
    e.n_effective = a.n_eff;
    e.n = a.n;
    if (a.n_eff > 0) e.decayed_rate = std::clamp(a.s_eff / a.n_eff, 0.0, 1.0);
    e.wilson_lower = WilsonLowerBound(a.s_eff, a.n_eff, params.z);
    e.explore_bonus = ExplorationBonus(a.n_eff, n_total, params.explore_weight);
    e.score = e.wilson_lower + e.explore_bonus;
    e.confident = a.n_eff >= params.min_samples && a.n_eff > 0;
    if (a.n > 0) e.last_at_ms = a.last_at;
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const RouteEntry& x, const RouteEntry& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.n_effective != y.n_effective) return x.n_effective > y.n_effective;
    return x.tool < y.tool;
  });
  return out;
}

}  // namespace kioku::affective
