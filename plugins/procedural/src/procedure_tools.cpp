// procedure_save (steps, or the outcome of a run), procedure_find: versioned procedures, ranked search,
// and runs whose outcome is published for the affective layer.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include "kioku/sdk/events.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/layer_vectors.hpp"
#include "kioku/sdk/outcome_events.hpp"
#include "kioku/sdk/result_page.hpp"
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

// A procedure's header (name, scope, version, when, run record); steps: FitSteps.
Json ProcedureJson(const Procedure& p, const RunStats& s) {
  Json j = {{"name", p.name}, {"scope", ScopeName(p)}, {"version", p.version},
            {"when", p.when}, {"runs", s.runs},         {"success_rate", Rate(s)}};
  if (!p.tags.empty()) j["tags"] = p.tags;
  return j;
}

std::string ProcedureText(const Procedure& p, const RunStats& s) {
  return p.name + " v" + std::to_string(p.version) + " (" + ScopeName(p) + ", " + RateText(s) +
         "): " + sdk::TruncateUtf8(p.when, 200);
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
  if (const std::string note = ctx.vectors->WriteNote(); !note.empty() && !r.unchanged) text += "; " + note;
  return sdk::ToolResult::Ok(text, {{"name", r.procedure.name},
                                    {"version", r.procedure.version},
                                    {"scope", ScopeName(r.procedure)},
                                    {"unchanged", r.unchanged}});
}

// Appends p's steps from `from` (0-based) to j["steps"] and `t`, as many as `room` bytes
// hold (the first always); the page counts the rest (steps_omitted) and names the cursor.
sdk::ResultPage FitSteps(const Procedure& p, std::size_t from, std::size_t room, Json& j, std::string& t) {
  sdk::ResultPage page(from, p.steps.size(), room);
  Json steps = Json::array();
  for (std::size_t i = from; i < p.steps.size(); ++i) {
    const Step& st = p.steps[i];
    Json x = {{"text", st.text}};
    if (!st.command.empty()) x["command"] = st.command;
    std::string line = "\n  " + std::to_string(i + 1) + ". " + sdk::TruncateUtf8(st.text, 300);
    if (!st.command.empty()) line += "  `" + sdk::TruncateUtf8(st.command, 300) + "`";
    if (!page.Offer(sdk::RowBytes(x, line))) continue;
    steps.push_back(std::move(x));
    t += line;
  }
  j["steps"] = std::move(steps);
  if (from > 0) j["first_step"] = from + 1;
  if (page.Omitted() > 0) j["steps_omitted"] = page.Omitted();
  return page;
}

constexpr std::size_t kRowOverhead = 256;  // a row's name, scope, rates and JSON keys
constexpr int kQueryCandidates = 100;      // matches a query pages through (FindProcedures's default)
constexpr int kVectorCandidates = 50;      // nearest procedures the vector list adds

// name: that procedure (both scopes when both hold it), its steps from the cursor's step.
sdk::ToolResult FindByNameResult(ToolContext& ctx, const Json& args, const sdk::CallContext& call,
                                 const Actor& actor) {
  auto& db = ctx.Db();
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
  const std::size_t from = sdk::CursorOffset(args, "procedure_find");
  std::size_t most = 0;
  for (const auto& p : found) most = std::max(most, p.steps.size());
  if (from > 0 && from >= most) {
    throw sdk::ToolError("cursor is past the last step of '" + name + "' (" + std::to_string(most) +
                         " steps); send next_cursor from the previous answer, or no cursor");
  }
  const std::size_t share = sdk::ResultRoom(call) / found.size();
  Json list = Json::array();
  std::string text;
  std::string next_cursor;
  std::size_t next_step = SIZE_MAX;
  std::size_t omitted = 0;
  for (const auto& p : found) {
    const auto s = LoadRunStats(db, p.project_id, p.name);
    std::string t = ProcedureText(p, s);
    Json j = ProcedureJson(p, s);
    if (args.value("history", false)) {
      Json versions = Json::array();
      t += "\n  versions:";
      for (const auto& h : ProcedureHistory(db, p.project_id, p.name, 50)) {
        versions.push_back({{"version", h.version}, {"at", Rfc(h.created_at_ms)}, {"by", h.created_by}});
        t += " v" + std::to_string(h.version) + " " + Rfc(h.created_at_ms) + ";";
      }
      j["history"] = std::move(versions);
    }
    const std::size_t head = t.size() + sdk::DumpJson(j).size() + kRowOverhead;
    const auto page = FitSteps(p, std::min(from, p.steps.size()), share > head ? share - head : 1, j, t);
    // Two scopes hold different steps: go on from the one that showed fewer.
    if (page.Omitted() > 0 && from + page.Shown() < next_step) {
      next_step = from + page.Shown();
      next_cursor = page.NextCursor();
    }
    omitted += page.Omitted();
    text += (text.empty() ? "" : "\n") + t;
    list.push_back(std::move(j));
  }
  Json out = {{"procedures", std::move(list)}, {"omitted", omitted}};
  if (!next_cursor.empty()) {
    out["next_cursor"] = next_cursor;
    text += "\n… " + std::to_string(omitted) + " more steps (result size cap): call procedure_find again with name \"" +
            name + "\" and cursor \"" + next_cursor + "\"";
  }
  return sdk::ToolResult::Ok(text, std::move(out));
}

