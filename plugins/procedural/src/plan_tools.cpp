// plan_create, plan_status, plan_check, plan_validate: argument parsing and compact
// results around plan_ops (rules) and plan_store (SQL).
#include <algorithm>
#include <unordered_map>

#include "graph.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/text.hpp"
#include "markdown.hpp"
#include "plan_ops.hpp"
#include "plan_store.hpp"
#include "kioku/sdk/args.hpp"
#include "tool_support.hpp"

namespace kioku::procedural {
namespace {

const Json kTaskRefSchema = {{"type", Json::array({"string", "integer"})}};

const char* StateBox(TaskState s) {
  switch (s) {
    case TaskState::kTodo: return "[ ]";
    case TaskState::kDoing: return "[~]";
    case TaskState::kDone: return "[x]";
    case TaskState::kSkipped: return "[-]";
  }
  return "[ ]";
}

std::string ResolvePlan(SQLite::Database& db, const Json& args) {
  const auto ref = args.value("plan", std::string());
  return sdk::ResolveIdPrefix(db, "procedural_plans", "id", ref, "plan");
}

Json ProgressJson(const Progress& p) {
  return {{"percent", p.Percent()}, {"total", p.total}, {"todo", p.todo},
          {"doing", p.doing},      {"done", p.done},   {"skipped", p.skipped},
          {"blockers", p.open_blockers}};
}

std::string ProgressText(const Progress& p) {
  std::string s = std::to_string(p.done + p.skipped) + "/" + std::to_string(p.total) +
                  " finished (" + std::to_string(p.Percent()) + "%)";
  if (p.open_blockers > 0) s += ", " + std::to_string(p.open_blockers) + " open blocker(s)";
  return s;
}

std::string KeyList(const std::vector<int>& numbers) {
  std::string s;
  for (std::size_t i = 0; i < numbers.size(); ++i) s += (i ? "," : "") + TaskKey(numbers[i]);
  return s;
}

Json KeysJson(const std::vector<int>& numbers) {
  Json a = Json::array();
  for (int n : numbers) a.push_back(TaskKey(n));
  return a;
}

// ---------------------------------------------------------------- plan_create

NewPlan PlanFromMarkdown(const std::string& markdown) {
  ParsedChecklist list;
  try {
    list = ParseChecklist(markdown, kMaxTasks);
  } catch (const MarkdownError& e) {
    throw sdk::ToolError(std::string(e.what()) + "; nothing was created");
  }
  NewPlan plan;
  plan.title = list.title;
  plan.goal = list.goal;
  plan.source = "markdown";
  std::unordered_map<int, int> number_of_key;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    number_of_key.emplace(list.items[i].key, static_cast<int>(i + 1));
  }
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const auto& item = list.items[i];
    const std::string where = "Markdown line " + std::to_string(item.line);
    Task t;
    t.number = static_cast<int>(i + 1);
    t.title = CheckedText(item.title, where + " title", kMaxTitleBytes);
    t.description = CheckedText(item.description, where + " description", kMaxTextBytes);
    t.state = item.state;
    t.note = CheckedText(item.reason, where + " reason", kMaxNoteBytes);
    if (item.parent) t.parent = static_cast<int>(*item.parent + 1);
    for (int k : item.after) t.depends_on.push_back(number_of_key.at(k));
    plan.tasks.push_back(std::move(t));
  }
  // A parent waits for its subtasks.
  for (const auto& t : std::vector<Task>(plan.tasks)) {
    if (t.parent) plan.tasks[*t.parent - 1].depends_on.push_back(t.number);
  }
  return plan;
}

