#include <gtest/gtest.h>

#include <cmath>

#include "runtime.hpp"
#include "recorder.hpp"
#include "store.hpp"
#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

constexpr std::int64_t kHourMs = 3'600'000;

class RetentionTest : public AffectiveTest {
 protected:
  void SetUp() override { Start({{"retention_days", 90}}); }
  void One() { Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "success"}}); }
  std::int64_t OldRows() {
    return Scalar("SELECT count(*) FROM affective_outcomes WHERE at < " +
                  std::to_string(Now() - 90 * sdk::kMsPerDay));
  }
};

TEST_F(RetentionTest, RawRowsArePrunedButBucketsKeepHistory) {
  Record("Bash", "failure", 4, DaysAgo(0));
  Record("Bash", "success", 6, DaysAgo(0));
  EXPECT_EQ(RawCount(), 10);

  rt.clock->Advance(91 * sdk::kMsPerDay);
  One();  // the write after the interval runs the retention pass
  EXPECT_EQ(RawCount(), 1);
  EXPECT_EQ(BucketN(), 11);
  EXPECT_TRUE(ReadMeta(rt.Db(), kMetaLastPrune).has_value());

  // Aggregates and routing still see the pruned outcomes through the buckets.
  json q = Ok("feedback_query", {{"tool_prefix", "Bash"}});
  EXPECT_EQ(q["tools"][0]["n"], 11);
  EXPECT_EQ(q["tools"][0]["failure"], 4);
  EXPECT_TRUE(q["tools"][0]["recent_failures"].empty());  // their raw rows are gone
  json r = Ok("feedback_route", {{"tools", {"Bash"}}, {"half_life_days", 1000}});
  EXPECT_EQ(r["ranking"][0]["n"], 11);
}

TEST_F(RetentionTest, RunsAtMostOncePerHour) {
  rt.clock->Advance(2 * kHourMs);
  One();  // pass runs now (last one was at Start)
  const std::string old_at = DaysAgo(100);
  Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "success"}, {"at", old_at}});
  EXPECT_EQ(OldRows(), 1) << "a pass ran again within the hour";

  rt.clock->Advance(kHourMs / 2);
  One();
  EXPECT_EQ(OldRows(), 1);

  rt.clock->Advance(kHourMs / 2 + 1);
  One();
  EXPECT_EQ(OldRows(), 0);
  EXPECT_EQ(BucketN(), 4);
}

TEST_F(RetentionTest, LargeBacklogIsDeletedInChunksAcrossWrites) {
  const int total = kPruneChunkRows + 1000;
  for (int done = 0; done < total; done += 1000) Record("Bash", "success", 1000, DaysAgo(120));
  EXPECT_EQ(OldRows(), total);

  rt.clock->Advance(2 * kHourMs);
  One();  // one chunk per write
  EXPECT_EQ(OldRows(), 1000);
  One();  // the pass was not complete, so the next write continues it
  EXPECT_EQ(OldRows(), 0);
  EXPECT_EQ(BucketN(), total + 2);
}

TEST_F(RetentionTest, DeduplicatedRecordsOlderThanRetentionAreRefused) {
  json s = Ok("feedback_record",
              {{"records",
                {{{"tool", "Bash"}, {"outcome", "success"}, {"at", DaysAgo(91)}, {"source_id", "toolu_old"}},
                 {{"tool", "Bash"}, {"outcome", "success"}, {"at", DaysAgo(91)}},
                 {{"tool", "Bash"}, {"outcome", "success"}, {"at", DaysAgo(89)}, {"source_id", "toolu_new"}}}}});
  EXPECT_EQ(s["recorded"], 2);
  EXPECT_EQ(s["expired"], 1);
  EXPECT_NE(last_text.find("retention window"), std::string::npos) << last_text;
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_outcomes WHERE source_id = 'toolu_old'"), 0);
  EXPECT_EQ(BucketN(), 2);
}

TEST_F(RetentionTest, StartRunsADuePass) {
  Record("Bash", "success", 3, DaysAgo(0));
  rt.clock->Advance(100 * sdk::kMsPerDay);
  // A second process opening the same database.
  host::RuntimeOptions options;
  options.data_dir = rt.dir;
  options.clock = rt.clock;
  host::Runtime second(options);
  second.AddPlugin("affective", [](sdk::HostServices& h) {
    return std::make_unique<AffectivePlugin>(h);
  });
  second.Start();
  second.FlushDeferredWrites();  // the start-up pass runs on the background writer
  EXPECT_EQ(RawCount(), 0);
  EXPECT_EQ(BucketN(), 3);
}

// A changed half_life_days setting: Start rebuilds the decayed totals from the buckets, so
// the fast path serves the new default; a process still on the old setting falls back to
// buckets for keys it has not rewritten.
TEST_F(RetentionTest, HalfLifeChangeRebuildsDecayedTotals) {
  Record("Bash", "success", 4, DaysAgo(7));
  Record("Bash", "failure", 4, DaysAgo(0));
  Record("Edit", "success", 2, DaysAgo(3));
  host::RuntimeOptions options;
  options.data_dir = rt.dir;
  options.clock = rt.clock;
  host::Runtime second(options);
  second.AddPlugin(
      "affective", [](sdk::HostServices& h) { return std::make_unique<AffectivePlugin>(h); },
      json{{"half_life_days", 7}});
  second.Start();
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_totals WHERE half_life_ms = 604800000"), 2);

  auto r = second.CallTool("feedback_route", {{"tools", {"Bash"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["decay_from"], "totals");
  // 4 successes one half-life old + 4 failures now: n_eff = 2 + 4.
  EXPECT_NEAR(r.structured["ranking"][0]["n_effective"].get<double>(), 6.0, 1e-9);

  // The first process (half-life 14) now finds totals written under 7 days: buckets.
  json old = Ok("feedback_route", {{"tools", {"Bash"}}});
  EXPECT_EQ(old["decay_from"], "day_buckets");
  EXPECT_NEAR(old["ranking"][0]["n_effective"].get<double>(), 4 * std::exp2(-0.5) + 4, 1e-9);
  // Its next write rebuilds the key it touches under its own half-life.
  Record("Bash", "success", 1, DaysAgo(0));
  EXPECT_EQ(Scalar("SELECT half_life_ms FROM affective_totals WHERE tool = 'Bash'"), 14 * sdk::kMsPerDay);
  EXPECT_EQ(Scalar("SELECT n FROM affective_totals WHERE tool = 'Bash'"), 9);
}

}  // namespace
}  // namespace kioku::affective::testing
