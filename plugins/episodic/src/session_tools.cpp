// session_start, session_log, session_end, session_summary_add.
#include <SQLiteCpp/Statement.h>

#include "compaction.hpp"
#include "highlights.hpp"
#include "kioku/sdk/args.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "kioku/sdk/schema.hpp"
#include "store.hpp"
#include "tools.hpp"

namespace kioku::episodic {

namespace {

using sdk::Json;

constexpr std::size_t kMaxEntry = 8'000;
constexpr std::size_t kMaxSummary = 200'000;

Json CompactionJson(const CompactionOutcome& c, const HighlightsOutcome& h) {
  if (!c.compacted) return nullptr;
  Json out = {{"consolidated_id", c.consolidated_id},
              {"folded", c.folded_ids.size()},
              {"tokens_before", c.tokens_before},
              {"tokens_after", c.tokens_after}};
  if (!h.model.empty()) out["highlights_by"] = h.model;
  if (!h.kept_because.empty()) out["extractive_because"] = h.kept_because;
  return out;
}

std::string CompactionText(const CompactionOutcome& c, const HighlightsOutcome& h) {
  if (!c.compacted) return "";
  std::string text = "; compacted: folded " + std::to_string(c.folded_ids.size()) +
                     " older summaries into " + c.consolidated_id + " (" + std::to_string(c.tokens_before) +
                     " → " + std::to_string(c.tokens_after) + " tokens; originals kept in history)";
  if (!h.model.empty()) text += "; highlights by " + h.model;
  if (!h.kept_because.empty()) text += "\ncompaction kept extractive highlights: " + h.kept_because;
  return text;
}

SessionSeed SeedFromCaller(const std::string& id, const sdk::Caller& caller, const Json& args,
                           std::int64_t now) {
  SessionSeed seed;
  seed.id = id;
  seed.agent_id = AgentOf(caller, args);
  seed.model = StrArg(args, "model");
  seed.project = args.contains("project") ? sdk::CanonicalProjectKey(StrArg(args, "project")) : caller.project_id;
  seed.title = StrArg(args, "title");
  seed.started_at = now;
  return seed;
}

// Which session a log/end call targets. An explicit id must exist; the caller's own
// session id is created on first use (agreed with the working layer).
struct Target {
  std::string id;
  bool explicit_id = false;
};

Target TargetFor(const Json& args, const sdk::CallContext& ctx) {
  Target t;
  if (args.contains("session_id")) {
    t.id = args["session_id"].get<std::string>();
    t.explicit_id = true;
    sdk::ScreenText(t.id, "session_id");  // ids are stored and shown like any other text
    return t;
  }
  t.id = ctx.caller.session_id;
  if (t.id.empty()) {
    throw sdk::ToolError(
        "no session: this connection has no session id; call session_start and pass the "
        "session_id it returns");
  }
  CheckSessionIdFormat(t.id);
  return t;
}

// Resolves or creates the target inside the transaction; returns the real id.
std::string EnsureTarget(SQLite::Database& db, const Target& t, const sdk::CallContext& ctx,
                         const Json& args, std::int64_t now, bool* created) {
  *created = false;
  if (t.explicit_id) return ResolveSessionId(db, t.id);
  *created = UpsertSession(db, SeedFromCaller(t.id, ctx.caller, args, now), now);
  return t.id;
}

void AddSessionStart(sdk::Registrar& reg, ToolContext& env) {
  sdk::ToolSpec spec;
  spec.name = "session_start";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Start (or resume) a session";
  spec.description =
      "Opens an episodic session: the unit 'what happened last time' is remembered by. Call "
      "it at the start of work. With a session_id you chose (e.g. your client's conversation "
      "id) it is idempotent: calling again returns the same session. Without one, the "
      "connection's session id is used, or a new id is made. Returns the session_id to pass "
      "to session_log / session_end / session_summary_add.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object(
        {{"session_id", schema::String(128, "Client-supplied id (1-128 printable ASCII, no spaces).", 1)},
         {"title", schema::String(500, "What this session is about.")},
         {"model", schema::String(200, "Model name, e.g. claude-opus-4-7.")},
         {"project", schema::String(1000, "Project id; default: the server's project.")},
         {"agent_id", schema::String(200, "Agent id; default: the caller's identity.")}});
    t.output_schema = schema::Output({{"session_id", schema::Type("string")},
                                      {"created", schema::Type("boolean")},
                                      {"started_at", schema::Type("string")},
                                      {"title", schema::Type("string")},
                                      {"project", schema::Type("string")}},
                                     {"session_id", "created", "started_at"});
  };
  spec.annotations.idempotent = true;
  reg.AddTool(spec, [&env](const Json& args, const sdk::CallContext& ctx) {
    sdk::ScreenSecrets(args);  // every string: model, project, tags, agent_id too (issue 9)
    const std::int64_t now = env.host.GetClock().NowMs();
    std::string id = StrArg(args, "session_id", ctx.caller.session_id);
    if (id.empty()) id = sdk::NewId(now);
    CheckSessionIdFormat(id);
    sdk::ScreenText(id, "session_id");
    sdk::ScreenText(StrArg(args, "title"), "title");
    bool created = false;
    auto& db = env.host.Db();
    sdk::WithWriteTransaction(db, [&] {
      created = UpsertSession(db, SeedFromCaller(id, ctx.caller, args, now), now);
    });
    Session s = *LoadSession(db, id);
    std::string text = created ? "Started session " + s.id
                               : "Session " + s.id + " already exists (started " +
                                     sdk::FormatRfc3339(s.started_at) + "); reusing it";
    if (!s.title.empty()) text += ": " + s.title;
    return sdk::ToolResult::Ok(text, {{"session_id", s.id},
                                      {"created", created},
                                      {"started_at", sdk::FormatRfc3339(s.started_at)},
                                      {"title", s.title},
                                      {"project", s.project}});
  });
}

