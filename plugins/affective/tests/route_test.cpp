#include <gtest/gtest.h>

#include <cmath>

#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

class RouteTest : public AffectiveTest {
 protected:
  void SetUp() override { Start(); }

  json Entry(const json& ranking, const std::string& tool) {
    for (const auto& e : ranking["ranking"]) {
      if (e["tool"] == tool) return e;
    }
    ADD_FAILURE() << "no entry for " << tool;
    return json::object();
  }
};

// The required recency test: equal raw counts (10 successes, 10 failures each), but one
// tool's failures are 60 days old and the other's are from today.
TEST_F(RouteTest, OldFailuresOutrankRecentFailures) {
  Record("old_failures", "failure", 10, DaysAgo(60));
  Record("old_failures", "success", 10, DaysAgo(0));
  Record("recent_failures", "success", 10, DaysAgo(60));
  Record("recent_failures", "failure", 10, DaysAgo(0));

  json r = Ok("feedback_route", json::object());
  ASSERT_EQ(r["ranking"].size(), 2u);
  EXPECT_EQ(r["ranking"][0]["tool"], "old_failures");
  EXPECT_EQ(r["ranking"][1]["tool"], "recent_failures");
  EXPECT_EQ(r["ranking"][0]["n"], 20);
  EXPECT_EQ(r["ranking"][1]["n"], 20);
  // Hand-computed: w = 0.5^(60/14); A = Wilson(10, 10 + 10w), B = Wilson(10w, 10 + 10w).
  EXPECT_NEAR(r["ranking"][0]["score"].get<double>(), 0.666155, 1e-5);
  EXPECT_NEAR(r["ranking"][1]["score"].get<double>(), 0.005218, 1e-5);
  EXPECT_GT(r["ranking"][0]["decayed_rate"].get<double>(), 0.9);
  EXPECT_LT(r["ranking"][1]["decayed_rate"].get<double>(), 0.1);
}

TEST_F(RouteTest, ScoreIsWilsonOnDecayedCounts) {
  // 10 successes now (weight 1) + 10 failures one half-life ago (weight 0.5):
  // n_eff = 15, s_eff = 10, Wilson(10, 15) = 0.417131.
  Record("Bash", "success", 10, DaysAgo(0));
  Record("Bash", "failure", 10, DaysAgo(14));
  json e = Entry(Ok("feedback_route", {{"tools", {"Bash"}}}), "Bash");
  EXPECT_NEAR(e["n_effective"].get<double>(), 15.0, 1e-9);
  EXPECT_NEAR(e["decayed_rate"].get<double>(), 10.0 / 15.0, 1e-9);
  EXPECT_NEAR(e["score"].get<double>(), 0.417131, 1e-6);
  EXPECT_DOUBLE_EQ(e["score"].get<double>(), e["wilson_lower"].get<double>());
  EXPECT_EQ(e["n"], 20);

  // A one-week half-life halves the old failures' weight again: n_eff = 12.5.
  json f = Entry(Ok("feedback_route", {{"tools", {"Bash"}}, {"half_life_days", 7}}), "Bash");
  EXPECT_NEAR(f["n_effective"].get<double>(), 12.5, 1e-9);
}

