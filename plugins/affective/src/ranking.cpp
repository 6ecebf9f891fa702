#include "ranking.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "kioku/sdk/clock.hpp"
#include "scoring.hpp"

namespace kioku::affective {
namespace {

struct Acc {
  double n_eff = 0;
  double s_eff = 0;
  std::int64_t n = 0;
  std::int64_t last_at = 0;
};

void AddCounts(Acc& a, std::int64_t n, std::int64_t last_at) {
  if (n <= 0) return;
  a.last_at = a.n == 0 ? last_at : std::max(a.last_at, last_at);
  a.n += n;
}

// Fast path: forward-decay totals. Returns false (and leaves `acc` untouched) when some
// matching total was written under another half-life.
bool FromTotals(SQLite::Database& db, const RouteParams& p,
                std::unordered_map<std::string, Acc>& acc) {
  const double half_life_ms =
      static_cast<double>(std::llround(p.half_life_days * static_cast<double>(sdk::kMsPerDay)));
  std::unordered_map<std::string, Acc> out;
  bool usable = true;
  ForEachTotal(db, p.filter, /*with_latency=*/false, [&](const TotalsRow& t) {
    if (t.decay.half_life_ms != half_life_ms) usable = false;
    if (!usable) return;
    auto& a = out[t.tool];
    a.n_eff += t.decay.DecayedN(p.now_ms);
    a.s_eff += t.decay.DecayedS(p.now_ms);
    AddCounts(a, t.c.n, t.c.last_at_ms);
  });
  if (!usable) return false;
  for (auto& [tool, a] : out) acc[tool] = a;
  return true;
}

void FromBuckets(SQLite::Database& db, const RouteParams& p,
                 std::unordered_map<std::string, Acc>& acc) {
  const double day_ms = static_cast<double>(sdk::kMsPerDay);
  ForEachBucket(db, p.filter, std::numeric_limits<std::int64_t>::min(),
                std::numeric_limits<std::int64_t>::max(), /*with_latency=*/false,
                [&](const BucketRow& b) {
                  const double age_days = (static_cast<double>(p.now_ms) - b.MeanAtMs()) / day_ms;
                  const double w = DecayWeight(age_days, p.half_life_days);
                  auto& a = acc[b.tool];
                  a.n_eff += w * static_cast<double>(b.c.n);
                  a.s_eff += w * b.c.SuccessCredit();
                  AddCounts(a, b.c.n, b.c.last_at_ms);
                });
}

}  // namespace

std::vector<RouteEntry> RankTools(SQLite::Database& db, const RouteParams& params) {
  std::unordered_map<std::string, Acc> acc;
  for (const auto& t : params.filter.tools) acc.try_emplace(t);
  const bool from_buckets = !FromTotals(db, params, acc);
  if (from_buckets) FromBuckets(db, params, acc);

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
    e.confident = a.n_eff > 0 && a.n_eff >= params.min_samples;
    if (a.n > 0) e.last_at_ms = a.last_at;
    e.from_buckets = from_buckets;
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