void AddSessionLog(sdk::Registrar& reg, ToolContext& env) {
  sdk::ToolSpec spec;
  spec.name = "session_log";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Log a session entry";
  spec.description =
      "Appends one entry to a session's log as you work: progress made, a note, an issue hit, "
      "or a decision taken (decisions and issues show up in session_timeline and survive "
      "compaction). Short, self-contained sentences work best. session_id defaults to this "
      "connection's session (created on first log). Entries are append-only.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema =
        schema::Object({{"session_id", schema::String(128, "Session id or unique prefix (>= 4 chars).", 1)},
                        {"entry", schema::String(kMaxEntry, "The entry text.", 1)},
                        {"type", schema::Enum({"progress", "note", "issue", "decision"}, "Default: note.")},
                        {"tags",
                         {{"type", "array"},
                          {"items", schema::String(64, "A tag.", 1)},
                          {"maxItems", 16},
                          {"description", "Optional tags."}}},
                        {"agent_id", schema::String(200, "Agent id; default: the caller's identity.")}},
                       {"entry"});
    t.output_schema = schema::Output({{"entry_id", schema::Type("string")},
                                      {"session_id", schema::Type("string")},
                                      {"seq", schema::Type("integer")},
                                      {"at", schema::Type("string")},
                                      {"type", schema::Type("string")},
                                      {"created_session", schema::Type("boolean")}},
                                     {"entry_id", "session_id", "seq", "at", "type"});
  };
  reg.AddTool(spec, [&env](const Json& args, const sdk::CallContext& ctx) {
    sdk::ScreenSecrets(args);  // every string: model, project, tags, agent_id too (issue 9)
    const std::int64_t now = env.host.GetClock().NowMs();
    const Target target = TargetFor(args, ctx);
    const std::string text = sdk::CollapseWhitespace(args["entry"].get<std::string>());
    if (text.empty()) throw sdk::ToolError("`entry` is blank; send the text to log");
    sdk::ScreenText(text, "entry");
    LogEntry e;
    e.at = now;
    e.type = StrArg(args, "type", "note");
    e.entry = text;
    e.tags = args.value("tags", Json::array());
    e.agent_id = AgentOf(ctx.caller, args);
    bool created = false;
    auto& db = env.host.Db();
    sdk::WithWriteTransaction(db, [&] {
      e.session_id = EnsureTarget(db, target, ctx, args, now, &created);
      e = AppendLog(db, e);
    });
    return sdk::ToolResult::Ok(
        "Logged " + e.type + " #" + std::to_string(e.seq) + " in session " + e.session_id +
            (created ? " (session created)" : ""),
        {{"entry_id", e.id},
         {"session_id", e.session_id},
         {"seq", e.seq},
         {"at", sdk::FormatRfc3339(e.at)},
         {"type", e.type},
         {"created_session", created}});
  });
}

