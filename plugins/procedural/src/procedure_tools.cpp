// procedure_save (steps, or the outcome of a run), procedure_find: versioned procedures, ranked search,
// and runs whose outcome is published for the affective layer.
#include <algorithm>
#include <cmath>

#include "kioku/sdk/events.hpp"
#include "kioku/sdk/outcome_events.hpp"
#include "kioku/sdk/text.hpp"
#include "procedure_ops.hpp"
#include "procedure_store.hpp"
#include "kioku/sdk/args.hpp"
#include "tool_support.hpp"

namespace kioku::procedural {
namespace {

constexpr std::size_t kMaxNameBytes = 120;
constexpr std::size_t kMaxStepBytes = 2000;
constexpr const char* kEventToolPrefix = "procedure/";

std::string ScopeOf(const Json& args, const Actor& actor) {
  return args.value("scope", "project") == "global" ? "" : actor.project_id;
}

std::string ScopeName(const Procedure& p) { return p.project_id.empty() ? "global" : "project"; }

double Rate(const RunStats& s) {
  return s.runs == 0 ? 0.0 : static_cast<double>(s.successes) / static_cast<double>(s.runs);
}

std::string RateText(const RunStats& s) {
  if (s.runs == 0) return "never run";
  return std::to_string(s.successes) + "/" + std::to_string(s.runs) + " succeeded (" +
         std::to_string(static_cast<int>(std::lround(100 * Rate(s)))) + "%)";
}

Json ProcedureJson(const Procedure& p, const RunStats& s, bool with_steps) {
  Json j = {{"name", p.name}, {"scope", ScopeName(p)}, {"version", p.version},
            {"when", p.when}, {"runs", s.runs},         {"success_rate", Rate(s)}};
  if (!p.tags.empty()) j["tags"] = p.tags;
  if (with_steps) {
    Json steps = Json::array();
    for (const auto& st : p.steps) {
      Json x = {{"text", st.text}};
      if (!st.command.empty()) x["command"] = st.command;
      steps.push_back(std::move(x));
    }
    j["steps"] = std::move(steps);
  }
  return j;
}

std::string ProcedureText(const Procedure& p, const RunStats& s, bool with_steps) {
  std::string t = p.name + " v" + std::to_string(p.version) + " (" + ScopeName(p) + ", " +
                  RateText(s) + "): " + sdk::TruncateUtf8(p.when, 200);
  if (with_steps) {
    for (std::size_t i = 0; i < p.steps.size(); ++i) {
      t += "\n  " + std::to_string(i + 1) + ". " + sdk::TruncateUtf8(p.steps[i].text, 300);
      if (!p.steps[i].command.empty()) t += "  `" + sdk::TruncateUtf8(p.steps[i].command, 300) + "`";
    }
  }
  return t;
}

std::vector<Step> StepsArg(const Json& args) {
  std::vector<Step> steps;
  const Json& list = args.at("steps");
  CheckCount(list, kMaxSteps, "steps");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "steps[" + std::to_string(i) + "]";
    Step s;
    if (list[i].is_string()) {
      s.text = CheckedText(list[i].get<std::string>(), where, kMaxStepBytes);
    } else {
      s.text = CheckedText(list[i].value("text", ""), where + ".text", kMaxStepBytes);
      s.command = CheckedText(list[i].value("command", ""), where + ".command", kMaxStepBytes);
    }
    if (s.text.empty()) {
      throw sdk::ToolError(where + " is empty: every step needs text; nothing was saved");
    }
    steps.push_back(std::move(s));
  }
  if (steps.empty()) throw sdk::ToolError("steps is empty: send at least one step");
  return steps;
}

std::string NameArg(const Json& args) {
  auto name = sdk::CollapseWhitespace(Text(args, "name", kMaxNameBytes).value_or(""));
  if (name.empty()) throw sdk::ToolError("name is empty: send the procedure's name");
  return name;
}

sdk::ToolResult Record(ToolContext& ctx, const Json& args, const sdk::CallContext& call);

sdk::ToolResult Save(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  if (args.contains("outcome")) {
    for (const char* key : {"when", "steps", "tags", "scope"}) {
      if (args.contains(key)) {
        throw sdk::ToolError(std::string("send either a run (name, outcome, note) or steps to "
                                         "save (name, when, steps…), not both: drop ") + key);
      }
    }
    return Record(ctx, args, call);
  }
  if (!args.contains("steps") || !args.contains("when")) {
    throw sdk::ToolError("to save a procedure send name, when and steps; to record a run send "
                         "name and outcome");
  }
  sdk::ScreenSecrets(args);
  const Actor actor = ActorOf(call);
  Procedure p;
  p.name = NameArg(args);
  p.when = Text(args, "when", kMaxTextBytes).value_or("");
  if (p.when.empty()) throw sdk::ToolError("when is empty: say when to use this procedure");
  p.steps = StepsArg(args);
  p.tags = TagsArg(args);
  p.project_id = ScopeOf(args, actor);
  const auto r = SaveProcedure(ctx.Db(), p, actor, ctx.Now());
  std::string text = r.unchanged ? "unchanged: " + r.procedure.name + " v" +
                                       std::to_string(r.procedure.version) + " already has these steps"
                                 : "saved " + r.procedure.name + " v" +
                                       std::to_string(r.procedure.version) + " (" +
                                       ScopeName(r.procedure) + ", " +
                                       std::to_string(r.procedure.steps.size()) + " steps)";
  return sdk::ToolResult::Ok(text, {{"name", r.procedure.name},
                                    {"version", r.procedure.version},
                                    {"scope", ScopeName(r.procedure)},
                                    {"unchanged", r.unchanged}});
}

sdk::ToolResult Find(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const Actor actor = ActorOf(call);
  auto& db = ctx.Db();
  const int limit = static_cast<int>(IntArg(args, "limit", 1, 50, 5));
  Json list = Json::array();
  std::string text;
  if (args.contains("name")) {
    const std::string name = NameArg(args);
    auto found = FindByName(db, actor.project_id, name);
    if (found.empty()) {
      throw sdk::ToolError("unknown procedure '" + name + "': search with query instead");
    }
    if (auto v = args.find("version"); v != args.end()) {
      auto old = LoadProcedureVersion(db, found.front().project_id, name, static_cast<int>(IntArg(args, "version", 1, 1'000'000, 1)));
      if (!old) {
        throw sdk::ToolError("procedure '" + name + "' has no version " + v->dump() +
                             " (current is " + std::to_string(found.front().version) + ")");
      }
      found = {*old};
    }
    for (const auto& p : found) {
      const auto s = LoadRunStats(db, p.project_id, p.name);
      text += (text.empty() ? "" : "\n") + ProcedureText(p, s, true);
      Json j = ProcedureJson(p, s, true);
      if (args.value("history", false)) {
        Json versions = Json::array();
        text += "\n  versions:";
        for (const auto& h : ProcedureHistory(db, p.project_id, p.name, 50)) {
          versions.push_back({{"version", h.version}, {"at", Rfc(h.created_at_ms)}, {"by", h.created_by}});
          text += " v" + std::to_string(h.version) + " " + Rfc(h.created_at_ms) + ";";
        }
        j["history"] = std::move(versions);
      }
      list.push_back(std::move(j));
    }
    return sdk::ToolResult::Ok(text, {{"procedures", std::move(list)}});
  }
  if (auto q = Text(args, "query", kMaxTextBytes); q && !q->empty()) {
    for (const auto& r : FindProcedures(db, actor.project_id, *q, limit)) {
      text += (text.empty() ? "" : "\n") + ProcedureText(r.procedure, r.stats, true);
      list.push_back(ProcedureJson(r.procedure, r.stats, true));
    }
    if (list.empty()) text = "no procedure matches; save one with procedure_save once you know the steps";
    return sdk::ToolResult::Ok(text, {{"procedures", std::move(list)}});
  }
  const std::string after = Text(args, "after", kMaxNameBytes).value_or("");
  const auto page = ListProcedures(db, actor.project_id, after, limit + 1);
  for (std::size_t i = 0; i < page.size() && static_cast<int>(i) < limit; ++i) {
    const auto s = LoadRunStats(db, page[i].project_id, page[i].name);
    text += (text.empty() ? "" : "\n") + ProcedureText(page[i], s, false);
    list.push_back(ProcedureJson(page[i], s, false));
  }
  Json out = {{"procedures", std::move(list)}};
  if (static_cast<int>(page.size()) > limit) {
    out["next_after"] = page[static_cast<std::size_t>(limit - 1)].name;
    text += "\nmore: after \"" + page[static_cast<std::size_t>(limit - 1)].name + "\"";
  }
  if (page.empty()) text = "no procedures yet";
  return sdk::ToolResult::Ok(text, std::move(out));
}

sdk::ToolResult Record(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  sdk::ScreenSecrets(args);
  const Actor actor = ActorOf(call);
  const std::string name = NameArg(args);
  const bool success = args.value("outcome", "") == "success";
  const std::string note = Text(args, "note", kMaxNoteBytes).value_or("");
  std::optional<int> version;
  if (args.contains("version")) version = static_cast<int>(IntArg(args, "version", 1, 1'000'000, 1));
  const std::int64_t now = ctx.Now();
  const auto r = RecordRun(ctx.Db(), name, version, success, note, actor, now);
  // Published after the commit; the affective layer records it as an outcome.
  sdk::ToolCallEvent event;
  event.tool = kEventToolPrefix + r.procedure.name;
  event.plugin = "procedural";
  event.agent_id = actor.agent_id;
  event.session_id = call.caller.session_id;
  event.project_id = actor.project_id;
  event.outcome = success ? "success" : "failure";
  event.error = success ? "" : note;
  event.at_ms = now;
  ctx.host.Events().Publish({sdk::kOutcomeReportedTopic, event.ToJson()});
  const std::string text = "recorded " + std::string(success ? "success" : "failure") + " of " +
                           r.procedure.name + " v" + std::to_string(r.procedure.version) + "; " +
                           RateText(r.stats);
  return sdk::ToolResult::Ok(text, {{"name", r.procedure.name},
                                    {"version", r.procedure.version},
                                    {"runs", r.stats.runs},
                                    {"successes", r.stats.successes},
                                    {"success_rate", Rate(r.stats)}});
}

}  // namespace