NewPlan PlanFromTasks(const Json& tasks) {
  NewPlan plan;
  plan.source = "tasks";
  CheckCount(tasks, kMaxTasks, "tasks");
  const int n = static_cast<int>(tasks.size());
  for (int i = 0; i < n; ++i) {
    const Json& item = tasks[static_cast<std::size_t>(i)];
    const std::string where = "tasks[" + std::to_string(i) + "]";
    Task t;
    t.number = i + 1;
    t.title = CheckedText(item.value("title", ""), where + ".title", kMaxTitleBytes);
    if (t.title.empty()) throw sdk::ToolError(where + ".title is empty: give every task a title");
    t.description = CheckedText(item.value("description", ""), where + ".description", kMaxTextBytes);
    if (auto d = item.find("depends_on"); d != item.end()) {
      CheckCount(*d, 100, where + ".depends_on");
      for (std::size_t j = 0; j < d->size(); ++j) {
        const std::string field = where + ".depends_on[" + std::to_string(j) + "]";
        const int ref = TaskRef((*d)[j], field);
        if (ref > n) {
          throw sdk::ToolError(field + " names " + TaskKey(ref) + ", but the plan has t1 to " +
                               TaskKey(n) + " (tasks are numbered by position from 1); "
                               "nothing was created");
        }
        if (std::find(t.depends_on.begin(), t.depends_on.end(), ref) == t.depends_on.end()) {
          t.depends_on.push_back(ref);
        }
      }
    }
    if (auto c = item.find("criteria"); c != item.end()) {
      CheckCount(*c, kMaxCriteria, where + ".criteria");
      for (std::size_t j = 0; j < c->size(); ++j) {
        auto text = CheckedText((*c)[j].get<std::string>(),
                                where + ".criteria[" + std::to_string(j) + "]", kMaxTitleBytes);
        if (text.empty()) continue;
        t.criteria.push_back({static_cast<int>(t.criteria.size() + 1), std::move(text), false});
      }
    }
    plan.tasks.push_back(std::move(t));
  }
  return plan;
}

sdk::ToolResult PlanCreate(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  sdk::ScreenSecrets(args);
  const bool has_tasks = args.contains("tasks");
  const auto markdown = Text(args, "markdown", kMaxMarkdownBytes);
  if (has_tasks == markdown.has_value()) {
    throw sdk::ToolError("send either tasks (a list) or markdown (a checklist), not " +
                         std::string(has_tasks ? "both" : "neither"));
  }
  NewPlan plan = markdown ? PlanFromMarkdown(*markdown) : PlanFromTasks(args.at("tasks"));
  if (auto title = Text(args, "title", kMaxTitleBytes); title && !title->empty()) {
    plan.title = *title;
  }
  if (plan.title.empty()) {
    throw sdk::ToolError("the plan needs a title: send title (or start the Markdown with '# Title')");
  }
  plan.title = sdk::CollapseWhitespace(plan.title);
  if (auto goal = Text(args, "goal", kMaxTextBytes)) plan.goal = *goal;
  plan.goal = CheckedText(plan.goal, "goal", kMaxTextBytes);
  plan.tags = TagsArg(args);
  if (plan.tasks.empty()) {
    throw sdk::ToolError("a plan needs at least one task: send tasks or checklist items");
  }
  const Actor actor = ActorOf(call);
  const std::string id = CreatePlan(ctx.Db(), plan, actor, ctx.Now());
  const auto ready = ReadySet(plan.tasks, {});
  std::vector<int> shown(ready.begin(), ready.begin() + std::min<std::size_t>(ready.size(), kReadyShown));
  std::string text = "created plan " + id + " \"" + sdk::TruncateUtf8(plan.title, 80) + "\" with " +
                     std::to_string(plan.tasks.size()) + " tasks (t1–" +
                     TaskKey(static_cast<int>(plan.tasks.size())) + "); ready: " +
                     (shown.empty() ? "none" : KeyList(shown));
  if (ready.size() > shown.size()) text += " +" + std::to_string(ready.size() - shown.size());
  return sdk::ToolResult::Ok(text, {{"plan_id", id},
                                    {"tasks", plan.tasks.size()},
                                    {"ready", KeysJson(shown)}});
}

// ---------------------------------------------------------------- plan_status

Json ReadyJson(const std::vector<int>& ready, const std::unordered_map<int, const Task*>& by_number) {
  Json out = Json::array();
  for (int n : ready) out.push_back({{"id", TaskKey(n)}, {"title", by_number.at(n)->title}});
  return out;
}

Json TaskJson(const Task& t) {
  Json j = {{"id", TaskKey(t.number)}, {"title", t.title},
            {"state", TaskStateName(t.state)}, {"v", t.version}};
  if (t.parent) j["parent"] = TaskKey(*t.parent);
  if (!t.depends_on.empty()) j["after"] = KeysJson(t.depends_on);
  if (!t.description.empty()) j["description"] = sdk::TruncateUtf8(t.description, 300);
  if (!t.note.empty()) j["note"] = sdk::TruncateUtf8(t.note, 200);
  if (t.state == TaskState::kDoing) j["by"] = t.updated_by;
  if (!t.criteria.empty()) {
    Json c = Json::array();
    for (const auto& x : t.criteria) c.push_back({{"n", x.number}, {"text", x.text}, {"met", x.met}});
    j["criteria"] = std::move(c);
  }
  return j;
}

