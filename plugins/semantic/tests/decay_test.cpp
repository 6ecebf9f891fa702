// Confidence decay and housekeeping with an injected clock (no sleeps).
#include <cmath>

#include "decay.hpp"
#include "semantic_test_util.hpp"
#include "kioku/sdk/sql.hpp"

namespace kioku::semantic {
namespace {

using testing::SemanticTest;
using Json = nlohmann::json;

class DecayTest : public SemanticTest {
 protected:
  // The decayed confidence the last pass kept; -1 when it kept none (pinned, or at or
  // above housekeeping.stale_below).
  double Confidence(const std::string& id) {
    SQLite::Statement q(rt_->Db(),
                        "SELECT d.confidence FROM semantic_memory_decay d JOIN semantic_memories m ON m.seq = d.memory_seq "
                        "WHERE m.seq IN (SELECT seq FROM semantic_memory_ids WHERE id = ?) AND m.status <> 'pinned'");
    sdk::Bind(q, id);
    return q.executeStep() ? q.getColumn(0).getDouble() : -1;
  }
  double Stated(const std::string& id) { return Ok("memory_get", {{"id", id}})["memory"]["confidence"].get<double>(); }
  std::string Status(const std::string& id) { return Ok("memory_get", {{"id", id}})["memory"]["status"].get<std::string>(); }
  void Days(double d) { rt_->clock->Advance(static_cast<std::int64_t>(d * sdk::kMsPerDay)); }
};

TEST(DecayFormula, HalfLifeAndStaleThreshold) {
  EXPECT_DOUBLE_EQ(DecayedConfidence(1.0, 0, 90, -0.5), 1.0);
  EXPECT_NEAR(DecayedConfidence(1.0, 90, 90, -0.5), 0.5, 1e-9);
  EXPECT_NEAR(DecayedConfidence(0.8, 90, 90, -0.5), 0.4, 1e-9);
  EXPECT_NEAR(DecayedConfidence(1.0, 157.5, 90, -0.5), 0.4, 1e-9);  // (1 + 3t/h)^-1/2
}

TEST_F(DecayTest, UnpinnedDecaysPinnedDoesNotAndPassesDoNotCompound) {
  Start({{"housekeeping", {{"stale_below", 0.99}}}});  // keep every decayed value
  const std::string fact = Remember("The build cache lives in /var/cache/kioku", "fact");
  const std::string pinned = Remember("Never push to production on Fridays", "decision");
  Ok("memory_pin", {{"id", pinned}});
  Days(90);
  Json r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["decayed"], 1);
  EXPECT_NEAR(Confidence(fact), 0.5, 1e-3);
  EXPECT_DOUBLE_EQ(Stated(fact), 1.0);  // the stated confidence (recall's input) is untouched
  EXPECT_EQ(Confidence(pinned), -1);
  EXPECT_DOUBLE_EQ(Stated(pinned), 1.0);
  r = Ok("memory_maintain", Json::object());  // same time again: unchanged
  EXPECT_EQ(r["decayed"], 0);
  EXPECT_NEAR(Confidence(fact), 0.5, 1e-3);
  Days(67.5);  // 157.5 days in all
  r = Ok("memory_maintain", Json::object());
  EXPECT_NEAR(Confidence(fact), 0.4, 1e-3);
  EXPECT_EQ(Status(fact), "active");  // decay never demotes or deletes
}

TEST_F(DecayTest, ReaffirmRestoresAndUseRestartsTheClock) {
  Start({{"housekeeping", {{"stale_below", 0.99}}}});  // keep every decayed value
  const std::string a = Remember("The build cache lives in /var/cache/kioku", "fact");
  const std::string b = Remember("Integration tests need the docker daemon running", "fact");
  Days(90);
  Ok("memory_maintain", Json::object());
  ASSERT_NEAR(Confidence(a), 0.5, 1e-3);
  Remember("The build cache lives in /var/cache/kioku", "fact");  // reaffirm
  Ok("memory_used", {{"ids", {b}}, {"session_id", "s1"}});
  Ok("memory_maintain", Json::object());
  EXPECT_EQ(Confidence(a), -1);  // back to 1.0: above the line, so nothing kept
  EXPECT_EQ(Confidence(b), -1);  // used: the clock restarts from its stated confidence
  Days(90);
  Ok("memory_maintain", Json::object());
  EXPECT_NEAR(Confidence(a), 0.5, 1e-3);
  EXPECT_NEAR(Confidence(b), 0.5, 1e-3);
}

// Only memories below the stale line keep a decayed value; one that rises above it again
// (reaffirmed) loses it, and nothing is kept for the rest.
TEST_F(DecayTest, OnlyStaleMemoriesKeepADecayedValue) {
  const std::string a = Remember("The build cache lives in /var/cache/kioku", "fact");  // 90-day half-life
  const std::string b = Remember("Integration tests need the docker daemon running", "fact");
  Days(90);  // both at 0.5: above the default line of 0.4
  Json r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["decayed"], 0);
  EXPECT_EQ(Count("semantic_memory_decay"), 0);
  Days(90);  // 180 days: (1 + 3·180/90)^-1/2 = 0.378
  r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["decayed"], 2);
  EXPECT_EQ(r["stale"], 2);
  EXPECT_NEAR(Confidence(a), 0.378, 1e-3);
  Remember("The build cache lives in /var/cache/kioku", "fact");  // reaffirmed: back to 1.0
  r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["decayed"], 1);
  EXPECT_EQ(r["stale"], 1);
  EXPECT_EQ(Confidence(a), -1);
  EXPECT_NEAR(Confidence(b), 0.378, 1e-3);
  EXPECT_EQ(Ok("memory_review", {{"bucket", "stale"}})["counts"]["stale"], 1);
}

