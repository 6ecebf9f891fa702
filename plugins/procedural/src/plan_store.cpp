#include "kioku/sdk/sql.hpp"
#include "plan_store.hpp"

#include <unordered_map>

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/VariadicBind.h>
#include <nlohmann/json.hpp>

namespace kioku::procedural {
namespace {

std::vector<std::string> TagsFrom(const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& t : j) {
    if (t.is_string()) out.push_back(t.get<std::string>());
  }
  return out;
}

constexpr const char* kPlanColumns =
    "id, project_id, title, goal, tags, archived, archive_note, created_by, created_at, "
    "updated_at";

PlanHeader ReadPlan(SQLite::Statement& q, int first) {
  PlanHeader p;
  int i = first;
  p.id = q.getColumn(i++).getString();
  p.project_id = q.getColumn(i++).getString();
  p.title = q.getColumn(i++).getString();
  p.goal = q.getColumn(i++).getString();
  p.tags = TagsFrom(q.getColumn(i++).getString());
  p.archived = q.getColumn(i++).getInt() != 0;
  p.archive_note = q.getColumn(i++).getString();
  p.created_by = q.getColumn(i++).getString();
  p.created_at_ms = q.getColumn(i++).getInt64();
  p.updated_at_ms = q.getColumn(i++).getInt64();
  return p;
}

constexpr const char* kTaskColumns =
    "number, parent, title, description, state, note, version, updated_by, updated_at";

Task ReadTask(SQLite::Statement& q) {
  Task t;
  t.number = q.getColumn(0).getInt();
  if (!q.getColumn(1).isNull()) t.parent = q.getColumn(1).getInt();
  t.title = q.getColumn(2).getString();
  t.description = q.getColumn(3).getString();
  t.state = ParseTaskState(q.getColumn(4).getString()).value_or(TaskState::kTodo);
  t.note = q.getColumn(5).getString();
  t.version = q.getColumn(6).getInt64();
  t.updated_by = q.getColumn(7).getString();
  t.updated_at_ms = q.getColumn(8).getInt64();
  return t;
}

void LoadEdges(SQLite::Database& db, const std::string& plan_id, std::optional<int> only,
               const std::unordered_map<int, Task*>& by_number) {
  SQLite::Statement deps(db,
                         "SELECT task, depends_on FROM procedural_deps WHERE plan_id = ?1 AND "
                         "(?2 IS NULL OR task = ?2) ORDER BY task, depends_on");
  sdk::Bind(deps, plan_id);
  if (only) deps.bind(2, *only);
  while (deps.executeStep()) {
    const auto it = by_number.find(deps.getColumn(0).getInt());
    if (it != by_number.end()) it->second->depends_on.push_back(deps.getColumn(1).getInt());
  }
  SQLite::Statement crit(db,
                         "SELECT task, number, text, met FROM procedural_criteria WHERE plan_id "
                         "= ?1 AND (?2 IS NULL OR task = ?2) ORDER BY task, number");
  sdk::Bind(crit, plan_id);
  if (only) crit.bind(2, *only);
  while (crit.executeStep()) {
    const auto it = by_number.find(crit.getColumn(0).getInt());
    if (it == by_number.end()) continue;
    it->second->criteria.push_back(
        {crit.getColumn(1).getInt(), crit.getColumn(2).getString(), crit.getColumn(3).getInt() != 0});
  }
}

}  // namespace

void InsertPlan(SQLite::Database& db, const PlanHeader& p) {
  SQLite::Statement st(db,
                       "INSERT INTO procedural_plans (id, project_id, title, goal, tags, "
                       "archived, archive_note, created_by, created_at, updated_at) "
                       "VALUES (?, ?, ?, ?, ?, 0, '', ?, ?, ?)");
  SQLite::bind(st, p.id, p.project_id, p.title, p.goal, nlohmann::json(p.tags).dump(),
               p.created_by, p.created_at_ms, p.updated_at_ms);
  st.exec();
}

