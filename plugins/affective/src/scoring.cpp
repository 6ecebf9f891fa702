#include "scoring.hpp"

#include <algorithm>
#include <cmath>

namespace kioku::affective {

double DecayWeight(double age_days, double half_life_days) {
  if (age_days <= 0) return 1.0;
  return std::exp2(-age_days / half_life_days);
}

double WilsonLowerBound(double successes, double n, double z) {
  if (!(n > 0)) return 0.0;
  const double p = std::clamp(successes / n, 0.0, 1.0);
  const double z2 = z * z;
  const double centre = p + z2 / (2 * n);
  const double margin = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return std::clamp((centre - margin) / (1 + z2 / n), 0.0, 1.0);
}

double ExplorationBonus(double n_tool, double n_total, double weight) {
  if (!(weight > 0) || !(n_total > 1)) return 0.0;
  return weight * std::sqrt(2 * std::log(n_total) / std::max(n_tool, 1.0));
}

void ForwardDecay::Add(std::int64_t at_ms, double n_weight, double s_weight) {
  if (n == 0 && s == 0) landmark_ms = at_ms;
  const double ahead = static_cast<double>(at_ms - landmark_ms) / half_life_ms;
  if (ahead > kRebaseHalfLives) {
    const double scale = std::exp2(-ahead);
    n *= scale;
    s *= scale;
    landmark_ms = at_ms;
    n += n_weight;
    s += s_weight;
    return;
  }
  const double w = std::exp2(ahead);
  n += n_weight * w;
  s += s_weight * w;
}

double ForwardDecay::DecayedN(std::int64_t now_ms) const {
  return n * std::exp2(-static_cast<double>(now_ms - landmark_ms) / half_life_ms);
}

double ForwardDecay::DecayedS(std::int64_t now_ms) const {
  return s * std::exp2(-static_cast<double>(now_ms - landmark_ms) / half_life_ms);
}

}  // namespace kioku::affective
