#pragma once
/// @file model.hpp
/// The procedural layer's domain: plans made of tasks (with dependencies, acceptance
/// criteria and blockers), their audit trail, and reusable versioned procedures.
/// Plain data; storage is in plan_store / procedure_store, rules in graph / validation /
/// plan_ops.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::procedural {

/// State of one task. done and skipped are *finished*: they satisfy dependencies.
enum class TaskState { kTodo, kDoing, kDone, kSkipped };

std::string_view TaskStateName(TaskState state);
std::optional<TaskState> ParseTaskState(std::string_view name);
inline bool IsFinished(TaskState s) { return s == TaskState::kDone || s == TaskState::kSkipped; }

/// One acceptance criterion of a task; `number` is 1-based within the task.
struct Criterion {
  int number = 0;
  std::string text;
  bool met = false;
};

/// One task. `number` is the task's id within its plan (shown as "t<number>"), assigned in
/// creation order and never reused, so two tasks with the same title are told apart.
struct Task {
  int number = 0;
  std::optional<int> parent;  ///< Enclosing task of a nested Markdown item.
  std::string title;
  std::string description;
  TaskState state = TaskState::kTodo;
  std::string note;            ///< Note of the latest state change (reason of a skip).
  std::int64_t version = 1;    ///< Bumped on every change; the optimistic-concurrency token.
  std::string updated_by;
  std::int64_t updated_at_ms = 0;
  std::vector<int> depends_on;  ///< Task numbers this task waits for.
  std::vector<Criterion> criteria;
};

/// "t<number>".
std::string TaskKey(int number);

struct Blocker {
  std::string id;
  int task = 0;
  std::string reason;
  std::string reported_by;
  std::int64_t reported_at_ms = 0;
};

/// Stored plan status is only active or archived; blocked and done are derived
/// (an open blocker; every task finished) — see PlanStatusOf.
enum class PlanStatus { kActive, kBlocked, kDone, kArchived };
std::string_view PlanStatusName(PlanStatus status);
std::optional<PlanStatus> ParsePlanStatus(std::string_view name);

struct PlanHeader {
  std::string id;  ///< ULID.
  std::string project_id;
  std::string title;
  std::string goal;
  std::vector<std::string> tags;
  bool archived = false;
  std::string created_by;
  std::int64_t created_at_ms = 0;
  std::int64_t updated_at_ms = 0;
  std::string archive_note;
};

/// Counts over a plan's tasks.
struct Progress {
  int total = 0;
  int todo = 0;
  int doing = 0;
  int done = 0;
  int skipped = 0;
  int open_blockers = 0;
  /// floor(100 · (done + skipped) / total); 0 for a plan without tasks. Floor, so a plan
  /// shows 100 only when every task is finished.
  int Percent() const;
};

PlanStatus PlanStatusOf(const PlanHeader& plan, const Progress& progress);

/// One row of the audit trail: who changed what, when, from → to.
struct AuditEntry {
  std::int64_t seq = 0;
  std::int64_t at_ms = 0;
  std::string agent_id;
  std::string action;  ///< plan.create, task.state, task.criteria, blocker.report, …
  int task = 0;        ///< 0 = the plan itself.
  std::string from;
  std::string to;
  std::string note;
};

/// One step of a procedure.
struct Step {
  std::string text;
  std::string command;  ///< Optional shell command or tool call; empty when none.
};

/// One version of a procedure. Saving an existing (scope, name) makes version + 1 and
/// keeps the older ones.
struct Procedure {
  std::string id;          ///< ULID of this version.
  std::string project_id;  ///< "" = global scope.
  std::string name;
  int version = 1;
  std::string when;  ///< When to use it (trigger description).
  std::vector<Step> steps;
  std::vector<std::string> tags;
  std::string created_by;
  std::int64_t created_at_ms = 0;
  bool current = true;
};

/// Runs recorded for a procedure (all versions of one name in one scope).
struct RunStats {
  std::int64_t runs = 0;
  std::int64_t successes = 0;
  /// Laplace's rule of succession, (s + 1) / (n + 2): an unproven procedure scores 0.5 and
  /// one lucky success does not outrank a long record (P.-S. Laplace, "Essai philosophique
  /// sur les probabilités", 1814).
  double Smoothed() const;
};

}  // namespace kioku::procedural