TEST_F(DecayTest, StaleMemoriesAreListedInReviewAndContext) {
  const std::string e = Remember("The staging cluster is down for maintenance", "event");  // 14-day half-life
  Days(30);
  const Json r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["stale"], 1);
  const Json review = Ok("memory_review", {{"bucket", "stale"}});
  EXPECT_EQ(review["counts"]["stale"], 1);
  ASSERT_EQ(review["items"].size(), 1u);
  EXPECT_EQ(review["items"][0]["id"], e);
}

TEST_F(DecayTest, ExpiredStopAppearingAndRetentionPrunesOnlySuperseded) {
  Start({{"housekeeping", {{"superseded_retention_days", 30}, {"interval_minutes", 0}}}});
  const std::string gone = Remember("The release freeze lasts this week", "event",
                                    {{"expires", sdk::FormatRfc3339(rt_->clock->NowMs() + 2 * sdk::kMsPerDay)}});
  const std::string forgotten = Remember("Old note about the wiki", "observation");
  const std::string active = Remember("The wiki moved to docs/", "fact");
  const std::string pinned = Remember("Releases are signed with the team key", "fact");
  Ok("memory_pin", {{"id", pinned}});
  Ok("memory_forget", {{"id", forgotten}});
  Days(3);
  Json r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["expired"], 1);
  EXPECT_EQ(r["pruned"], 0);
  EXPECT_EQ(Status(gone), "superseded");
  EXPECT_TRUE(Ok("memory_list", Json::object())["memories"].dump().find(gone) == std::string::npos);
  Days(40);
  r = Ok("memory_maintain", Json::object());
  EXPECT_EQ(r["pruned"], 2);  // the expired one and the forgotten one
  EXPECT_EQ(Count("semantic_memories", "seq IN (SELECT seq FROM semantic_memory_ids WHERE id IN ('" + gone + "','" + forgotten + "'))"), 0);
  EXPECT_EQ(Count("semantic_memories", "seq IN (SELECT seq FROM semantic_memory_ids WHERE id IN ('" + active + "','" + pinned + "'))"), 2);
  EXPECT_EQ(Count("semantic_memory_history", "memory_id = '" + forgotten + "' AND action = 'purged'"), 1);
}

TEST_F(DecayTest, BackgroundPassRunsAtTheConfiguredInterval) {
  Start({{"housekeeping", {{"interval_minutes", 60}, {"stale_below", 0.99}}}});
  const std::string fact = Remember("The build cache lives in /var/cache/kioku", "fact");
  rt_->runtime->FlushDeferredWrites();
  const int runs_before = Count("semantic_maintenance");
  EXPECT_EQ(runs_before, 1);  // at start (and the first call)
  Days(90);
  Remember("Another fact to trigger the check", "fact");
  rt_->runtime->FlushDeferredWrites();
  EXPECT_NEAR(Confidence(fact), 0.5, 1e-3);
}

}  // namespace
}  // namespace kioku::semantic