// List-mode cursors name the last row shown ("k:<hex name>:<hex scope>"); query and name
// pages keep offsets ("o:N") over a ranking or a step list that a save does not reorder.
constexpr const char* kListCursor = "k:";

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// Query pages: "q:<offset>:<query hash>", so a cursor only continues the search it came
// from — sent with another query, with name (steps) or without a query (the list) it is
// refused instead of being read as some other offset. FNV-1a 32 of the query text.
constexpr const char* kQueryCursor = "q:";

std::string QueryHash(std::string_view query) {
  std::uint32_t h = 2166136261u;
  for (const unsigned char c : query) h = (h ^ c) * 16777619u;
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return buf;
}

std::size_t QueryCursorOffset(const Json& args, std::string_view query) {
  auto c = args.find("cursor");
  if (c == args.end() || c->is_null()) return 0;
  const std::string cursor = c->is_string() ? c->get<std::string>() : c->dump();
  const auto colon = cursor.find(':', 2);
  if (!cursor.starts_with(kQueryCursor) || colon == std::string::npos || colon == 2 || colon > 11 ||
      cursor.find_first_not_of("0123456789", 2) != colon) {
    throw sdk::ToolError("cursor \"" + sdk::TruncateUtf8(cursor, 40) +
                         "\" is not one of this search's pages (it pages the list or one procedure's "
                         "steps); send the next_cursor of a page of this query, or no cursor");
  }
  if (cursor.substr(colon + 1) != QueryHash(query)) {
    throw sdk::ToolError("this cursor pages another query; send it with the query it came from, or "
                         "no cursor to start this one");
  }
  return static_cast<std::size_t>(std::stoul(cursor.substr(2, colon - 2)));
}

std::pair<std::string, std::string> ListCursor(const Json& args) {
  auto c = args.find("cursor");
  if (c == args.end() || !c->is_string()) return {};
  const std::string& cursor = c->get_ref<const std::string&>();
  const auto colon = cursor.find(':', 2);
  std::optional<std::string> name, scope;
  if (cursor.starts_with(kListCursor) && colon != std::string::npos) {
    name = HexDecode(std::string_view(cursor).substr(2, colon - 2));
    scope = HexDecode(std::string_view(cursor).substr(colon + 1));
  }
  if (!name || !scope || name->empty()) {
    throw sdk::ToolError(std::string("cursor \"") + cursor.substr(0, 40) + "\" is not one of the procedure list's " +
                         (cursor.starts_with("o:") || cursor.starts_with(kQueryCursor)
                              ? "(it pages a query or one procedure's steps: send that query or "
                                "name again with it)"
                                                   : "(send next_cursor from the previous list page)"));
  }
  return {*name, *scope};
}