void InsertTasks(SQLite::Database& db, const std::string& plan_id, const std::vector<Task>& tasks) {
  SQLite::Statement task(db,
                         "INSERT INTO procedural_tasks (plan_id, number, parent, title, "
                         "description, state, note, version, updated_by, updated_at) VALUES "
                         "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  SQLite::Statement dep(db,
                        "INSERT OR IGNORE INTO procedural_deps (plan_id, task, depends_on) "
                        "VALUES (?, ?, ?)");
  SQLite::Statement crit(db,
                         "INSERT INTO procedural_criteria (plan_id, task, number, text) VALUES "
                         "(?, ?, ?, ?)");
  for (const auto& t : tasks) {
    task.reset();
    task.clearBindings();
    SQLite::bind(task, plan_id, t.number);
    if (t.parent) task.bind(3, *t.parent);
    task.bind(4, t.title);
    task.bind(5, t.description);
    task.bind(6, std::string(TaskStateName(t.state)));
    task.bind(7, t.note);
    task.bind(8, t.version);
    task.bind(9, t.updated_by);
    task.bind(10, t.updated_at_ms);
    task.exec();
    for (int d : t.depends_on) {
      dep.reset();
      SQLite::bind(dep, plan_id, t.number, d);
      dep.exec();
    }
    for (const auto& c : t.criteria) {
      crit.reset();
      SQLite::bind(crit, plan_id, t.number, c.number, c.text);
      crit.exec();
    }
  }
}

std::optional<PlanHeader> LoadPlan(SQLite::Database& db, const std::string& plan_id) {
  SQLite::Statement q(db, std::string("SELECT ") + kPlanColumns +
                              " FROM procedural_plans WHERE id = ?");
  sdk::Bind(q, plan_id);
  if (!q.executeStep()) return std::nullopt;
  return ReadPlan(q, 0);
}

std::vector<Task> LoadTasks(SQLite::Database& db, const std::string& plan_id) {
  std::vector<Task> tasks;
  SQLite::Statement q(db, std::string("SELECT ") + kTaskColumns +
                              " FROM procedural_tasks WHERE plan_id = ? ORDER BY number");
  sdk::Bind(q, plan_id);
  while (q.executeStep()) tasks.push_back(ReadTask(q));
  std::unordered_map<int, Task*> by_number;
  by_number.reserve(tasks.size());
  for (auto& t : tasks) by_number.emplace(t.number, &t);
  LoadEdges(db, plan_id, std::nullopt, by_number);
  return tasks;
}

std::optional<Task> LoadTask(SQLite::Database& db, const std::string& plan_id, int number) {
  SQLite::Statement q(db, std::string("SELECT ") + kTaskColumns +
                              " FROM procedural_tasks WHERE plan_id = ? AND number = ?");
  SQLite::bind(q, plan_id, number);
  if (!q.executeStep()) return std::nullopt;
  Task t = ReadTask(q);
  LoadEdges(db, plan_id, number, {{number, &t}});
  return t;
}

int MaxTaskNumber(SQLite::Database& db, const std::string& plan_id) {
  SQLite::Statement q(db, "SELECT coalesce(max(number), 0) FROM procedural_tasks WHERE plan_id = ?");
  sdk::Bind(q, plan_id);
  q.executeStep();
  return q.getColumn(0).getInt();
}

bool UpdateTaskState(SQLite::Database& db, const std::string& plan_id, int number,
                     TaskState state, const std::string& note, const std::string& agent,
                     std::int64_t now_ms, std::int64_t expected_version) {
  SQLite::Statement st(db,
                       "UPDATE procedural_tasks SET state = ?, note = ?, updated_by = ?, "
                       "updated_at = ?, version = version + 1 WHERE plan_id = ? AND number "
                       "= ? AND version = ?");
  SQLite::bind(st, std::string(TaskStateName(state)), note, agent, now_ms, plan_id, number,
               expected_version);
  return st.exec() == 1;
}

