// Issue 10: outcomes written under old spellings of one project end in one bucket and one
// total per (tool, agent, model, project), so routing scores see every outcome.
#include <filesystem>

#include <SQLiteCpp/Database.h>

#include "scoring.hpp"
#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProject = "github.com/acme/webapp";
constexpr std::int64_t kFixtureNow = 1'796'141'080'000;  // just after the fixture was written

class ProjectMergeTest : public AffectiveTest {
 protected:
  // The 0.1.0 fixture, plus outcomes of the same tool, agent and day that 0.1.0 filed under
  // another subfolder of the same repository ("<repo>//apps/web"): both spellings become
  // "<repo>", so migration 2 could move only one of the two rows.
  void StartOnReleaseDb() {
    fs::copy_file(KIOKU_RELEASE_DB, rt.dir / "kioku.db");
    {
      SQLite::Database db((rt.dir / "kioku.db").string(), SQLite::OPEN_READWRITE);
      db.exec(
          "INSERT INTO affective_buckets (tool, agent_id, model, project_id, day, n, success, "
          "failure, partial, rejected, timeout, offset_sum_ms, last_at_ms, latency_n, "
          "latency_sum_ms, confidence_n, confidence_sum, latency_bins) SELECT tool, agent_id, "
          "model, 'github.com/acme/webapp//apps/web', day, 3, 0, 3, 0, 0, 0, offset_sum_ms * 3, "
          "last_at_ms + 1000, 3, 30.0, 0, 0.0, latency_bins FROM affective_buckets WHERE tool = "
          "'memory_remember'");
      db.exec(
          "INSERT INTO affective_totals (tool, agent_id, model, project_id, n, success, failure, "
          "partial, rejected, timeout, last_at_ms, latency_n, latency_sum_ms, confidence_n, "
          "confidence_sum, latency_bins, half_life_ms, landmark_ms, decay_n, decay_s) SELECT "
          "tool, agent_id, model, 'github.com/acme/webapp//apps/web', 3, 0, 3, 0, 0, 0, "
          "last_at_ms + 1000, 3, 30.0, 0, 0.0, latency_bins, half_life_ms, landmark_ms + 1000, "
          "3.0, 0.0 FROM affective_totals WHERE tool = 'memory_remember'");
    }
    rt.clock->Set(kFixtureNow);
    Start();
  }
};

TEST_F(ProjectMergeTest, TwoOldSpellingsOfOneProjectMergeIntoOneBucketAndTotal) {
  StartOnReleaseDb();
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_buckets WHERE tool = 'memory_remember'"), 1);
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_totals WHERE tool = 'memory_remember'"), 1);
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_buckets WHERE project_id LIKE '%//%'"), 0);
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_totals WHERE project_id LIKE '%//%'"), 0);
  EXPECT_EQ(
      Scalar("SELECT n FROM affective_buckets WHERE tool = 'memory_remember' AND project_id = "
             "'github.com/acme/webapp'"),
      5);
  EXPECT_EQ(Scalar("SELECT failure FROM affective_totals WHERE tool = 'memory_remember' AND "
                   "project_id = 'github.com/acme/webapp'"),
            3);
  EXPECT_EQ(Scalar("SELECT latency_n FROM affective_totals WHERE tool = 'memory_remember'"), 5);
  // Every other fixture row moved as it was.
  EXPECT_EQ(
      Scalar("SELECT count(*) FROM affective_buckets WHERE project_id = 'github.com/acme/webapp'"),
      5);
  EXPECT_EQ(BucketN(), 1 + 5 + 4);

  // The score is computed over the merged counts: 2 successes of 5, not 2 of 2.
  for (const json& args :
       {json{{"tools", {"memory_remember"}}, {"project_id", kProject}},
        json{{"tools", {"memory_remember"}}, {"project_id", kProject}, {"half_life_days", 3}}}) {
    const json r = Ok("feedback_route", args);
    ASSERT_EQ(r["ranking"].size(), 1u) << r.dump();
    const json& e = r["ranking"][0];
    EXPECT_EQ(e["n"], 5) << r.dump();
    EXPECT_NEAR(e["n_effective"].get<double>(), 5.0, 0.01) << r.dump();
    EXPECT_NEAR(e["decayed_rate"].get<double>(), 0.4, 0.01) << r.dump();
    EXPECT_NEAR(e["wilson_lower"].get<double>(), WilsonLowerBound(2, 5, 1.96), 0.005) << r.dump();
  }
}

TEST_F(ProjectMergeTest, RouteFilterAcceptsAnOldSpelling) {
  StartOnReleaseDb();
  const json r = Ok("feedback_route", {{"tools", {"memory_remember"}},
                                       {"project_id", "github.com/acme/webapp//apps/api"}});
  ASSERT_EQ(r["ranking"].size(), 1u) << r.dump();
  EXPECT_EQ(r["ranking"][0]["n"], 5);
}

}  // namespace
}  // namespace kioku::affective::testing