std::string TaskLine(const Task& t) {
  std::string s = TaskKey(t.number) + " " + StateBox(t.state) + " " +
                  sdk::TruncateUtf8(t.title, 100) + " v" + std::to_string(t.version);
  if (t.state == TaskState::kDoing) s += " (" + t.updated_by + ")";
  if (!t.depends_on.empty()) s += " ←" + KeyList(t.depends_on);
  if (!t.criteria.empty()) {
    const auto met = std::count_if(t.criteria.begin(), t.criteria.end(), [](const Criterion& c) { return c.met; });
    s += " criteria " + std::to_string(met) + "/" + std::to_string(t.criteria.size());
  }
  return s;
}

sdk::ToolResult PlanList(ToolContext& ctx, const Json& args, const Actor& actor) {
  const std::string status_arg = args.value("status", "");
  const std::optional<PlanStatus> status =
      status_arg.empty() || status_arg == "all" ? std::nullopt : ParsePlanStatus(status_arg);
  const int offset = static_cast<int>(IntArg(args, "offset", 0, 1'000'000, 0));
  const int limit = static_cast<int>(IntArg(args, "limit", 1, 500, 20));
  // Offsets page over the filtered list: read offset + limit + 1 rows.
  auto rows = ListPlans(ctx.Db(), actor.project_id, status, status_arg == "all", "",
                        offset + limit + 1);
  const bool more = static_cast<int>(rows.size()) > offset + limit;
  Json plans = Json::array();
  std::string text;
  for (int i = offset; i < static_cast<int>(rows.size()) && i < offset + limit; ++i) {
    const auto& r = rows[static_cast<std::size_t>(i)];
    const auto st = PlanStatusOf(r.plan, r.progress);
    plans.push_back({{"id", r.plan.id}, {"title", r.plan.title}, {"status", PlanStatusName(st)},
                     {"percent", r.progress.Percent()}, {"total", r.progress.total},
                     {"blockers", r.progress.open_blockers}, {"updated_at", Rfc(r.plan.updated_at_ms)}});
    text += r.plan.id + " " + std::string(PlanStatusName(st)) + " " +
            std::to_string(r.progress.Percent()) + "% of " + std::to_string(r.progress.total) +
            " \"" + sdk::TruncateUtf8(r.plan.title, 80) + "\"\n";
  }
  if (plans.empty()) text = "no " + (status_arg.empty() ? std::string("open") : status_arg) + " plans in this project\n";
  Json out = {{"plans", std::move(plans)}};
  if (more) {
    out["next_offset"] = offset + limit;
    text += "more: offset " + std::to_string(offset + limit) + "\n";
  }
  text.pop_back();
  return sdk::ToolResult::Ok(text, std::move(out));
}

