#pragma once
/// @file scoring.hpp
/// The math behind feedback_route. Pure functions, no I/O.

#include <cstdint>

namespace kioku::affective {

/// Recency weight of an outcome `age_days` old: 0.5^(age_days / half_life_days)
/// (exponential decay with the given half-life). Negative ages (clock skew) weigh 1.
/// Requires half_life_days > 0.
double DecayWeight(double age_days, double half_life_days);

/// Lower end of the Wilson score interval (E. B. Wilson, "Probable inference, the law of
/// succession, and statistical inference", JASA 22, 1927) for `successes` out of `n`
/// trials at normal quantile `z`:
///   p̂ = s/n;  (p̂ + z²/2n − z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
/// Agresti & Coull ("Approximate is better than 'exact' for interval estimation of binomial
/// proportions", The American Statistician 52, 1998) show this interval keeps close to its
/// nominal coverage for small n and p̂ near 0 or 1, unlike the Wald interval — which is why
/// a single lucky success cannot outrank a long good record. Counts may be fractional
/// (recency-weighted, partial = ½). Returns 0 when n <= 0; result clamped to [0, 1].
double WilsonLowerBound(double successes, double n, double z);

/// UCB1-style exploration bonus (Auer, Cesa-Bianchi & Fischer, "Finite-time analysis of the
/// multiarmed bandit problem", Machine Learning 47, 2002): weight · sqrt(2 ln N / n_i),
/// with N = total effective trials over the candidates and n_i this tool's effective trials
/// floored at 1 (an untried tool counts as one trial so its bonus is finite but the
/// largest). 0 when weight <= 0 or N <= 1.
double ExplorationBonus(double n_tool, double n_total, double weight);

/// Exponential decay kept incrementally by forward decay (Cormode, Shkapenyuk, Srivastava &
/// Xu, "Forward decay: a practical time decay model for streaming systems", ICDE 2009) with
/// g(x) = 2^(x / h): the accumulators hold N = Σ nᵢ·2^((tᵢ − L)/h) and S = Σ sᵢ·2^((tᵢ − L)/h)
/// for a landmark time L, so at any time `now`
///   Σ nᵢ · 0.5^((now − tᵢ)/h) = N · 2^(−(now − L)/h)
/// exactly — the backward-decayed sum of every outcome without visiting any of them.
/// The landmark moves forward (rescaling N and S) whenever an addition lies more than
/// kRebaseHalfLives half-lives after it, so values stay far from double overflow.
struct ForwardDecay {
  static constexpr double kRebaseHalfLives = 64;
  double half_life_ms = 0;      ///< h; > 0
  std::int64_t landmark_ms = 0; ///< L
  double n = 0;                 ///< N
  double s = 0;                 ///< S

  /// Adds `n_weight` trials with `s_weight` success credit that happened at `at_ms`.
  void Add(std::int64_t at_ms, double n_weight, double s_weight);
  /// N and S decayed to `now_ms`.
  double DecayedN(std::int64_t now_ms) const;
  double DecayedS(std::int64_t now_ms) const;
};

}  // namespace kioku::affective
