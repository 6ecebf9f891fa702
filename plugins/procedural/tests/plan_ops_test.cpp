// Plan operations against a real SQLite file: dependency order, stale-update refusal,
// blockers, validation and archive refusal, the audit trail — and the stale-update race
// with barrier-driven threads, each on its own connection.
#include "plan_ops.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <thread>

#include "kioku/sdk/tool.hpp"
#include "plan_store.hpp"
#include "store_fixture.hpp"

namespace kioku::procedural {
namespace {

using testing::TempDb;

const Actor kA{"agent-a", "/p"};
const Actor kB{"agent-b", "/p"};
constexpr std::int64_t kNow = 1'767'225'600'000;

NewPlan Chain(int n) {
  NewPlan p;
  p.title = "chain";
  for (int i = 1; i <= n; ++i) {
    Task t;
    t.number = i;
    t.title = "step " + std::to_string(i);
    if (i > 1) t.depends_on = {i - 1};
    p.tasks.push_back(std::move(t));
  }
  return p;
}

CheckRequest Set(const std::string& plan, int task, TaskState s, std::string note = "") {
  CheckRequest r;
  r.plan_id = plan;
  r.task = task;
  r.state = s;
  r.note = std::move(note);
  return r;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const sdk::ToolError& e) {
    return e.what();
  }
  return "";
}

TEST(PlanOpsTest, CycleIsRefusedNamingItAndNothingIsWritten) {
  TempDb db;
  NewPlan p = Chain(3);
  p.tasks[0].depends_on = {3};
  const auto err = ErrorOf([&] { CreatePlan(db.Db(), p, kA, kNow); });
  EXPECT_NE(err.find("t1 → t3 → t2 → t1"), std::string::npos) << err;
  EXPECT_NE(err.find("'step 3'"), std::string::npos) << err;
  EXPECT_EQ(db.Db().execAndGet("SELECT count(*) FROM procedural_plans").getInt(), 0);
  EXPECT_EQ(db.Db().execAndGet("SELECT count(*) FROM procedural_tasks").getInt(), 0);
}

TEST(PlanOpsTest, DoneWaitsForDependenciesUnlessForcedWithANote) {
  TempDb db;
  const auto id = CreatePlan(db.Db(), Chain(3), kA, kNow);
  auto err = ErrorOf([&] { CheckTask(db.Db(), Set(id, 2, TaskState::kDone), kA, kNow); });
  EXPECT_NE(err.find("depends on unfinished t1"), std::string::npos) << err;
  auto r = CheckTask(db.Db(), Set(id, 1, TaskState::kDone), kA, kNow);
  EXPECT_EQ(r.now_ready, std::vector<int>{2});
  EXPECT_EQ(r.progress.done, 1);
  // Forced without a note: refused; with a note: done, audited as forced.
  CheckRequest f = Set(id, 3, TaskState::kDone);
  f.force = true;
  EXPECT_NE(ErrorOf([&] { CheckTask(db.Db(), f, kA, kNow); }).find("note"), std::string::npos);
  f.note = "verified by hand";
  CheckTask(db.Db(), f, kA, kNow);
  const auto audit = LoadAudit(db.Db(), id, 10);
  ASSERT_FALSE(audit.empty());
  EXPECT_EQ(audit[0].action, "task.state.forced");
  EXPECT_EQ(audit[0].from, "todo");
  EXPECT_EQ(audit[0].to, "done");
  EXPECT_EQ(audit[0].agent_id, "agent-a");
  EXPECT_EQ(audit[0].note, "verified by hand");
}

TEST(PlanOpsTest, StaleWritesAreRefusedWithTheCurrentState) {
  TempDb db;
  const auto id = CreatePlan(db.Db(), Chain(2), kA, kNow);
  // B read v1, A marks t1 done (v2).
  CheckTask(db.Db(), Set(id, 1, TaskState::kDone), kA, kNow);
  CheckRequest stale = Set(id, 1, TaskState::kDoing);
  stale.expected_version = 1;
  auto err = ErrorOf([&] { CheckTask(db.Db(), stale, kB, kNow + 1); });
  EXPECT_NE(err.find("stale update refused"), std::string::npos) << err;
  EXPECT_NE(err.find("t1 is done (v2, by agent-a"), std::string::npos) << err;
  // Without an expectation, a revert of finished work is refused too.
  err = ErrorOf([&] { CheckTask(db.Db(), Set(id, 1, TaskState::kTodo), kB, kNow + 1); });
  EXPECT_NE(err.find("reopening a finished task"), std::string::npos) << err;
  // With the current version it is an explicit, audited transition.
  CheckRequest reopen = Set(id, 1, TaskState::kTodo, "found a bug");
  reopen.expected_version = 2;
  const auto r = CheckTask(db.Db(), reopen, kB, kNow + 2);
  EXPECT_EQ(r.after.state, TaskState::kTodo);
  EXPECT_EQ(r.after.version, 3);
  // Taking over a task another agent is doing needs the version too.
  CheckTask(db.Db(), Set(id, 1, TaskState::kDoing), kA, kNow + 3);
  err = ErrorOf([&] { CheckTask(db.Db(), Set(id, 1, TaskState::kDoing), kB, kNow + 4); });
  EXPECT_TRUE(err.empty()) << "same state is a no-op: " << err;
  err = ErrorOf([&] { CheckTask(db.Db(), Set(id, 1, TaskState::kTodo), kB, kNow + 4); });
  EXPECT_NE(err.find("another agent is doing it"), std::string::npos) << err;
}

TEST(PlanOpsTest, BlockersCriteriaValidationAndArchive) {
  TempDb db;
  NewPlan p = Chain(2);
  p.tasks[1].criteria = {{1, "tests pass", false}};
  const auto id = CreatePlan(db.Db(), p, kA, kNow);
  // A plan at 0 % never validates, and archive is refused.
  auto v = ValidatePlanOp(db.Db(), id, false, false, "", kA, kNow);
  EXPECT_FALSE(v.report.passed);
  EXPECT_EQ(v.report.problems.size(), 3u);  // 2 unfinished + 1 criterion
  auto err = ErrorOf([&] { ValidatePlanOp(db.Db(), id, true, false, "", kA, kNow); });
  EXPECT_NE(err.find("archive refused"), std::string::npos) << err;
  EXPECT_FALSE(RequirePlan(db.Db(), id).archived);

  CheckRequest block = Set(id, 1, TaskState::kDoing);
  block.block = "CI is down";
  auto r = CheckTask(db.Db(), block, kA, kNow);
  EXPECT_FALSE(r.blocker_id.empty());
  EXPECT_EQ(r.progress.open_blockers, 1);
  err = ErrorOf([&] { CheckTask(db.Db(), Set(id, 1, TaskState::kDone), kA, kNow); });
  EXPECT_NE(err.find("open blocker"), std::string::npos) << err;
  CheckRequest unblock;
  unblock.plan_id = id;
  unblock.task = 1;
  unblock.unblock = true;
  unblock.state = TaskState::kDone;
  r = CheckTask(db.Db(), unblock, kA, kNow);
  EXPECT_EQ(r.cleared, 1);
  EXPECT_EQ(r.after.state, TaskState::kDone);
  CheckTask(db.Db(), Set(id, 2, TaskState::kSkipped, "covered by t1"), kA, kNow);
  v = ValidatePlanOp(db.Db(), id, false, false, "", kA, kNow);
  ASSERT_EQ(v.report.problems.size(), 1u);
  EXPECT_EQ(v.report.problems[0].kind, "criterion");
  CheckRequest met;
  met.plan_id = id;
  met.task = 2;
  met.met = {1};
  CheckTask(db.Db(), met, kA, kNow);
  EXPECT_NE(ErrorOf([&] {
              CheckRequest bad = met;
              bad.met = {2};
              CheckTask(db.Db(), bad, kA, kNow);
            }).find("no criterion 2"),
            std::string::npos);
  v = ValidatePlanOp(db.Db(), id, true, false, "", kA, kNow);
  EXPECT_TRUE(v.report.passed);
  EXPECT_TRUE(v.archived);
  EXPECT_NE(ErrorOf([&] { CheckTask(db.Db(), Set(id, 1, TaskState::kTodo), kA, kNow); }).find("archived"),
            std::string::npos);
}

TEST(PlanOpsTest, ForcedArchiveNeedsAReasonAndIsAudited) {
  TempDb db;
  const auto id = CreatePlan(db.Db(), Chain(2), kA, kNow);
  EXPECT_FALSE(ErrorOf([&] { ValidatePlanOp(db.Db(), id, true, true, "", kA, kNow); }).empty());
  const auto v = ValidatePlanOp(db.Db(), id, true, true, "abandoned: replaced by plan B", kA, kNow);
  EXPECT_TRUE(v.archived);
  EXPECT_TRUE(v.forced);
  EXPECT_EQ(LoadAudit(db.Db(), id, 1)[0].action, "plan.archive.forced");
}

TEST(PlanOpsTest, UnknownTaskNamesTheRange) {
  TempDb db;
  const auto id = CreatePlan(db.Db(), Chain(3), kA, kNow);
  const auto err = ErrorOf([&] { CheckTask(db.Db(), Set(id, 9, TaskState::kDone), kA, kNow); });
  EXPECT_NE(err.find("unknown task t9"), std::string::npos) << err;
  EXPECT_NE(err.find("t1 to t3"), std::string::npos) << err;
}

// The race, on one database file: agent A marks t2 done while agent B, working from
// an older plan_status (expected_version 1), sets t2 to doing. Exactly one wins; when A
// wins, B is refused with t2's current state; the stored state is never a silent revert.
// Meanwhile two other agents update different tasks, and both land.
TEST(PlanOpsTest, StaleUpdateRaceOnARealFile) {
  TempDb db;
  NewPlan plan;
  plan.title = "race";
  constexpr int kRounds = 150;
  for (int i = 1; i <= kRounds * 3; ++i) {
    Task t;
    t.number = i;
    t.title = "t";
    plan.tasks.push_back(t);
  }
  const auto id = CreatePlan(db.Db(), plan, kA, kNow);
  std::barrier start(4);
  std::atomic<int> a_won{0}, b_won{0}, other_errors{0};
  std::vector<std::string> b_errors(kRounds);
  auto worker = [&](int who) {
    SQLite::Database conn = sdk::OpenDatabase(db.Path());
    const Actor actor{"agent-" + std::to_string(who), "/p"};
    for (int round = 0; round < kRounds; ++round) {
      const int contested = round * 3 + 1;
      start.arrive_and_wait();
      try {
        if (who == 0) {
          CheckTask(conn, Set(id, contested, TaskState::kDone), actor, kNow);
          ++a_won;
        } else if (who == 1) {
          CheckRequest r = Set(id, contested, TaskState::kDoing);
          r.expected_version = 1;
          CheckTask(conn, r, actor, kNow);
          ++b_won;
        } else {
          CheckTask(conn, Set(id, contested + who - 1, TaskState::kDone), actor, kNow);
        }
      } catch (const sdk::ToolError& e) {
        if (who == 1) {
          b_errors[round] = e.what();
        } else {
          ++other_errors;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) threads.emplace_back(worker, w);
  for (auto& t : threads) t.join();
  EXPECT_EQ(other_errors.load(), 0);
  EXPECT_EQ(a_won.load(), kRounds);  // done never needs an expectation from todo/doing
  const auto tasks = LoadTasks(db.Db(), id);
  int refused = 0;
  for (int round = 0; round < kRounds; ++round) {
    const Task& t = tasks[round * 3];
    // A always lands; B lands only when it went first (then A's done follows it).
    EXPECT_EQ(t.state, TaskState::kDone) << round;
    if (!b_errors[round].empty()) {
      ++refused;
      EXPECT_NE(b_errors[round].find("t" + std::to_string(round * 3 + 1) + " is done"),
                std::string::npos)
          << b_errors[round];
      EXPECT_EQ(t.version, 2);
    } else {
      EXPECT_EQ(t.version, 3);
    }
    EXPECT_EQ(tasks[round * 3 + 1].state, TaskState::kDone);
    EXPECT_EQ(tasks[round * 3 + 2].state, TaskState::kDone);
  }
  EXPECT_EQ(refused + b_won.load(), kRounds);
  // Every landed change is in the audit trail.
  EXPECT_EQ(db.Db().execAndGet("SELECT count(*) FROM procedural_audit WHERE action = 'task.state'")
                .getInt(),
            a_won.load() + b_won.load() + 2 * kRounds);
}

}  // namespace
}  // namespace kioku::procedural
