#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>
#include <algorithm>

#include "latency_histogram.hpp"
#include "scoring.hpp"

namespace kioku::affective {
namespace {

// Expected values computed by hand from Wilson (1927):
// (p + z²/2n − z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.96.
TEST(WilsonLowerBound, MatchesHandComputedValues) {
  EXPECT_NEAR(WilsonLowerBound(8, 10, 1.96), 0.490157, 1e-6);
  EXPECT_NEAR(WilsonLowerBound(50, 100, 1.96), 0.403830, 1e-6);
  EXPECT_NEAR(WilsonLowerBound(89, 89, 1.96), 0.958622, 1e-6);
  EXPECT_NEAR(WilsonLowerBound(10, 10, 1.96), 0.722460, 1e-6);
  EXPECT_NEAR(WilsonLowerBound(1, 1, 1.96), 0.206543, 1e-6);
  EXPECT_NEAR(WilsonLowerBound(7.5, 10, 1.96), 0.442176, 1e-6);  // fractional counts
  EXPECT_DOUBLE_EQ(WilsonLowerBound(0, 10, 1.96), 0.0);
  EXPECT_DOUBLE_EQ(WilsonLowerBound(0, 0, 1.96), 0.0);
}

TEST(WilsonLowerBound, LongRecordBeatsOneLuckySuccess) {
  EXPECT_LT(WilsonLowerBound(1, 1, 1.96), WilsonLowerBound(90, 100, 1.96));
}

TEST(WilsonLowerBound, LargerZIsMoreCautious) {
  EXPECT_GT(WilsonLowerBound(8, 10, 1.0), WilsonLowerBound(8, 10, 1.96));
  EXPECT_GT(WilsonLowerBound(8, 10, 1.96), WilsonLowerBound(8, 10, 2.58));
}

TEST(DecayWeight, HalvesEveryHalfLife) {
  EXPECT_DOUBLE_EQ(DecayWeight(0, 14), 1.0);
  EXPECT_DOUBLE_EQ(DecayWeight(14, 14), 0.5);
  EXPECT_DOUBLE_EQ(DecayWeight(28, 14), 0.25);
  EXPECT_NEAR(DecayWeight(7, 14), 0.7071068, 1e-7);
  EXPECT_NEAR(DecayWeight(30, 14), 0.2264309, 1e-7);
  EXPECT_DOUBLE_EQ(DecayWeight(-3, 14), 1.0);  // clock skew never boosts
}

TEST(ExplorationBonus, FollowsUcb1) {
  // sqrt(2 ln 100 / 4) = 1.517427; untried tool counts as one trial: sqrt(2 ln 100) = 3.034854.
  EXPECT_NEAR(ExplorationBonus(4, 100, 1.0), 1.517427, 1e-6);
  EXPECT_NEAR(ExplorationBonus(0, 100, 1.0), 3.034854, 1e-6);
  EXPECT_NEAR(ExplorationBonus(4, 100, 0.5), 0.758714, 1e-6);
  EXPECT_DOUBLE_EQ(ExplorationBonus(4, 100, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(ExplorationBonus(0, 0, 1.0), 0.0);
  EXPECT_GT(ExplorationBonus(1, 100, 1.0), ExplorationBonus(50, 100, 1.0));
}

TEST(LatencyHistogram, BinsAreLogScale) {
  EXPECT_EQ(LatencyBin(0), 0);
  EXPECT_EQ(LatencyBin(-5), 0);
  EXPECT_EQ(LatencyBin(std::nan("")), 0);
  EXPECT_EQ(LatencyBin(0.0624), 0);
  EXPECT_EQ(LatencyBin(0.0625), 1);
  EXPECT_EQ(LatencyBin(1.0), 17);   // 2^0 = 4 octaves × 4 bins above 1/16 ms, + 1
  EXPECT_EQ(LatencyBin(2.0), 21);
  EXPECT_EQ(LatencyBin(1e12), kLatencyBins - 1);
  EXPECT_NEAR(LatencyBinValue(17), std::exp2(0.125), 1e-12);
}

TEST(LatencyHistogram, QuantilesWithinDocumentedBound) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> dist(4.0, 1.5);  // median ≈ 55 ms, long tail
  std::vector<double> values;
  LatencyHistogram h;
  for (int i = 0; i < 5000; ++i) {
    values.push_back(dist(rng));
    h.AddValue(values.back());
  }
  std::sort(values.begin(), values.end());
  const double bound = std::exp2(1.0 / 8) - 1;  // 9.05 %
  for (double q : {0.5, 0.9, 0.95, 0.99}) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * values.size()));
    const double exact = values[rank - 1];
    ASSERT_TRUE(h.Quantile(q));
    EXPECT_LE(std::fabs(*h.Quantile(q) - exact) / exact, bound + 1e-12) << "q=" << q;
  }
  EXPECT_EQ(h.Total(), 5000u);
  EXPECT_FALSE(LatencyHistogram().Quantile(0.5));
}

TEST(LatencyHistogram, EncodeDecodeRoundTrip) {
  LatencyHistogram h;
  h.Add(0, 3);
  h.Add(17, 300);            // two-byte varint
  h.Add(kLatencyBins - 1, 1ull << 40);
  const std::string bytes = h.Encode();
  const LatencyHistogram back = LatencyHistogram::Decode(bytes);
  EXPECT_EQ(back.Total(), h.Total());
  EXPECT_EQ(back.Encode(), bytes);
  EXPECT_EQ(LatencyHistogram().Encode(), "");
  // Malformed: a truncated varint and an out-of-range bin keep what was read before.
  std::string truncated = bytes.substr(0, 4);
  EXPECT_EQ(LatencyHistogram::Decode(truncated).Total(), 3u);
  EXPECT_EQ(LatencyHistogram::Decode(std::string("\xff\x01", 2)).Total(), 0u);
}

// Forward decay (Cormode et al. 2009) must equal direct backward decay, also across a
// landmark rebase.
TEST(ForwardDecay, EqualsDirectDecayAcrossRebase) {
  const double h = 14.0 * 86'400'000;
  ForwardDecay fd;
  fd.half_life_ms = h;
  const std::int64_t t0 = 1'700'000'000'000;
  const std::vector<std::pair<std::int64_t, double>> events = {
      {t0, 1.0}, {t0 + 86'400'000, 0.0}, {t0 - 3 * 86'400'000, 0.5},
      {t0 + static_cast<std::int64_t>(100 * h), 1.0},  // > 64 half-lives later: rebase
      {t0 + static_cast<std::int64_t>(100.5 * h), 0.0}};
  for (const auto& [at, credit] : events) fd.Add(at, 1.0, credit);
  const std::int64_t now = t0 + static_cast<std::int64_t>(101 * h);
  double n = 0, s = 0;
  for (const auto& [at, credit] : events) {
    const double w = std::exp2(-static_cast<double>(now - at) / h);
    n += w;
    s += w * credit;
  }
  EXPECT_NEAR(fd.DecayedN(now), n, 1e-12 * n);
  EXPECT_NEAR(fd.DecayedS(now), s, 1e-12 * n);
  EXPECT_NEAR(fd.DecayedN(now), std::exp2(-1.0) + std::exp2(-0.5), 1e-12);
}

}  // namespace
}  // namespace kioku::affective
