#include "ranking.hpp"

#include <algorithm>
#include <cmath>

#include "kioku/sdk/clock.hpp"

namespace kioku::semantic {

double Retrievability(double elapsed_days, double half_life_days, double c) {
  if (elapsed_days <= 0) return 1.0;
  if (half_life_days <= 0) return 0.0;
  // Solve (1 + F·h/S)^c = 0.5 for S, then evaluate at t.
  const double stability = kFsrsFactor * half_life_days / (std::pow(0.5, 1.0 / c) - 1.0);
  return std::pow(1.0 + kFsrsFactor * elapsed_days / stability, c);
}

ScoreParts ScoreMemory(const Memory& m, const std::string& status, double rrf,
                       std::int64_t now_ms, const MultiplierSettings& s) {
  return Score(ScoreInput{m.kind, m.importance, m.confidence, m.updated_at, m.recall_count,
                          m.reaffirm_count},
               status, rrf, now_ms, s);
}

ScoreParts Score(const ScoreInput& m, const std::string& status, double rrf,
                 std::int64_t now_ms, const MultiplierSettings& s) {
  ScoreParts p;
  p.rrf = rrf;
  if (status != "pinned") {
    const double days =
        static_cast<double>(std::max<std::int64_t>(0, now_ms - m.updated_at)) / sdk::kMsPerDay;
    const auto it = s.half_life_days.find(m.kind);
    const double half_life = it != s.half_life_days.end() ? it->second : 90.0;
    p.decay = s.decay_floor + (1.0 - s.decay_floor) * Retrievability(days, half_life, s.decay_exponent);
  }
  p.importance = 1.0 + s.importance_weight * (m.importance - 5) / 5.0;
  p.strength = m.usage_counts
                   ? 1.0 + s.strength_weight * std::log1p(m.recall_count + m.reaffirm_count)
                   : 1.0;
  const auto t = s.trust.find(status);
  p.trust = (t != s.trust.end() ? t->second : 1.0) * (0.5 + 0.5 * std::clamp(m.confidence, 0.0, 1.0));
  p.total = p.rrf * p.decay * p.importance * p.strength * p.trust;
  return p;
}

}  // namespace kioku::semantic