void RegisterProcedureTools(sdk::Registrar& registrar, ToolContext& ctx) {
  using namespace schema;
  {
    sdk::ToolSpec spec;
    spec.name = "procedure_save";
    spec.description =
        "Save how to do something: name, when to use it, ordered steps (text or {text, "
        "command}), tags, scope project|global; same name = new version. After following one: "
        "name, outcome, note.";
    const Json step = {{"type", Json::array({"string", "object"})},
                       {"properties", {{"text", Type("string")}, {"command", Type("string")}}},
                       {"additionalProperties", false}};
    spec.input_schema = Object({{"name", Type("string")},
                                {"when", Type("string")},
                                {"steps", ArrayOf(step)},
                                {"tags", ArrayOf(Type("string"))},
                                {"scope", Enum({"project", "global"})},
                                {"outcome", Enum({"success", "failure"})},
                                {"note", Type("string")},
                                {"version", Type("integer")}},
                               {"name"});
    spec.output_schema = Output();
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return Save(ctx, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "procedure_find";
    spec.description =
        "query: procedures fitting a task, best first, with steps and success rate. name: "
        "that one (version, history:true). Neither: list (after: paging).";
    spec.input_schema = Object({{"query", Type("string")},
                                {"name", Type("string")},
                                {"version", Type("integer")},
                                {"history", Bool()},
                                {"after", Type("string")},
                                {"limit", Type("integer")}});
    spec.output_schema = Output();
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return Find(ctx, a, c);
    });
  }
}

}  // namespace kioku::procedural