sdk::ToolResult PlanStatusTool(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const Actor actor = ActorOf(call);
  auto& db = ctx.Db();
  if (!args.contains("plan")) return PlanList(ctx, args, actor);
  std::string id;
  if (args.at("plan") == "latest") {
    const auto latest = LatestPlanId(db, actor.project_id);
    if (!latest) return sdk::ToolResult::Ok("no open plan in this project", {{"plan", nullptr}});
    id = *latest;
  } else {
    id = ResolvePlan(db, args);
  }
  const PlanHeader plan = RequirePlan(db, id);
  const auto tasks = LoadTasks(db, id);
  const auto blockers = OpenBlockers(db, id);
  std::vector<int> blocked;
  for (const auto& b : blockers) blocked.push_back(b.task);
  Progress progress;
  progress.total = static_cast<int>(tasks.size());
  for (const auto& t : tasks) {
    switch (t.state) {
      case TaskState::kTodo: ++progress.todo; break;
      case TaskState::kDoing: ++progress.doing; break;
      case TaskState::kDone: ++progress.done; break;
      case TaskState::kSkipped: ++progress.skipped; break;
    }
  }
  progress.open_blockers = static_cast<int>(blockers.size());
  const auto status = PlanStatusOf(plan, progress);
  const auto ready = ReadySet(tasks, blocked);
  const std::vector<int> ready_shown(ready.begin(),
                                     ready.begin() + std::min<std::size_t>(ready.size(), kReadyShown));
  std::unordered_map<int, const Task*> by_number;
  for (const auto& t : tasks) by_number.emplace(t.number, &t);

  std::string text = "plan " + plan.id + " \"" + sdk::TruncateUtf8(plan.title, 100) + "\" — " +
                     std::string(PlanStatusName(status)) + ", " + ProgressText(progress);
  if (!plan.goal.empty()) text += "\ngoal: " + sdk::TruncateUtf8(plan.goal, 300);
  text += "\nready:";
  if (ready_shown.empty()) text += " none";
  for (int n : ready_shown) text += " " + TaskKey(n) + " " + sdk::TruncateUtf8(by_number[n]->title, 60) + ";";
  if (ready.size() > ready_shown.size()) text += " +" + std::to_string(ready.size() - ready_shown.size());
  Json blockers_json = Json::array();
  for (const auto& b : blockers) {
    text += "\nblocker " + TaskKey(b.task) + ": " + sdk::TruncateUtf8(b.reason, 200) + " (" +
            b.reported_by + ")";
    blockers_json.push_back({{"task", TaskKey(b.task)}, {"reason", b.reason},
                             {"by", b.reported_by}, {"at", Rfc(b.reported_at_ms)}});
  }
  Json out = {{"plan",
               {{"id", plan.id}, {"title", plan.title}, {"goal", plan.goal},
                {"status", PlanStatusName(status)}, {"tags", plan.tags},
                {"progress", ProgressJson(progress)}, {"updated_at", Rfc(plan.updated_at_ms)}}},
              {"ready", ReadyJson(ready_shown, by_number)},
              {"blockers", std::move(blockers_json)}};
  const auto offset = static_cast<std::size_t>(IntArg(args, "offset", 0, 1'000'000, 0));
  const std::size_t room = sdk::ResultRoom(call);
  const std::size_t used = 2 * text.size() + sdk::DumpJson(out).size();  // text + its JSON twin
  const std::size_t left = room > used ? room - used : 0;
  const std::size_t from = std::min(offset, tasks.size());
  if (args.value("markdown", false)) {
    // Pages of whole tasks (offset/limit, default all): the largest run from `offset` whose
    // checklist fits, sent twice (text and structured). Title and goal open the first page.
    const std::size_t limit = static_cast<std::size_t>(
        IntArg(args, "limit", 1, kMaxTasks, static_cast<std::int64_t>(std::max<std::size_t>(tasks.size(), 1))));
    auto checklist = [&](std::size_t n) {
      const std::vector<Task> slice(tasks.begin() + static_cast<std::ptrdiff_t>(from),
                                    tasks.begin() + static_cast<std::ptrdiff_t>(from + n));
      return WriteChecklist(from == 0 ? plan.title : "", from == 0 ? plan.goal : "", slice);
    };
    std::size_t n = std::min(limit, tasks.size() - from);
    std::string md = checklist(n);
    if (2 * md.size() > left && n > 1) {
      std::size_t lo = 1, hi = n - 1;  // checklist(hi + 1) is known not to fit
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        if (2 * checklist(mid).size() <= left) lo = mid; else hi = mid - 1;
      }
      n = lo;
      md = checklist(n);
    }
    const std::size_t omitted = tasks.size() - from - n;
    text += "\n\n" + md;
    out["markdown"] = md;
    out["omitted"] = omitted;
    if (omitted > 0) {
      out["next_offset"] = from + n;
      text += "\n… " + std::to_string(omitted) + " more tasks" +
              (n < limit ? std::string(" (result size cap)") : std::string()) +
              ": plan_status markdown:true offset " + std::to_string(from + n);
    }
  } else {
    const int limit = static_cast<int>(IntArg(args, "limit", 1, 500, kDefaultTaskPage));
    sdk::ResultPage page(from, static_cast<std::size_t>(limit), left);
    Json list = Json::array();
    for (std::size_t i = from; i < tasks.size(); ++i) {
      if (page.Omitted() > 0) {
        page.Offer(0);  // past the page: counted only
        continue;
      }
      Json j = TaskJson(tasks[i]);
      std::string line = "\n" + TaskLine(tasks[i]);
      if (!page.Offer(sdk::RowBytes(j, line))) continue;
      text += line;
      list.push_back(std::move(j));
    }
    out["omitted"] = page.Omitted();
    if (page.Omitted() > 0) {
      out["next_offset"] = from + page.Shown();
      text += "\n… " + std::to_string(page.Omitted()) + " more tasks" +
              (page.CutByRoom() ? std::string(" (result size cap)") : std::string()) + ": offset " +
              std::to_string(from + page.Shown());
    }
    out["tasks"] = std::move(list);
  }
  if (const int n = static_cast<int>(IntArg(args, "audit", 0, 200, 0)); n > 0) {
    Json audit = Json::array();
    text += "\naudit (newest first):";
    for (const auto& e : LoadAudit(db, id, n)) {
      std::string line = Rfc(e.at_ms) + " " + e.agent_id + " " + e.action;
      if (e.task > 0) line += " " + TaskKey(e.task);
      if (!e.from.empty() || !e.to.empty()) line += " " + e.from + "→" + e.to;
      if (!e.note.empty()) line += " \"" + sdk::TruncateUtf8(e.note, 120) + "\"";
      text += "\n" + line;
      audit.push_back({{"at", Rfc(e.at_ms)}, {"by", e.agent_id}, {"action", e.action},
                       {"task", e.task > 0 ? Json(TaskKey(e.task)) : Json(nullptr)},
                       {"from", e.from}, {"to", e.to}, {"note", e.note}});
    }
    out["audit"] = std::move(audit);
  }
  return sdk::ToolResult::Ok(text, std::move(out));
}