sdk::ToolResult Find(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const Actor actor = ActorOf(call);
  auto& db = ctx.Db();
  const int limit = static_cast<int>(IntArg(args, "limit", 1, 50, 5));
  const bool has_query = args.contains("query") && args["query"].is_string() && !args["query"].get<std::string>().empty();
  if (args.contains("name") && has_query) {
    throw sdk::ToolError("send name (one procedure, its steps) or query (a search), not both");
  }
  const bool list_cursor = args.contains("cursor") && args["cursor"].is_string() &&
                           args["cursor"].get<std::string>().starts_with(kListCursor);
  if (list_cursor && (args.contains("name") || has_query)) {
    throw sdk::ToolError("this cursor pages the list of procedures (no name, no query); send it without name and "
                         "query, or the next_cursor of a page of this search");
  }
  if (args.contains("name")) return FindByNameResult(ctx, args, call, actor);
  const std::size_t room = sdk::ResultRoom(call);
  Json list = Json::array();
  std::string text;
  if (auto q = Text(args, "query", kMaxTextBytes); q && !q->empty()) {
    const std::size_t offset = QueryCursorOffset(args, *q);
    // Best first, each with its steps; one long procedure takes at most half the room
    // (the rest of its steps: procedure_find name), so several fit.
    // The same candidates and ranking on every page, so pages neither repeat nor skip.
    // Vector candidates (sdk/layer_vectors.hpp); any endpoint fault leaves the search text-only.
    const sdk::VectorQuery vq = ctx.vectors->Query(db, *q, kVectorCandidates);
    std::vector<std::int64_t> vector_seqs;
    for (const sdk::VectorHit& h : vq.hits) vector_seqs.push_back(h.label);
    const auto hits = FindProcedures(db, actor.project_id, *q, kQueryCandidates, kQueryCandidates, vector_seqs,
                                     ctx.vectors->Settings().weight);
    sdk::ResultPage page(offset, static_cast<std::size_t>(limit), room);
    for (std::size_t i = offset; i < hits.size(); ++i) {
      const auto& r = hits[i];
      std::string t = ProcedureText(r.procedure, r.stats);
      Json j = ProcedureJson(r.procedure, r.stats);
      const std::size_t head = t.size() + sdk::DumpJson(j).size() + kRowOverhead;
      const auto steps = FitSteps(r.procedure, 0, room / 2 > head ? room / 2 - head : 1, j, t);
      if (steps.Omitted() > 0) {
        t += "\n  … " + std::to_string(steps.Omitted()) + " more steps: procedure_find name \"" + r.procedure.name + "\"";
      }
      if (!page.Offer(sdk::RowBytes(j, t))) continue;
      text += (text.empty() ? "" : "\n") + t;
      list.push_back(std::move(j));
    }
    Json out = {{"procedures", std::move(list)}};
    page.Describe(out);
    std::string more = page.MoreText("procedure_find");
    if (auto n = out.find("next_cursor"); n != out.end()) {
      const std::string offset_cursor = n->get<std::string>();  // "o:<next offset>"
      const std::string cursor = kQueryCursor + offset_cursor.substr(2) + ":" + QueryHash(*q);
      if (const auto at = more.find(offset_cursor); at != std::string::npos) {
        more.replace(at, offset_cursor.size(), cursor);
      }
      *n = cursor;
    }
    if (hits.size() <= offset) {
      text = offset == 0 ? "no procedure matches; save one with procedure_save once you know the steps"
                         : "no more matches";
    }
    if (!more.empty()) {
      text += "\n" + more + " (same query)";
    } else if (hits.size() >= static_cast<std::size_t>(kQueryCandidates)) {
      text += "\nonly the best " + std::to_string(kQueryCandidates) +
              " matches are paged; add words to the query to reach the others";
    }
    if (vq.status != "off") out["vectors"] = vq.status;
    if (!vq.note.empty()) text += "\n" + vq.note;
    return sdk::ToolResult::Ok(text, std::move(out));
  }
  // Neither: the list by name, without steps, in keyset pages (ListProcedures).
  const auto after = ListCursor(args);
  const auto rows = ListProcedures(db, actor.project_id, after.first, after.second, limit + 1);
  sdk::ResultPage page(0, static_cast<std::size_t>(limit), room);
  const Procedure* last = nullptr;
  for (const auto& p : rows) {
    const auto s = LoadRunStats(db, p.project_id, p.name);
    const std::string t = ProcedureText(p, s);
    Json j = ProcedureJson(p, s);
    if (!page.Offer(sdk::RowBytes(j, t))) continue;
    text += (text.empty() ? "" : "\n") + t;
    list.push_back(std::move(j));
    last = &p;
  }
  const std::size_t omitted =
      last ? CountProceduresAfter(db, actor.project_id, last->name, last->project_id) : 0;
  Json out = {{"procedures", std::move(list)}, {"omitted", omitted}};
  if (omitted > 0 && last) {
    out["next_cursor"] = kListCursor + HexEncode(last->name) + ":" + HexEncode(last->project_id);
    text += "\n… " + std::to_string(omitted) + " more" + (page.CutByRoom() ? " (result size cap)" : "") +
            ": call procedure_find again with cursor \"" + out["next_cursor"].get<std::string>() + "\"";
  }
  if (rows.empty()) text = after.first.empty() ? "no procedures yet" : "no more procedures";
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
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = Object({{"name", Type("string")},
                               {"when", Type("string")},
                               {"steps", ArrayOf(step)},
                               {"tags", ArrayOf(Type("string"))},
                               {"scope", Enum({"project", "global"})},
                               {"outcome", Enum({"success", "failure"})},
                               {"note", Type("string")},
                               {"version", Type("integer")}},
                              {"name"});
      t.output_schema = Output();
    };
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return Save(ctx, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "procedure_find";
    spec.description =
        "query: procedures fitting a task, best first, with steps and success rate. name: "
        "that one (version, history:true). Neither: list. Pages: cursor=next_cursor.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = Object({{"query", Type("string")},
                               {"name", Type("string")},
                               {"version", Type("integer")},
                               {"history", Bool()},
                               {"cursor", Type("string")},
                               {"limit", Type("integer")}});
      t.output_schema = Output();
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&ctx](const Json& a, const sdk::CallContext& c) {
      return Find(ctx, a, c);
    });
  }
}

}  // namespace kioku::procedural