void BumpTaskVersion(SQLite::Database& db, const std::string& plan_id, int number,
                     const std::string& agent, std::int64_t now_ms) {
  SQLite::Statement st(db,
                       "UPDATE procedural_tasks SET version = version + 1, updated_by = ?, "
                       "updated_at = ? WHERE plan_id = ? AND number = ?");
  SQLite::bind(st, agent, now_ms, plan_id, number);
  st.exec();
}

bool MarkCriterionMet(SQLite::Database& db, const std::string& plan_id, int task, int number,
                      const std::string& agent, std::int64_t now_ms) {
  SQLite::Statement st(db,
                       "UPDATE procedural_criteria SET met = 1, met_by = ?, met_at = ? WHERE "
                       "plan_id = ? AND task = ? AND number = ?");
  SQLite::bind(st, agent, now_ms, plan_id, task, number);
  return st.exec() == 1;
}

std::vector<Blocker> OpenBlockers(SQLite::Database& db, const std::string& plan_id) {
  SQLite::Statement q(db,
                      "SELECT id, task, reason, reported_by, reported_at FROM "
                      "procedural_blockers WHERE plan_id = ? AND cleared_at IS NULL ORDER "
                      "BY task, id");
  sdk::Bind(q, plan_id);
  std::vector<Blocker> out;
  while (q.executeStep()) {
    out.push_back({q.getColumn(0).getString(), q.getColumn(1).getInt(),
                   q.getColumn(2).getString(), q.getColumn(3).getString(),
                   q.getColumn(4).getInt64()});
  }
  return out;
}

void InsertBlocker(SQLite::Database& db, const std::string& plan_id, const Blocker& b) {
  SQLite::Statement st(db,
                       "INSERT INTO procedural_blockers (id, plan_id, task, reason, "
                       "reported_by, reported_at) VALUES (?, ?, ?, ?, ?, ?)");
  SQLite::bind(st, b.id, plan_id, b.task, b.reason, b.reported_by, b.reported_at_ms);
  st.exec();
}

int ClearBlockers(SQLite::Database& db, const std::string& plan_id, int task,
                  const std::string& agent, std::int64_t now_ms, const std::string& note) {
  SQLite::Statement st(db,
                       "UPDATE procedural_blockers SET cleared_by = ?, cleared_at = ?, "
                       "clear_note = ? WHERE plan_id = ? AND task = ? AND cleared_at IS NULL");
  SQLite::bind(st, agent, now_ms, note, plan_id, task);
  return st.exec();
}

void TouchPlan(SQLite::Database& db, const std::string& plan_id, std::int64_t now_ms) {
  SQLite::Statement st(db, "UPDATE procedural_plans SET updated_at = ? WHERE id = ?");
  SQLite::bind(st, now_ms, plan_id);
  st.exec();
}

void ArchivePlan(SQLite::Database& db, const std::string& plan_id, const std::string& note,
                 std::int64_t now_ms) {
  SQLite::Statement st(db,
                       "UPDATE procedural_plans SET archived = 1, archive_note = ?, "
                       "updated_at = ? WHERE id = ?");
  SQLite::bind(st, note, now_ms, plan_id);
  st.exec();
}

void AppendAudit(SQLite::Database& db, const std::string& plan_id, const AuditEntry& e) {
  SQLite::Statement st(db,
                       "INSERT INTO procedural_audit (plan_id, task, agent_id, at, action, "
                       "from_value, to_value, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  SQLite::bind(st, plan_id, e.task, e.agent_id, e.at_ms, e.action, e.from, e.to, e.note);
  st.exec();
}

std::vector<AuditEntry> LoadAudit(SQLite::Database& db, const std::string& plan_id, int limit) {
  SQLite::Statement q(db,
                      "SELECT seq, at, agent_id, action, task, from_value, to_value, note "
                      "FROM procedural_audit WHERE plan_id = ? ORDER BY seq DESC LIMIT ?");
  SQLite::bind(q, plan_id, limit);
  std::vector<AuditEntry> out;
  while (q.executeStep()) {
    out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getInt64(),
                   q.getColumn(2).getString(), q.getColumn(3).getString(),
                   q.getColumn(4).getInt(), q.getColumn(5).getString(),
                   q.getColumn(6).getString(), q.getColumn(7).getString()});
  }
  return out;
}