// ---------------------------------------------------------------- plan_check

sdk::ToolResult PlanCheck(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  sdk::ScreenSecrets(args);
  auto& db = ctx.Db();
  CheckRequest req;
  req.plan_id = ResolvePlan(db, args);
  req.task = TaskRef(args.at("task"), "task");
  if (auto s = args.find("state"); s != args.end()) req.state = ParseTaskState(s->get<std::string>());
  req.note = Text(args, "note", kMaxNoteBytes).value_or("");
  if (args.contains("expected_version")) {
    req.expected_version = IntArg(args, "expected_version", 1, 1'000'000'000'000, 1);
  }
  req.force = args.value("force", false);
  if (auto b = Text(args, "block", kMaxNoteBytes)) {
    if (b->empty()) throw sdk::ToolError("block needs the reason the task is blocked");
    req.block = *b;
  }
  req.unblock = args.value("unblock", false);
  if (req.block && req.unblock) throw sdk::ToolError("send block or unblock, not both");
  if (auto m = args.find("met"); m != args.end()) CheckCount(*m, kMaxCriteria, "met");
  req.met = IntListArg(args, "met", 1, kMaxCriteria);
  if (!req.state && !req.block && !req.unblock && req.met.empty()) {
    throw sdk::ToolError("nothing to do: send state, block, unblock or met");
  }
  const auto r = CheckTask(db, req, ActorOf(call), ctx.Now());
  const std::string key = TaskKey(r.after.number);
  std::string text;
  if (r.changed_state) {
    text = key + " " + std::string(TaskStateName(r.before.state)) + " → " +
           std::string(TaskStateName(r.after.state));
  } else {
    text = key + " " + std::string(TaskStateName(r.after.state));
  }
  text += " (v" + std::to_string(r.after.version) + ")";
  if (!r.blocker_id.empty()) text += "; blocker reported";
  if (r.cleared > 0) text += "; " + std::to_string(r.cleared) + " blocker(s) cleared";
  if (!req.met.empty()) text += "; criteria met: " + std::to_string(req.met.size());
  for (const auto& w : r.warnings) text += "; note: " + w;
  if (!r.now_ready.empty()) text += "; now ready: " + KeyList(r.now_ready);
  text += "; plan " + ProgressText(r.progress);
  Json out = {{"task", {{"id", key}, {"state", TaskStateName(r.after.state)}, {"v", r.after.version}}},
              {"from", TaskStateName(r.before.state)},
              {"now_ready", KeysJson(r.now_ready)},
              {"progress", ProgressJson(r.progress)}};
  if (!r.blocker_id.empty()) out["blocker_id"] = r.blocker_id;
  return sdk::ToolResult::Ok(text, std::move(out));
}