void AddSessionEnd(sdk::Registrar& reg, ToolContext& env) {
  sdk::ToolSpec spec;
  spec.name = "session_end";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "End a session";
  spec.description =
      "Marks a session ended, optionally with a closing summary (what was done, decisions, "
      "open items, files touched) that session_recall will find next time. session_id "
      "defaults to this connection's session. Ending twice keeps the first end time.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema =
        schema::Object({{"session_id", schema::String(128, "Session id or unique prefix (>= 4 chars).", 1)},
                        {"summary", schema::String(kMaxSummary, "Closing summary.", 1)},
                        {"model", schema::String(200, "Model that wrote the summary.")},
                        {"agent_id", schema::String(200, "Agent id; default: the caller's identity.")}});
    t.output_schema = schema::Output({{"session_id", schema::Type("string")},
                                      {"ended_at", schema::Type("string")},
                                      {"already_ended", schema::Type("boolean")},
                                      {"summary_id", schema::Nullable(schema::Type("string"))},
                                      {"compaction", {{"type", {"object", "null"}}}}},
                                     {"session_id", "ended_at", "already_ended"});
  };
  spec.annotations.idempotent = false;
  reg.AddTool(spec, [&env](const Json& args, const sdk::CallContext& ctx) {
    sdk::ScreenSecrets(args);  // every string: model, project, tags, agent_id too (issue 9)
    const std::int64_t now = env.host.GetClock().NowMs();
    const Target target = TargetFor(args, ctx);
    const std::string summary = StrArg(args, "summary");
    sdk::ScreenText(summary, "summary");
    if (args.contains("summary") && sdk::CollapseWhitespace(summary).empty()) {
      throw sdk::ToolError("`summary` is blank; send the summary text or omit it");
    }
    bool created = false, already = false;
    std::string id, summary_id;
    std::int64_t ended_at = now;
    CompactionOutcome compaction;
    auto& db = env.host.Db();
    sdk::WithWriteTransaction(db, [&] {
      id = EnsureTarget(db, target, ctx, args, now, &created);
      Session s = *LoadSession(db, id);
      already = s.ended_at.has_value();
      ended_at = already ? *s.ended_at : now;
      if (!already) {
        SQLite::Statement q(db,
                            "UPDATE episodic_sessions SET ended_at = ?, last_activity_at = "
                            "MAX(last_activity_at, ?) WHERE id = ?");
        sdk::Bind(q, static_cast<int64_t>(now), static_cast<int64_t>(now), id);
        q.exec();
      }
      summary_id.clear();
      compaction = {};
      if (!summary.empty()) {
        Summary row;
        row.session_id = id;
        row.kind = "session_end";
        row.text = summary;
        row.token_count = static_cast<std::int64_t>(sdk::EstimateTokens(summary));
        row.model = StrArg(args, "model", s.model);
        SQLite::Statement c(db, "SELECT COUNT(*) FROM episodic_log WHERE session_id = ?");
        sdk::Bind(c, id);
        c.executeStep();
        row.message_count = std::max<std::int64_t>(s.message_count, c.getColumn(0).getInt64());
        row.started_at = s.started_at;
        row.ended_at = std::max(s.started_at, now);
        row.created_at = now;
        row.agent_id = AgentOf(ctx.caller, args);
        summary_id = InsertSummary(db, row);
        compaction = CompactSession(db, id, env.settings, now);
      }
    });
    // After the commit: the model is never called under the write lock.
    const HighlightsOutcome highlights = RefineAfterCompaction(env, compaction);
    std::string text = already ? "Session " + id + " was already ended at " +
                                     sdk::FormatRfc3339(ended_at)
                               : "Ended session " + id;
    if (!summary_id.empty()) text += "; summary " + summary_id + " saved";
    text += CompactionText(compaction, highlights);
    Json out = {{"session_id", id},
                {"ended_at", sdk::FormatRfc3339(ended_at)},
                {"already_ended", already},
                {"summary_id", summary_id.empty() ? Json(nullptr) : Json(summary_id)},
                {"compaction", CompactionJson(compaction, highlights)}};
    return sdk::ToolResult::Ok(text, out);
  });
}