namespace {

// Per-plan counts as columns: total, todo, doing, done, skipped, open blockers.
constexpr const char* kProgressColumns =
    "(SELECT count(*) FROM procedural_tasks t WHERE t.plan_id = p.id), "
    "(SELECT count(*) FROM procedural_tasks t WHERE t.plan_id = p.id AND t.state = 'todo'), "
    "(SELECT count(*) FROM procedural_tasks t WHERE t.plan_id = p.id AND t.state = 'doing'), "
    "(SELECT count(*) FROM procedural_tasks t WHERE t.plan_id = p.id AND t.state = 'done'), "
    "(SELECT count(*) FROM procedural_tasks t WHERE t.plan_id = p.id AND t.state = 'skipped'), "
    "(SELECT count(*) FROM procedural_blockers b WHERE b.plan_id = p.id AND b.cleared_at IS "
    "NULL)";

Progress ReadProgress(SQLite::Statement& q, int first) {
  Progress g;
  g.total = q.getColumn(first).getInt();
  g.todo = q.getColumn(first + 1).getInt();
  g.doing = q.getColumn(first + 2).getInt();
  g.done = q.getColumn(first + 3).getInt();
  g.skipped = q.getColumn(first + 4).getInt();
  g.open_blockers = q.getColumn(first + 5).getInt();
  return g;
}

}  // namespace

Progress LoadProgress(SQLite::Database& db, const std::string& plan_id) {
  SQLite::Statement q(db, std::string("SELECT ") + kProgressColumns +
                              " FROM procedural_plans p WHERE p.id = ?");
  sdk::Bind(q, plan_id);
  if (!q.executeStep()) return {};
  return ReadProgress(q, 0);
}

std::vector<PlanRow> ListPlans(SQLite::Database& db, const std::string& project_id,
                               std::optional<PlanStatus> status, bool include_archived,
                               const std::string& before_id, int limit) {
  // blocked/done/active are derived from the counts, so they are filtered here while
  // stepping (a page stays full; the scan is bounded by the project's plans).
  const std::string q_sql =
      std::string("SELECT p.id, p.project_id, p.title, p.goal, p.tags, p.archived, "
                  "p.archive_note, p.created_by, p.created_at, p.updated_at, ") +
      kProgressColumns +
      " FROM procedural_plans p WHERE p.project_id = ?1 AND (?2 = '' OR p.id < ?2)";
  std::string where = " AND p.archived = 0";
  if (status && *status == PlanStatus::kArchived) where = " AND p.archived = 1";
  if (include_archived && !status) where.clear();
  SQLite::Statement q(db, q_sql + where + " ORDER BY p.id DESC");
  SQLite::bind(q, project_id, before_id);
  std::vector<PlanRow> out;
  while (q.executeStep() && static_cast<int>(out.size()) < limit) {
    PlanRow row{ReadPlan(q, 0), ReadProgress(q, 10)};
    if (status && PlanStatusOf(row.plan, row.progress) != *status) continue;
    out.push_back(std::move(row));
  }
  return out;
}

std::optional<std::string> LatestPlanId(SQLite::Database& db, const std::string& project_id) {
  SQLite::Statement q(db,
                      "SELECT id FROM procedural_plans WHERE project_id = ? AND archived = 0 "
                      "ORDER BY updated_at DESC, id DESC LIMIT 1");
  sdk::Bind(q, project_id);
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getString();
}

}  // namespace kioku::procedural
