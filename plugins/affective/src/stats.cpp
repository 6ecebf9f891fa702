#include "stats.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "kioku/sdk/clock.hpp"
#include "latency_histogram.hpp"

namespace kioku::affective {
namespace {

constexpr std::int64_t kMinI64 = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();

using GroupKey = std::tuple<std::string, std::string, std::string, std::string>;

struct Segment {
  std::int64_t from_ms, to_ms;
};

}  // namespace

StatsResult QueryStats(SQLite::Database& db, const StatsParams& p) {
  StatsResult result;
  const std::int64_t day_ms = sdk::kMsPerDay;
  auto key_of = [&](const std::string& tool, const std::string& agent, const std::string& model,
                    const std::string& project) {
    return GroupKey{tool, p.by_agent ? agent : "", p.by_model ? model : "",
                    p.by_project ? project : ""};
  };
  std::map<GroupKey, Counters> groups;

  // Whole days from buckets, partial edge days from raw rows.
  std::int64_t first_day = kMinI64;
  std::int64_t last_day = kMaxI64;
  std::vector<Segment> raw_segments;
  if (p.since_ms) first_day = DayOf(*p.since_ms) + (*p.since_ms % day_ms != 0 ? 1 : 0);
  if (p.until_ms) last_day = DayOf(*p.until_ms) - 1;
  const std::int64_t since = p.since_ms.value_or(kMinI64);
  const std::int64_t until = p.until_ms.value_or(kMaxI64);
  if (since < until) {
    const bool left_edge = p.since_ms && *p.since_ms % day_ms != 0;
    const bool right_edge = p.until_ms && *p.until_ms % day_ms != 0;
    if (left_edge && right_edge && DayOf(since) == DayOf(until)) {
      raw_segments.push_back({since, until});
    } else {
      if (left_edge) raw_segments.push_back({since, std::min(until, (DayOf(since) + 1) * day_ms)});
      if (right_edge) raw_segments.push_back({std::max(since, DayOf(until) * day_ms), until});
    }
  } else {
    first_day = 1;  // empty window
    last_day = 0;
  }

  const std::int64_t raw_cutoff = p.now_ms - static_cast<std::int64_t>(p.retention_days) * day_ms;
  std::vector<std::int64_t> fallback_days;
  std::vector<Segment> exact_segments;
  for (const auto& s : raw_segments) {
    if (s.from_ms >= raw_cutoff) {
      exact_segments.push_back(s);
    } else {
      fallback_days.push_back(DayOf(s.from_ms));
      result.day_granularity = true;
    }
  }

  auto read_days = [&](std::int64_t from_day, std::int64_t to_day) {
    if (from_day > to_day) return;
    ForEachBucket(db, p.filter, from_day, to_day, /*with_latency=*/true, [&](const BucketRow& b) {
      groups[key_of(b.tool, b.agent_id, b.model, b.project_id)].Merge(b.c);
    });
  };
  if (!p.since_ms && !p.until_ms) {
    // No window: the all-time totals hold exactly what every bucket would add up to.
    ForEachTotal(db, p.filter, /*with_latency=*/true, [&](const TotalsRow& t) {
      groups[key_of(t.tool, t.agent_id, t.model, t.project_id)].Merge(t.c);
    });
  } else {
    read_days(first_day, last_day);
  }
  std::sort(fallback_days.begin(), fallback_days.end());
  fallback_days.erase(std::unique(fallback_days.begin(), fallback_days.end()), fallback_days.end());
  for (auto d : fallback_days) read_days(d, d);
  for (const auto& seg : exact_segments) {
    ForEachRawOutcome(db, p.filter, seg.from_ms, seg.to_ms, [&](const OutcomeRecord& r) {
      groups[key_of(r.tool, r.agent_id, r.model, r.project_id)].Add(r);
    });
  }

  for (auto& [key, a] : groups) {
    if (a.n == 0) continue;
    ToolStats t;
    std::tie(t.tool, t.agent_id, t.model, t.project_id) = key;
    t.counts = a.counts;
    t.n = a.n;
    t.success_rate = a.SuccessCredit() / static_cast<double>(a.n);
    t.latency_p50_ms = a.latency.Quantile(0.50);
    t.latency_p95_ms = a.latency.Quantile(0.95);
    if (a.latency_n > 0) t.latency_mean_ms = a.latency_sum_ms / static_cast<double>(a.latency_n);
    if (a.confidence_n > 0) {
      t.avg_confidence = a.confidence_sum / static_cast<double>(a.confidence_n);
    }
    t.last_at_ms = a.last_at_ms;
    result.rows.push_back(std::move(t));
  }
  result.total_groups = result.rows.size();
  std::sort(result.rows.begin(), result.rows.end(), [](const ToolStats& x, const ToolStats& y) {
    if (x.n != y.n) return x.n > y.n;
    return std::tie(x.tool, x.agent_id, x.model, x.project_id) <
           std::tie(y.tool, y.agent_id, y.model, y.project_id);
  });
  if (result.rows.size() > static_cast<std::size_t>(std::max(p.limit, 0))) {
    result.rows.resize(static_cast<std::size_t>(std::max(p.limit, 0)));
  }

  for (auto& t : result.rows) {
    Filter f = p.filter;
    f.tools = {t.tool};
    f.tool_prefix.clear();
    if (p.by_agent) f.agent_id = t.agent_id;
    if (p.by_model) f.model = t.model;
    if (p.by_project) f.project_id = t.project_id;
    t.recent_failures = RecentFailures(db, f, since, until, p.recent_failures);
  }
  return result;
}

}  // namespace kioku::affective
