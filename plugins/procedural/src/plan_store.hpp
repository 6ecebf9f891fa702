#pragma once
/// @file plan_store.hpp
/// Reads and writes of the plan tables (schema.hpp); the only place plan SQL lives.
/// Functions take the calling thread's connection; writers expect to run inside
/// sdk::WithWriteTransaction (the caller's, so one tool call is one transaction).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "model.hpp"

namespace kioku::procedural {

void InsertPlan(SQLite::Database& db, const PlanHeader& plan);
/// Inserts tasks (numbers, parents, dependencies and criteria as given) for `plan_id`.
void InsertTasks(SQLite::Database& db, const std::string& plan_id, const std::vector<Task>& tasks);

std::optional<PlanHeader> LoadPlan(SQLite::Database& db, const std::string& plan_id);
/// Every task of the plan in number order, with dependencies and criteria (three queries).
std::vector<Task> LoadTasks(SQLite::Database& db, const std::string& plan_id);
/// One task with its dependencies and criteria, or nullopt.
std::optional<Task> LoadTask(SQLite::Database& db, const std::string& plan_id, int number);
/// Highest task number of the plan (0 when none).
int MaxTaskNumber(SQLite::Database& db, const std::string& plan_id);

/// Writes state/note/updated_by/updated_at and bumps the version, only when the stored
/// version still equals `expected_version`. Returns false when it did not (a concurrent
/// change won).
bool UpdateTaskState(SQLite::Database& db, const std::string& plan_id, int number,
                     TaskState state, const std::string& note, const std::string& agent,
                     std::int64_t now_ms, std::int64_t expected_version);
/// Bumps the task's version (criteria or blockers changed).
void BumpTaskVersion(SQLite::Database& db, const std::string& plan_id, int number,
                     const std::string& agent, std::int64_t now_ms);
/// Marks criterion `number` of `task` met; false when it does not exist.
bool MarkCriterionMet(SQLite::Database& db, const std::string& plan_id, int task, int number,
                      const std::string& agent, std::int64_t now_ms);

std::vector<Blocker> OpenBlockers(SQLite::Database& db, const std::string& plan_id);
void InsertBlocker(SQLite::Database& db, const std::string& plan_id, const Blocker& blocker);
/// Clears every open blocker of `task`; returns how many.
int ClearBlockers(SQLite::Database& db, const std::string& plan_id, int task,
                  const std::string& agent, std::int64_t now_ms, const std::string& note);

void TouchPlan(SQLite::Database& db, const std::string& plan_id, std::int64_t now_ms);
void ArchivePlan(SQLite::Database& db, const std::string& plan_id, const std::string& note,
                 std::int64_t now_ms);

void AppendAudit(SQLite::Database& db, const std::string& plan_id, const AuditEntry& entry);
/// Newest `limit` audit rows, newest first.
std::vector<AuditEntry> LoadAudit(SQLite::Database& db, const std::string& plan_id, int limit);

Progress LoadProgress(SQLite::Database& db, const std::string& plan_id);

struct PlanRow {
  PlanHeader plan;
  Progress progress;
};
/// One page of the project's plans, newest first, whose derived status is `status`
/// (nullopt = any; archived plans only when `include_archived` or status is archived), with
/// ids below `before_id` ("" = from the newest).
std::vector<PlanRow> ListPlans(SQLite::Database& db, const std::string& project_id,
                               std::optional<PlanStatus> status, bool include_archived,
                               const std::string& before_id, int limit);
/// The unarchived plan of the project changed most recently, if any.
std::optional<std::string> LatestPlanId(SQLite::Database& db, const std::string& project_id);

}  // namespace kioku::procedural