// ---------------------------------------------------------------- plan_validate

sdk::ToolResult PlanValidate(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  sdk::ScreenSecrets(args);
  auto& db = ctx.Db();
  const std::string id = ResolvePlan(db, args);
  const bool archive = args.value("archive", false);
  const bool force = args.value("force", false);
  const std::string reason = Text(args, "reason", kMaxNoteBytes).value_or("");
  if (force && reason.empty()) {
    throw sdk::ToolError("force needs a reason (it is audited); nothing was changed");
  }
  const auto r = ValidatePlanOp(db, id, archive, force, reason, ActorOf(call), ctx.Now());
  std::string text = std::string(r.report.passed ? "valid" : "not valid") + ": " + ProgressText(r.progress);
  Json problems = Json::array();
  constexpr std::size_t kShown = 50;
  for (std::size_t i = 0; i < r.report.problems.size() && i < kShown; ++i) {
    const auto& p = r.report.problems[i];
    text += "\n- " + p.text;
    problems.push_back({{"kind", p.kind}, {"task", p.task > 0 ? Json(TaskKey(p.task)) : Json(nullptr)},
                        {"text", p.text}});
  }
  if (r.report.problems.size() > kShown) {
    text += "\n- … " + std::to_string(r.report.problems.size() - kShown) + " more";
  }
  if (r.archived) text += std::string("\narchived") + (r.forced ? " (forced: " + reason + ")" : "");
  return sdk::ToolResult::Ok(text, {{"passed", r.report.passed},
                                    {"problem_count", r.report.problems.size()},
                                    {"problems", std::move(problems)},
                                    {"archived", r.archived}});
}

}  // namespace

void RegisterPlanTools(sdk::Registrar& registrar, ToolContext& ctx) {
  using namespace schema;
  const Json plan_ref = Type("string");
  {
    sdk::ToolSpec spec;
    spec.name = "plan_create";
    spec.description =
        "Create a plan from tasks or a Markdown checklist (nested items = subtasks). Tasks "
        "are t1, t2… by position, as depends_on names them.";
    const Json task = Object({{"title", Type("string")},
                              {"description", Type("string")},
                              {"depends_on", ArrayOf(kTaskRefSchema)},
                              {"criteria", ArrayOf(Type("string"))}},
                             {"title"});
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = Object({{"title", Type("string")},
                               {"goal", Type("string")},
                               {"tasks", ArrayOf(task)},
                               {"markdown", Type("string")},
                               {"tags", ArrayOf(Type("string"))}});
      t.output_schema = Output();
    };
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return PlanCreate(ctx, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "plan_status";
    spec.description =
        "A plan (id, prefix or \"latest\"): progress, ready tasks, blockers, tasks with "
        "version v; audit:N last changes; markdown:true exports it. No plan: list plans.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = Object({{"plan", Type("string")},
                               {"status", Enum({"active", "blocked", "done", "archived", "all"})},
                               {"markdown", Bool()},
                               {"audit", Type("integer")},
                               {"offset", Type("integer")},
                               {"limit", Type("integer")}});
      t.output_schema = Output();
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return PlanStatusTool(ctx, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "plan_check";
    spec.description =
        "Set a task's state with a note; done waits for dependencies and blockers unless "
        "force (note = reason). expected_version (v) refuses stale writes. block/unblock; "
        "met: criteria numbers.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = Object({{"plan", plan_ref},
                               {"task", kTaskRefSchema},
                               {"state", Enum({"todo", "doing", "done", "skipped"})},
                               {"note", Type("string")},
                               {"expected_version", Type("integer")},
                               {"force", Bool()},
                               {"block", Type("string")},
                               {"unblock", Bool()},
                               {"met", ArrayOf(Type("integer"))}},
                              {"plan", "task"});
      t.output_schema = Output();
    };
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return PlanCheck(ctx, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "plan_validate";
    spec.description =
        "What keeps a plan from done (unfinished tasks, skips without reason, blockers, "
        "unmet criteria). archive:true archives a passing plan; force with reason anyway.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema =
          Object({{"plan", plan_ref}, {"archive", Bool()}, {"force", Bool()}, {"reason", Type("string")}}, {"plan"});
      t.output_schema = Output();
    };
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return PlanValidate(ctx, a, c);
    });
  }
}

}  // namespace kioku::procedural
