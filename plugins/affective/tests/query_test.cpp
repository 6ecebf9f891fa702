#include <gtest/gtest.h>

#include <cmath>

#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

class QueryTest : public AffectiveTest {};

json Row(const json& result, const std::string& tool) {
  for (const auto& r : result["tools"]) {
    if (r["tool"] == tool) return r;
  }
  ADD_FAILURE() << "no row for " << tool;
  return json::object();
}

TEST_F(QueryTest, CountsRatesLatencyAndRecentFailures) {
  Start({{"recent_failures", 2}});
  json records = json::array();
  for (int i = 1; i <= 20; ++i) {
    records.push_back({{"tool", "Bash"}, {"outcome", "success"}, {"latency_ms", i * 10},
                       {"at", DaysAgo(1)}});
  }
  records.push_back({{"tool", "Bash"}, {"outcome", "partial"}, {"at", DaysAgo(1)}});
  records.push_back({{"tool", "Bash"}, {"outcome", "failure"}, {"error", "first"},
                     {"at", DaysAgo(0.3)}});
  records.push_back({{"tool", "Bash"}, {"outcome", "timeout"}, {"error", "second"},
                     {"error_class", "deadline"}, {"at", DaysAgo(0.2)}});
  records.push_back({{"tool", "Bash"}, {"outcome", "rejected"}, {"error", "third"},
                     {"at", DaysAgo(0.1)}});
  Ok("feedback_record", {{"records", records}});

  json r = Ok("feedback_query", json::object());
  json bash = Row(r, "Bash");
  EXPECT_EQ(bash["n"], 24);
  EXPECT_EQ(bash["success"], 20);
  EXPECT_EQ(bash["partial"], 1);
  EXPECT_EQ(bash["failure"], 1);
  EXPECT_EQ(bash["timeout"], 1);
  EXPECT_EQ(bash["rejected"], 1);
  EXPECT_NEAR(bash["success_rate"].get<double>(), 20.5 / 24, 1e-12);
  // Latencies 10..200 ms: nearest-rank p50 = 100, p95 = 190; histogram error ≤ 9.05 %.
  const double bound = std::exp2(1.0 / 8) - 1;
  EXPECT_NEAR(bash["latency_p50_ms"].get<double>(), 100, 100 * bound);
  EXPECT_NEAR(bash["latency_p95_ms"].get<double>(), 190, 190 * bound);
  EXPECT_NEAR(bash["latency_mean_ms"].get<double>(), 105, 1e-9);
  EXPECT_TRUE(bash["avg_confidence"].is_null());
  ASSERT_EQ(bash["recent_failures"].size(), 2u);  // settings.recent_failures
  EXPECT_EQ(bash["recent_failures"][0]["error"], "third");
  EXPECT_EQ(bash["recent_failures"][0]["outcome"], "rejected");
  EXPECT_EQ(bash["recent_failures"][1]["error"], "second");
  EXPECT_EQ(bash["recent_failures"][1]["error_class"], "deadline");
  EXPECT_NE(last_text.find("Bash: n=24"), std::string::npos) << last_text;
  EXPECT_NE(last_text.find("third"), std::string::npos) << last_text;
  EXPECT_FALSE(r["day_granularity"].get<bool>());
}

TEST_F(QueryTest, FiltersAndGroups) {
  Start();
  Record("memory_recall", "success", 3, DaysAgo(0), {{"agent_id", "a1"}, {"model", "m1"}});
  Record("memory_recall", "failure", 1, DaysAgo(0), {{"agent_id", "a2"}, {"model", "m1"}});
  Record("memory_remember", "success", 2, DaysAgo(0), {{"agent_id", "a1"}});
  Record("Bash", "success", 7, DaysAgo(0), {{"agent_id", "a1"}});

  json prefix = Ok("feedback_query", {{"tool_prefix", "memory_"}});
  ASSERT_EQ(prefix["tools"].size(), 2u);
  EXPECT_EQ(prefix["tools"][0]["tool"], "memory_recall");  // busiest first
  EXPECT_EQ(prefix["tools"][0]["n"], 4);

  json agent = Ok("feedback_query", {{"agent_id", "a2"}});
  ASSERT_EQ(agent["tools"].size(), 1u);
  EXPECT_EQ(agent["tools"][0]["failure"], 1);

  json grouped = Ok("feedback_query", {{"tool_prefix", "memory_recall"}, {"group_by", {"agent"}}});
  ASSERT_EQ(grouped["tools"].size(), 2u);
  EXPECT_EQ(grouped["tools"][0]["agent_id"], "a1");
  EXPECT_EQ(grouped["tools"][0]["n"], 3);
  EXPECT_EQ(grouped["tools"][1]["agent_id"], "a2");
  EXPECT_EQ(grouped["tools"][1]["recent_failures"].size(), 1u);
  EXPECT_FALSE(grouped["tools"][0].contains("model"));

  json by_model = Ok("feedback_query", {{"group_by", "model"}, {"tool_prefix", "memory_recall"}});
  ASSERT_EQ(by_model["tools"].size(), 1u);
  EXPECT_EQ(by_model["tools"][0]["model"], "m1");

  json limited = Ok("feedback_query", {{"limit", 1}});
  EXPECT_EQ(limited["tools"].size(), 1u);
  EXPECT_EQ(limited["tools"][0]["tool"], "Bash");
  EXPECT_TRUE(limited["truncated"].get<bool>());
  EXPECT_EQ(limited["total"], 3);
}