TEST_F(RouteTest, DefaultHalfLifeUsesExactTotalsOtherUsesBuckets) {
  // Two outcomes at 06:00 and 18:00 of the same day, 14 days ago: the totals weigh each
  // exactly; the bucket path weighs both at their mean time (12:00).
  const std::int64_t day_start = (Now() / sdk::kMsPerDay - 14) * sdk::kMsPerDay;
  const std::string morning = sdk::FormatRfc3339(day_start + 6 * 3'600'000);
  const std::string evening = sdk::FormatRfc3339(day_start + 18 * 3'600'000);
  Ok("feedback_record", {{"records", {{{"tool", "Bash"}, {"outcome", "success"}, {"at", morning}},
                                      {{"tool", "Bash"}, {"outcome", "failure"}, {"at", evening}}}}});
  auto age = [&](std::int64_t at) { return static_cast<double>(Now() - at) / sdk::kMsPerDay; };
  const double w_morning = std::exp2(-age(day_start + 6 * 3'600'000) / 14);
  const double w_evening = std::exp2(-age(day_start + 18 * 3'600'000) / 14);

  json exact = Ok("feedback_route", json::object());
  EXPECT_EQ(exact["decay_from"], "totals");
  const json e = Entry(exact, "Bash");
  EXPECT_NEAR(e["n_effective"].get<double>(), w_morning + w_evening, 1e-12);
  EXPECT_NEAR(e["decayed_rate"].get<double>(), w_morning / (w_morning + w_evening), 1e-12);

  json approx = Ok("feedback_route", {{"half_life_days", 14.5}});
  EXPECT_EQ(approx["decay_from"], "day_buckets");
  const json b = Entry(approx, "Bash");
  const double w_mean = std::exp2(-age(day_start + 12 * 3'600'000) / 14.5);
  EXPECT_NEAR(b["n_effective"].get<double>(), 2 * w_mean, 1e-12);
  EXPECT_NEAR(b["decayed_rate"].get<double>(), 0.5, 1e-12);
}