void AddSummaryAdd(sdk::Registrar& reg, ToolContext& env) {
  sdk::ToolSpec spec;
  spec.name = "session_summary_add";
  spec.profile = sdk::ToolProfile::kFull;  // agents end with workspace_dump, which writes one
  spec.title = "Add a session summary";
  spec.description =
      "The episodic write path: stores a summary of a session, or of part of one, for "
      "session_recall. Write it as decisions taken, open items (TODO/next steps), files "
      "touched and what happened; those survive compaction. When a session's summaries "
      "exceed its token budget the older ones are folded into one consolidated summary "
      "(originals stay in history). The session must exist (session_start).";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object(
        {{"session_id", schema::String(128, "Session id or unique prefix (>= 4 chars).", 1)},
         {"summary", schema::String(kMaxSummary, "The summary text.", 1)},
         {"token_count", schema::Integer(0, 10'000'000, "Tokens of the summary; default: estimated (bytes / 4).")},
         {"model", schema::String(200, "Model that wrote it.")},
         {"message_count", schema::Integer(0, 100'000'000, "Messages the summary covers.")},
         {"started_at", schema::String(64, "RFC 3339 start of the covered span; default: session start.")},
         {"ended_at", schema::String(64, "RFC 3339 end of the covered span; default: now.")},
         {"agent_id", schema::String(200, "Agent id; default: the caller's identity.")}},
        {"session_id", "summary"});
    t.output_schema = schema::Output({{"summary_id", schema::Type("string")},
                                      {"session_id", schema::Type("string")},
                                      {"token_count", schema::Type("integer")},
                                      {"compaction", {{"type", {"object", "null"}}}}},
                                     {"summary_id", "session_id", "token_count"});
  };
  reg.AddTool(spec, [&env](const Json& args, const sdk::CallContext& ctx) {
    sdk::ScreenSecrets(args);  // every string: model, project, tags, agent_id too (issue 9)
    const std::int64_t now = env.host.GetClock().NowMs();
    const std::string summary = args["summary"].get<std::string>();
    if (sdk::CollapseWhitespace(summary).empty()) {
      throw sdk::ToolError("`summary` is blank; send the summary text");
    }
    sdk::ScreenText(summary, "summary");
    const auto started = sdk::TimeArg(args, "started_at");
    const auto ended = sdk::TimeArg(args, "ended_at");
    if (started && ended && *started > *ended) {
      throw sdk::ToolError("`started_at` (" + sdk::FormatRfc3339(*started) +
                           ") is after `ended_at` (" + sdk::FormatRfc3339(*ended) +
                           "); send the span in order");
    }
    Summary row;
    CompactionOutcome compaction;
    auto& db = env.host.Db();
    sdk::WithWriteTransaction(db, [&] {
      const std::string id = ResolveSessionId(db, args["session_id"].get<std::string>());
      Session s = *LoadSession(db, id);
      row = Summary{};
      row.session_id = id;
      row.kind = "summary";
      row.text = summary;
      row.token_count = args.contains("token_count")
                            ? args["token_count"].get<std::int64_t>()
                            : static_cast<std::int64_t>(sdk::EstimateTokens(summary));
      row.model = StrArg(args, "model", s.model);
      row.message_count = args.value("message_count", std::int64_t{0});
      row.ended_at = ended.value_or(std::max(now, started.value_or(now)));
      row.started_at = started.value_or(std::min(s.started_at, row.ended_at));
      row.created_at = now;
      row.agent_id = AgentOf(ctx.caller, args);
      row.id = InsertSummary(db, row);
      TouchSession(db, id, row.ended_at);
      compaction = CompactSession(db, id, env.settings, now);
    });
    const HighlightsOutcome highlights = RefineAfterCompaction(env, compaction);  // after the commit
    std::string text = "Saved summary " + row.id + " for session " + row.session_id + " (" +
                       std::to_string(row.token_count) + " tokens)" + CompactionText(compaction, highlights);
    return sdk::ToolResult::Ok(text, {{"summary_id", row.id},
                                      {"session_id", row.session_id},
                                      {"token_count", row.token_count},
                                      {"compaction", CompactionJson(compaction, highlights)}});
  });
}

}  // namespace

void RegisterSessionTools(sdk::Registrar& registrar, ToolContext& env) {
  AddSessionStart(registrar, env);
  AddSessionLog(registrar, env);
  AddSessionEnd(registrar, env);
  AddSummaryAdd(registrar, env);
}

}  // namespace kioku::episodic