// Whole days come from buckets, partial edge days from raw rows: the window is exact.
TEST_F(QueryTest, TimeWindowIsExactAtPartialDays) {
  Start();
  auto rec = [&](const char* outcome, const char* at) {
    Ok("feedback_record", {{"tool", "Bash"}, {"outcome", outcome}, {"at", at}});
  };
  rec("success", "2025-12-20T10:00:00Z");
  rec("failure", "2025-12-20T14:00:00Z");
  rec("success", "2025-12-21T12:00:00Z");
  rec("success", "2025-12-21T13:00:00Z");
  rec("failure", "2025-12-22T09:00:00Z");

  json mid = Ok("feedback_query", {{"since", "2025-12-20T12:00:00Z"}, {"until", "2025-12-22T10:00:00Z"}});
  EXPECT_EQ(Row(mid, "Bash")["n"], 4);
  EXPECT_EQ(Row(mid, "Bash")["failure"], 2);
  EXPECT_FALSE(mid["day_granularity"].get<bool>());

  json same_day = Ok("feedback_query", {{"since", "2025-12-20T09:00:00Z"}, {"until", "2025-12-20T12:00:00Z"}});
  EXPECT_EQ(Row(same_day, "Bash")["n"], 1);
  EXPECT_EQ(Row(same_day, "Bash")["success"], 1);

  json until_only = Ok("feedback_query", {{"until", "2025-12-21"}});
  EXPECT_EQ(Row(until_only, "Bash")["n"], 2);

  json since_only = Ok("feedback_query", {{"since", "2025-12-21T12:30:00Z"}});
  EXPECT_EQ(Row(since_only, "Bash")["n"], 2);
  ASSERT_EQ(Row(since_only, "Bash")["recent_failures"].size(), 1u);
  EXPECT_EQ(Row(since_only, "Bash")["recent_failures"][0]["at"], "2025-12-22T09:00:00.000Z");

  json empty = Ok("feedback_query", {{"since", "2025-12-23T00:00:00Z"}});
  EXPECT_TRUE(empty["tools"].empty());
  EXPECT_NE(last_text.find("no outcomes"), std::string::npos);
}

TEST_F(QueryTest, EdgeOlderThanRetentionFallsBackToWholeDay) {
  Start({{"retention_days", 5}});  // now is 2026-01-01: raw rows before 2025-12-27 may be gone
  Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "success"}, {"at", "2025-12-20T10:00:00Z"}});
  Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "failure"}, {"at", "2025-12-20T14:00:00Z"}});
  json r = Ok("feedback_query", {{"since", "2025-12-20T12:00:00Z"}});
  EXPECT_TRUE(r["day_granularity"].get<bool>());
  EXPECT_EQ(Row(r, "Bash")["n"], 2);
  EXPECT_NE(last_text.find("counted whole"), std::string::npos) << last_text;
}

TEST_F(QueryTest, BadWindowIsRejected) {
  Start();
  const std::string order = Err("feedback_query", {{"since", "2025-12-22"}, {"until", "2025-12-21"}});
  EXPECT_NE(order.find("must be before `until`"), std::string::npos) << order;
  const std::string format = Err("feedback_query", {{"since", "last tuesday"}});
  EXPECT_NE(format.find("RFC 3339"), std::string::npos) << format;
  const std::string group = Err("feedback_query", {{"group_by", {"color"}}});
  EXPECT_NE(group.find("group_by"), std::string::npos) << group;
}

}  // namespace
}  // namespace kioku::affective::testing
