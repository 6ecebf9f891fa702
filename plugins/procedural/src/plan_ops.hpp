#pragma once
/// @file plan_ops.hpp
/// The plan operations behind the tools, each one write transaction: a refusal (sdk::
/// ToolError) rolls everything back, so nothing is ever half-written.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "model.hpp"
#include "validation.hpp"

namespace kioku::procedural {

/// Who acts, and where.
struct Actor {
  std::string agent_id;
  std::string project_id;
};

struct NewPlan {
  std::string title;
  std::string goal;
  std::vector<std::string> tags;
  /// Numbered 1..n; depends_on and parent hold numbers of this list.
  std::vector<Task> tasks;
  std::string source;  ///< "tasks" or "markdown", for the audit trail.
};

/// Checks the dependency graph (a cycle is refused, naming it with titles) and stores the
/// plan, its tasks and a plan.create audit row. Returns the new plan id (a ULID).
std::string CreatePlan(SQLite::Database& db, const NewPlan& plan, const Actor& actor,
                       std::int64_t now_ms);

/// Loads a plan by id (already resolved from a prefix); ToolError when it is not there.
PlanHeader RequirePlan(SQLite::Database& db, const std::string& plan_id);

struct CheckRequest {
  std::string plan_id;
  int task = 0;
  std::optional<TaskState> state;
  std::string note;
  /// The version the caller last saw (plan_status `v`); a different stored version refuses
  /// the write with the task's current state.
  std::optional<std::int64_t> expected_version;
  bool force = false;     ///< Override dependency/blocker/revert checks (needs `note`).
  std::optional<std::string> block;  ///< Report a blocker with this reason.
  bool unblock = false;              ///< Clear the task's open blockers.
  std::vector<int> met;              ///< Criteria (1-based) to mark met.
};

struct CheckResult {
  Task before;
  Task after;
  bool changed_state = false;
  std::string blocker_id;       ///< Set when a blocker was reported.
  int cleared = 0;              ///< Blockers cleared.
  std::vector<int> now_ready;   ///< Tasks this change made ready.
  std::vector<std::string> warnings;
  Progress progress;
};

/// Applies one plan_check. Rules, in order:
///  - the plan must not be archived; the task must exist;
///  - expected_version, when sent, must equal the stored version (else refused with the
///    current state, version, who and when);
///  - without expected_version, moving a finished task back (done/skipped → todo/doing)
///    or moving a task another agent is doing to anything but done is refused the same way — a stale
///    writer can never silently revert another's work; force with a note overrides and is
///    audited as forced;
///  - done requires every dependency finished and no open blocker on the task, unless
///    forced with a note; skipped requires a note (the reason).
/// Each change writes an audit row (task.state with from → to, blocker.report,
/// blocker.clear, task.criterion).
CheckResult CheckTask(SQLite::Database& db, const CheckRequest& request, const Actor& actor,
                      std::int64_t now_ms);

struct ValidateResult {
  ValidationReport report;
  bool archived = false;
  bool forced = false;
  Progress progress;
};

/// Validates the plan; with `archive`, archives it when validation passes, or when `force`
/// with a `reason` (audited as forced). ToolError when archiving is refused (the message
/// lists what is missing) or the plan is already archived.
ValidateResult ValidatePlanOp(SQLite::Database& db, const std::string& plan_id, bool archive,
                              bool force, const std::string& reason, const Actor& actor,
                              std::int64_t now_ms);

}  // namespace kioku::procedural