TEST_F(RouteTest, PartialCountsAsHalfASuccess) {
  Record("Edit", "partial", 10, DaysAgo(0));
  json e = Entry(Ok("feedback_route", json::object()), "Edit");
  EXPECT_NEAR(e["decayed_rate"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(e["score"].get<double>(), 0.236590, 1e-6);  // Wilson(5, 10)
}

TEST_F(RouteTest, ConfidentOnceEffectiveSamplesReachTheMinimum) {
  Record("nine", "success", 9, DaysAgo(0));
  Record("ten", "success", 10, DaysAgo(0));
  Record("ten_but_old", "success", 10, DaysAgo(1));  // n_eff = 10 · 0.5^(1/14) < 10
  json r = Ok("feedback_route", json::object());
  EXPECT_FALSE(Entry(r, "nine")["confident"].get<bool>());
  EXPECT_TRUE(Entry(r, "ten")["confident"].get<bool>());
  EXPECT_FALSE(Entry(r, "ten_but_old")["confident"].get<bool>());
  EXPECT_EQ(r["min_samples"], 10.0);

  json lower = Ok("feedback_route", {{"min_samples", 9}});
  EXPECT_TRUE(Entry(lower, "nine")["confident"].get<bool>());
  EXPECT_TRUE(Entry(lower, "ten_but_old")["confident"].get<bool>());
}

TEST_F(RouteTest, UntriedCandidatesAreListedWithZeroScore) {
  Record("Bash", "success", 3, DaysAgo(0));
  json r = Ok("feedback_route", {{"tools", {"Bash", "never_used"}}});
  ASSERT_EQ(r["ranking"].size(), 2u);
  EXPECT_EQ(r["ranking"][0]["tool"], "Bash");
  json e = Entry(r, "never_used");
  EXPECT_EQ(e["n"], 0);
  EXPECT_EQ(e["score"], 0.0);
  EXPECT_TRUE(e["decayed_rate"].is_null());
  EXPECT_TRUE(e["last_at"].is_null());
  EXPECT_FALSE(e["confident"].get<bool>());
}

TEST_F(RouteTest, ExplorationBonusLiftsRarelyTriedTools) {
  Record("proven", "success", 20, DaysAgo(0));
  Record("rare", "success", 1, DaysAgo(0));
  json plain = Ok("feedback_route", {{"tools", {"proven", "rare", "untried"}}});
  EXPECT_EQ(plain["ranking"][0]["tool"], "proven");
  EXPECT_EQ(plain["explore"], false);

  json r = Ok("feedback_route", {{"tools", {"proven", "rare", "untried"}}, {"explore", true}});
  ASSERT_EQ(r["ranking"].size(), 3u);
  // N = 21: rare = Wilson(1,1) + sqrt(2 ln 21) = 2.674142; untried = sqrt(2 ln 21) = 2.467599;
  // proven = Wilson(20,20) + sqrt(2 ln 21 / 20) = 1.390642.
  EXPECT_EQ(r["ranking"][0]["tool"], "rare");
  EXPECT_EQ(r["ranking"][1]["tool"], "untried");
  EXPECT_EQ(r["ranking"][2]["tool"], "proven");
  EXPECT_NEAR(r["ranking"][0]["score"].get<double>(), 2.674142, 1e-6);
  EXPECT_NEAR(r["ranking"][1]["score"].get<double>(), 2.467599, 1e-6);
  EXPECT_NEAR(r["ranking"][2]["score"].get<double>(), 1.390642, 1e-6);

  json half = Ok("feedback_route", {{"tools", {"untried"}}, {"explore", true},
                                    {"explore_weight", 0.5}});
  EXPECT_DOUBLE_EQ(half["ranking"][0]["explore_bonus"].get<double>(), 0.0);  // N = 0
}

TEST_F(RouteTest, FiltersByAgentAndPrefix) {
  Record("Bash", "failure", 5, DaysAgo(0), {{"agent_id", "codex"}});
  Record("Bash", "success", 5, DaysAgo(0), {{"agent_id", "claude-code"}});
  Record("github/create_issue", "success", 2, DaysAgo(0), {{"agent_id", "claude-code"}});

  json mine = Ok("feedback_route", {{"agent_id", "claude-code"}, {"tools", {"Bash"}}});
  EXPECT_EQ(mine["ranking"][0]["n"], 5);
  EXPECT_DOUBLE_EQ(mine["ranking"][0]["decayed_rate"].get<double>(), 1.0);

  json pooled = Ok("feedback_route", {{"tools", {"Bash"}}});
  EXPECT_EQ(pooled["ranking"][0]["n"], 10);

  json gh = Ok("feedback_route", {{"tool_prefix", "github/"}});
  ASSERT_EQ(gh["ranking"].size(), 1u);
  EXPECT_EQ(gh["ranking"][0]["tool"], "github/create_issue");
}

TEST_F(RouteTest, SortedByScoreAndLimited) {
  Record("a", "success", 30, DaysAgo(0));
  Record("b", "success", 5, DaysAgo(0));
  Record("c", "failure", 5, DaysAgo(0));
  json r = Ok("feedback_route", {{"limit", 2}});
  ASSERT_EQ(r["ranking"].size(), 2u);
  EXPECT_EQ(r["total"], 3);
  EXPECT_EQ(r["ranking"][0]["tool"], "a");
  EXPECT_EQ(r["ranking"][1]["tool"], "b");
  EXPECT_GE(r["ranking"][0]["score"].get<double>(), r["ranking"][1]["score"].get<double>());
  EXPECT_NE(last_text.find("1. a score"), std::string::npos) << last_text;
  EXPECT_NE(last_text.find("1 more"), std::string::npos) << last_text;
}

TEST_F(RouteTest, NonPositiveHalfLifeIsRejected) {
  Record("Bash", "success", 1, DaysAgo(0));
  for (double h : {0.0, -3.0}) {
    const std::string msg = Err("feedback_route", {{"half_life_days", h}});
    EXPECT_NE(msg.find("half_life_days"), std::string::npos) << msg;
  }
}

TEST_F(RouteTest, EmptyDatabaseSaysSo) {
  json r = Ok("feedback_route", json::object());
  EXPECT_TRUE(r["ranking"].empty());
  EXPECT_NE(last_text.find("no outcomes"), std::string::npos) << last_text;
}

}  // namespace
}  // namespace kioku::affective::testing
