#pragma once
/// @file scoring.hpp
/// The math behind feedback_route. Pure functions, no I/O.

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

}  // namespace kioku::affective
