#include "kioku/sdk/fusion.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

TEST(ReciprocalRankFusion, SumsReciprocalRanksWithK60) {
  // a: rank 1 in A, rank 3 in B → 1/61 + 1/63. b: rank 2 in A, rank 1 in B → 1/62 + 1/61.
  // c: rank 2 in B only → 1/62. d: rank 3 in A only → 1/63.
  const auto fused = ReciprocalRankFusion(
      {RankList{{"a", "b", "d"}, 1.0, "bm25"}, RankList{{"b", "c", "a"}, 1.0, "trigram"}});
  ASSERT_EQ(fused.size(), 4u);
  EXPECT_EQ(fused[0].id, "b");
  EXPECT_DOUBLE_EQ(fused[0].score, 1.0 / 62 + 1.0 / 61);
  EXPECT_EQ(fused[0].ranks, (std::vector<int>{2, 1}));
  EXPECT_EQ(fused[1].id, "a");
  EXPECT_DOUBLE_EQ(fused[1].score, 1.0 / 61 + 1.0 / 63);
  EXPECT_EQ(fused[1].ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(fused[2].id, "c");
  EXPECT_DOUBLE_EQ(fused[2].score, 1.0 / 62);
  EXPECT_EQ(fused[2].ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(fused[3].id, "d");
  EXPECT_DOUBLE_EQ(fused[3].score, 1.0 / 63);
}

TEST(ReciprocalRankFusion, AppliesWeightsAndCustomK) {
  const auto fused =
      ReciprocalRankFusion({RankList{{"x"}, 2.0, "a"}, RankList{{"y"}, 0.5, "b"}}, 10.0);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(fused[0].id, "x");
  EXPECT_DOUBLE_EQ(fused[0].score, 2.0 / 11);
  EXPECT_DOUBLE_EQ(fused[1].score, 0.5 / 11);
}

TEST(ReciprocalRankFusion, IgnoresDuplicatesAfterFirstOccurrence) {
  const auto fused = ReciprocalRankFusion({RankList{{"a", "a", "b"}, 1.0, "l"}});
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_DOUBLE_EQ(fused[0].score, 1.0 / 61);
  EXPECT_EQ(fused[1].id, "b");
  EXPECT_EQ(fused[1].ranks, (std::vector<int>{2}));  // the duplicate does not take a rank
  EXPECT_DOUBLE_EQ(fused[1].score, 1.0 / 62);
}

TEST(ReciprocalRankFusion, BreaksTiesByBestRankThenId) {
  // k = 1 makes exact ties easy: b = 1/(1+1) = 0.5; y = 0.5; a = 1/4 + 1/4 = 0.5;
  // x = 1/3; z = 1/3. Among the 0.5s, b and y have best rank 1 (id order: b, y), a has 3.
  const auto fused = ReciprocalRankFusion(
      {RankList{{"b", "x", "a"}, 1.0, "A"}, RankList{{"y", "z", "a"}, 1.0, "B"}}, 1.0);
  std::vector<std::string> order;
  for (const auto& item : fused) order.push_back(item.id);
  EXPECT_EQ(order, (std::vector<std::string>{"b", "y", "a", "x", "z"}));
  EXPECT_EQ(fused[0].score, fused[2].score);
  // Mirror-image ranks give bit-identical sums; id decides.
  const auto mirror = ReciprocalRankFusion(
      {RankList{{"n", "m"}, 1.0, "a"}, RankList{{"m", "n"}, 1.0, "b"}});
  EXPECT_EQ(mirror[0].score, mirror[1].score);
  EXPECT_EQ(mirror[0].id, "m");
}

TEST(ReciprocalRankFusion, EmptyInputsGiveEmptyOutput) {
  EXPECT_TRUE(ReciprocalRankFusion({}).empty());
  EXPECT_TRUE(ReciprocalRankFusion({RankList{{}, 1.0, "empty"}}).empty());
}

TEST(ReciprocalRankFusion, RejectsNonPositiveKAndNonFiniteWeights) {
  EXPECT_THROW(ReciprocalRankFusion({RankList{{"a"}, 1.0, "l"}}, 0.0), std::invalid_argument);
  EXPECT_THROW(ReciprocalRankFusion({RankList{{"a"}, 1.0, "l"}}, -1.0), std::invalid_argument);
  EXPECT_THROW(ReciprocalRankFusion({RankList{{"a"}, 1.0, "l"}},
                                    std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
  EXPECT_THROW(
      ReciprocalRankFusion({RankList{{"a"}, std::numeric_limits<double>::quiet_NaN(), "l"}}),
      std::invalid_argument);
}

}  // namespace
}  // namespace kioku::sdk
