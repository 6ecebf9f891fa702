#include "plan_ops.hpp"

#include <algorithm>
#include <unordered_map>

#include "graph.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"
#include "plan_store.hpp"

namespace kioku::procedural {
namespace {

std::string Quote(const std::string& title) { return "'" + sdk::TruncateUtf8(title, 60) + "'"; }

std::string CurrentState(const Task& t) {
  std::string s = TaskKey(t.number) + " is " + std::string(TaskStateName(t.state)) + " (v" +
                  std::to_string(t.version);
  if (!t.updated_by.empty()) {
    s += ", by " + t.updated_by + " at " + sdk::FormatRfc3339(t.updated_at_ms);
  }
  s += ")";
  if (!t.note.empty()) s += ", note: " + sdk::TruncateUtf8(t.note, 120);
  return s;
}

void Audit(SQLite::Database& db, const std::string& plan_id, const Actor& actor,
           std::int64_t now, std::string action, int task, std::string from, std::string to,
           std::string note) {
  AuditEntry e;
  e.at_ms = now;
  e.agent_id = actor.agent_id;
  e.action = std::move(action);
  e.task = task;
  e.from = std::move(from);
  e.to = std::move(to);
  e.note = std::move(note);
  AppendAudit(db, plan_id, e);
}

}  // namespace

std::string CreatePlan(SQLite::Database& db, const NewPlan& plan, const Actor& actor,
                       std::int64_t now_ms) {
  std::vector<DepNode> nodes;
  nodes.reserve(plan.tasks.size());
  for (const auto& t : plan.tasks) nodes.push_back({t.number, t.depends_on});
  if (const auto cycle = FindCycle(nodes)) {
    std::unordered_map<int, const Task*> by_number;
    for (const auto& t : plan.tasks) by_number.emplace(t.number, &t);
    std::string named;
    for (std::size_t i = 0; i + 1 < cycle->size(); ++i) {
      named += (i ? ", " : "") + TaskKey((*cycle)[i]) + " " + Quote(by_number[(*cycle)[i]]->title);
    }
    throw sdk::ToolError("dependency cycle " + CycleText(*cycle) + " (" + named +
                         "): remove one of these depends_on links; nothing was created");
  }
  PlanHeader header;
  header.id = sdk::NewId(now_ms);
  header.project_id = actor.project_id;
  header.title = plan.title;
  header.goal = plan.goal;
  header.tags = plan.tags;
  header.created_by = actor.agent_id;
  header.created_at_ms = now_ms;
  header.updated_at_ms = now_ms;
  std::vector<Task> tasks = plan.tasks;
  for (auto& t : tasks) {
    t.updated_by = actor.agent_id;
    t.updated_at_ms = now_ms;
    t.version = 1;
  }
  sdk::WithWriteTransaction(db, [&] {
    InsertPlan(db, header);
    InsertTasks(db, header.id, tasks);
    Audit(db, header.id, actor, now_ms, "plan.create", 0, "", std::to_string(tasks.size()) + " tasks",
          plan.source);
  });
  return header.id;
}

PlanHeader RequirePlan(SQLite::Database& db, const std::string& plan_id) {
  auto plan = LoadPlan(db, plan_id);
  if (!plan) throw sdk::ToolError("unknown plan id '" + plan_id + "': send an id from plan_status");
  return *plan;
}

CheckResult CheckTask(SQLite::Database& db, const CheckRequest& req, const Actor& actor,
                      std::int64_t now) {
  CheckResult result;
  sdk::WithWriteTransaction(db, [&] {
    result = CheckResult{};
    const PlanHeader plan = RequirePlan(db, req.plan_id);
    if (plan.archived) {
      throw sdk::ToolError("plan " + plan.id + " is archived; nothing was changed");
    }
    auto task = LoadTask(db, req.plan_id, req.task);
    if (!task) {
      const int max = MaxTaskNumber(db, req.plan_id);
      throw sdk::ToolError("unknown task " + TaskKey(req.task) + " in plan " + plan.id +
                           ": send t1 to " + TaskKey(max) + " (see plan_status)");
    }
    result.before = *task;
    if (req.expected_version && *req.expected_version != task->version) {
      throw sdk::ToolError("stale update refused: you expected v" +
                           std::to_string(*req.expected_version) + " but " + CurrentState(*task) +
                           ". Re-read plan_status and send the current expected_version if "
                           "your change still applies; nothing was changed");
    }
    const bool forced = req.force;
    std::vector<Task> all;  // loaded lazily: only done checks and the ready diff need it
    auto load_all = [&]() -> const std::vector<Task>& {
      if (all.empty()) all = LoadTasks(db, req.plan_id);
      return all;
    };
    std::vector<Blocker> blockers = OpenBlockers(db, req.plan_id);
    auto blocked_numbers = [&] {
      std::vector<int> b;
      for (const auto& x : blockers) b.push_back(x.task);
      return b;
    };
    std::vector<int> ready_before;
    bool any_change = false;

    if (req.block) {
      Blocker b;
      b.id = sdk::NewId(now);
      b.task = task->number;
      b.reason = *req.block;
      b.reported_by = actor.agent_id;
      b.reported_at_ms = now;
      InsertBlocker(db, req.plan_id, b);
      Audit(db, req.plan_id, actor, now, "blocker.report", task->number, "", b.reason, req.note);
      result.blocker_id = b.id;
      blockers.push_back(b);
      any_change = true;
    }
    if (req.unblock) {
      if (ready_before.empty()) ready_before = ReadySet(load_all(), blocked_numbers());
      result.cleared = ClearBlockers(db, req.plan_id, task->number, actor.agent_id, now, req.note);
      if (result.cleared == 0) {
        result.warnings.push_back(TaskKey(task->number) + " had no open blocker");
      } else {
        Audit(db, req.plan_id, actor, now, "blocker.clear", task->number,
              std::to_string(result.cleared) + " open", "cleared", req.note);
        blockers.erase(std::remove_if(blockers.begin(), blockers.end(),
                                      [&](const Blocker& b) { return b.task == task->number; }),
                       blockers.end());
        any_change = true;
      }
    }
    for (int n : req.met) {
      if (!MarkCriterionMet(db, req.plan_id, task->number, n, actor.agent_id, now)) {
        throw sdk::ToolError(TaskKey(task->number) + " has no criterion " + std::to_string(n) +
                             " (it has " + std::to_string(task->criteria.size()) +
                             "); nothing was changed");
      }
      Audit(db, req.plan_id, actor, now, "task.criterion", task->number, "unmet",
            "met " + std::to_string(n), req.note);
      any_change = true;
    }

    if (req.state && *req.state != task->state) {
      const TaskState to = *req.state;
      const TaskState from = task->state;
      std::string refusal;
      if (!req.expected_version) {
        if (IsFinished(from) && !IsFinished(to)) {
          refusal = "reopening a finished task needs expected_version";
        } else if (from == TaskState::kDoing && to != TaskState::kDone &&
                   task->updated_by != actor.agent_id) {
          refusal = "another agent is doing it";
        }
      }
      bool overrode = !refusal.empty();
      if (!refusal.empty() && !forced) {
        throw sdk::ToolError("refused (" + refusal + "): " + CurrentState(*task) +
                             ". Send expected_version:" + std::to_string(task->version) +
                             " if you mean to override it, or leave it; nothing was changed");
      }
      if (to == TaskState::kSkipped && req.note.empty()) {
        throw sdk::ToolError("skipping " + TaskKey(task->number) +
                             " needs a note saying why; nothing was changed");
      }
      if (to == TaskState::kDone) {
        const auto waiting = UnfinishedDependencies(*task, load_all());
        bool is_blocked = std::any_of(blockers.begin(), blockers.end(),
                                      [&](const Blocker& b) { return b.task == task->number; });
        if (!waiting.empty() || is_blocked) overrode = true;
        if ((!waiting.empty() || is_blocked) && !forced) {
          std::string why;
          if (!waiting.empty()) {
            why = "it depends on unfinished ";
            for (std::size_t i = 0; i < waiting.size(); ++i) why += (i ? ", " : "") + TaskKey(waiting[i]);
          }
          if (is_blocked) why += std::string(why.empty() ? "" : " and ") + "it has an open blocker";
          throw sdk::ToolError(TaskKey(task->number) + " cannot be done yet: " + why +
                               ". Finish those first, or send force:true with a note saying "
                               "why; nothing was changed");
        }
      }
      if (forced && req.note.empty()) {
        throw sdk::ToolError("force needs a note giving the reason (it is audited); nothing "
                             "was changed");
      }
      if (to == TaskState::kDoing && !UnfinishedDependencies(*task, load_all()).empty()) {
        result.warnings.push_back("started before its dependencies finished");
      }
      if (ready_before.empty()) ready_before = ReadySet(load_all(), blocked_numbers());
      if (!UpdateTaskState(db, req.plan_id, task->number, to, req.note, actor.agent_id, now,
                           task->version)) {
        // Unreachable under BEGIN IMMEDIATE; kept so a lost race can never be silent.
        throw sdk::ToolError("concurrent update of " + TaskKey(task->number) +
                             "; re-read plan_status and retry");
      }
      Audit(db, req.plan_id, actor, now, overrode ? "task.state.forced" : "task.state",
            task->number, std::string(TaskStateName(from)), std::string(TaskStateName(to)),
            req.note);
      result.changed_state = true;
      any_change = true;
    } else if (req.state && !req.block && !req.unblock && req.met.empty()) {
      result.warnings.push_back(TaskKey(task->number) + " was already " +
                                std::string(TaskStateName(task->state)));
    }
    if (any_change) {
      if (!result.changed_state) BumpTaskVersion(db, req.plan_id, task->number, actor.agent_id, now);
      TouchPlan(db, req.plan_id, now);
    }
    result.after = *LoadTask(db, req.plan_id, task->number);
    if (any_change && (result.changed_state || result.cleared > 0)) {
      all.clear();
      const auto ready_after = ReadySet(load_all(), blocked_numbers());
      for (int n : ready_after) {
        if (std::find(ready_before.begin(), ready_before.end(), n) == ready_before.end()) {
          result.now_ready.push_back(n);
        }
      }
    }
    result.progress = LoadProgress(db, req.plan_id);
  });
  return result;
}

ValidateResult ValidatePlanOp(SQLite::Database& db, const std::string& plan_id, bool archive,
                              bool force, const std::string& reason, const Actor& actor,
                              std::int64_t now) {
  ValidateResult result;
  auto run = [&] {
    result = ValidateResult{};
    const PlanHeader plan = RequirePlan(db, plan_id);
    if (archive && plan.archived) {
      throw sdk::ToolError("plan " + plan_id + " is already archived");
    }
    result.report = ValidatePlan(LoadTasks(db, plan_id), OpenBlockers(db, plan_id));
    result.progress = LoadProgress(db, plan_id);
    if (!archive) return;
    if (!result.report.passed) {
      if (!force || reason.empty()) {
        std::string missing;
        for (std::size_t i = 0; i < result.report.problems.size() && i < 5; ++i) {
          missing += "\n- " + result.report.problems[i].text;
        }
        if (result.report.problems.size() > 5) {
          missing += "\n- … " + std::to_string(result.report.problems.size() - 5) + " more";
        }
        throw sdk::ToolError("archive refused: validation fails with " +
                             std::to_string(result.report.problems.size()) + " problem(s)" +
                             missing +
                             "\nFix them, or send force:true with a reason; nothing was changed");
      }
      result.forced = true;
    }
    ArchivePlan(db, plan_id, reason, now);
    Audit(db, plan_id, actor, now, result.forced ? "plan.archive.forced" : "plan.archive", 0,
          "active", "archived", reason);
    result.archived = true;
  };
  if (archive) {
    sdk::WithWriteTransaction(db, run);
  } else {
    run();
  }
  return result;
}

}  // namespace kioku::procedural
