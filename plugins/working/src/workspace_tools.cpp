// workspace_claim / workspace_release / workspace_status / workspace_dump: one active
// workspace claim per project (dokoro's file lock, here a row written under BEGIN
// IMMEDIATE), a status overview, and a dump that writes an episodic summary through the
// host (CallTool "session_summary_add") when that layer is enabled.
#include <algorithm>

#include <SQLiteCpp/Statement.h>

#include "focus.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/layer_contracts.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "tools.hpp"

namespace kioku::working {
namespace {

constexpr std::int64_t kMaxTaskBytes = 2000;
constexpr std::int64_t kMaxReasonBytes = 500;
constexpr int kDumpLogEntries = 40;
constexpr int kStatusLogEntries = 10;
// workspace_status is an overview: each listed text is a snippet (the full text is in
// question_list / handoff_inbox / claim_list / focus_get), at most kStatusClaims of your
// claims are listed, and the focus document is cut at kStatusFocusBytes, so the result
// stays far below server.max_result_bytes whatever the rows hold.
constexpr std::size_t kStatusSnippetBytes = 200;
constexpr std::size_t kStatusClaims = 10;
constexpr std::size_t kStatusFocusBytes = 3000;

struct WorkspaceRow {
  std::string holder;
  std::string task;
  std::string session_id;
  std::int64_t claimed_at_ms = 0;
  std::int64_t renewed_at_ms = 0;
  std::int64_t expires_at_ms = 0;
};

std::optional<WorkspaceRow> LoadWorkspace(SQLite::Database& db, const std::string& project) {
  SQLite::Statement q(db,
                      "SELECT holder, task, session_id, claimed_at, renewed_at, "
                      "expires_at FROM working_workspace WHERE project_id = ?");
  sdk::Bind(q, project);
  if (!q.executeStep()) return std::nullopt;
  return WorkspaceRow{q.getColumn(0).getString(), q.getColumn(1).getString(),
                      q.getColumn(2).getString(), q.getColumn(3).getInt64(),
                      q.getColumn(4).getInt64(), q.getColumn(5).getInt64()};
}

Json WorkspaceJson(SQLite::Database& db, const ToolContext& env, const std::string& project,
                   const WorkspaceRow& w, const std::string& me, std::int64_t now) {
  const Liveness l =
      LivenessOf(LastSeen(db, project, w.holder), now, env.settings.presence_ttl_seconds);
  return {{"holder", w.holder},
          {"task", w.task},
          {"claimed_at", Rfc(w.claimed_at_ms)},
          {"renewed_at", Rfc(w.renewed_at_ms)},
          {"expires_at", Rfc(w.expires_at_ms)},
          {"state", w.expires_at_ms > now ? "active" : "expired"},
          {"liveness", LivenessName(l)},
          {"mine", !me.empty() && w.holder == me}};
}

std::int64_t WorkspaceTtlArg(const ToolContext& env, const Json& args) {
  const std::int64_t def = env.settings.workspace_default_ttl_seconds;
  const std::int64_t max = env.settings.workspace_max_ttl_seconds;
  if (!args.contains("ttl_seconds") || args.at("ttl_seconds").is_null()) return def;
  const auto& v = args.at("ttl_seconds");
  const std::int64_t ttl = v.is_number_integer() ? v.get<std::int64_t>() : -1;
  if (ttl < kMinTtlSeconds || ttl > max) {
    throw sdk::ToolError("ttl_seconds " + v.dump() +
                         " is out of range for a workspace claim: send " +
                         std::to_string(kMinTtlSeconds) + " to " + std::to_string(max) +
                         " seconds (default " + std::to_string(def) + "); nothing was claimed");
  }
  return ttl;
}

sdk::ToolResult WorkspaceClaim(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::string task = RequiredTextArg(env, args, "task", kMaxTaskBytes);
  const std::int64_t ttl = WorkspaceTtlArg(env, args);
  const bool force = args.value("force", false);
  auto& db = env.Db();
  std::optional<WorkspaceRow> old;
  std::string reason;
  std::int64_t now = 0;
  std::int64_t expires = 0;
  std::int64_t claimed_at = 0;
  sdk::WithWriteTransaction(db, [&] {
    reason.clear();
    now = env.Now();
    expires = now + ttl * sdk::kMsPerSecond;
    old = LoadWorkspace(db, actor.project_id);
    if (!old) {
      reason = "new";
    } else if (old->holder == actor.agent_id) {
      reason = "renew";
    } else if (old->expires_at_ms <= now) {
      reason = "expired";
    } else if (force) {
      reason = "forced";
    } else {
      return;  // refused below; nothing written
    }
    claimed_at = reason == "renew" ? old->claimed_at_ms : now;
    SQLite::Statement up(db,
                         "INSERT INTO working_workspace (project_id, holder, task, session_id, "
                         "claimed_at, renewed_at, expires_at) VALUES (?, ?, ?, ?, ?, "
                         "?, ?) ON CONFLICT (project_id) DO UPDATE SET holder = "
                         "excluded.holder, task = excluded.task, session_id = "
                         "excluded.session_id, claimed_at = excluded.claimed_at, "
                         "renewed_at = excluded.renewed_at, expires_at = "
                         "excluded.expires_at");
    sdk::Bind(up, actor.project_id, actor.agent_id, task, actor.session_id, claimed_at, now,
              expires);
    up.exec();
    Json detail = {{"task", Snip(task, 200)}, {"expires_at_ms", expires}};
    std::string kind = "workspace.claim";
    if (reason == "renew") kind = "workspace.renew";
    if (reason == "expired" || reason == "forced") {
      kind = "workspace.takeover";
      detail["previous_holder"] = old->holder;
      detail["previous_task"] = Snip(old->task, 200);
      detail["reason"] = reason;
    }
    RecordEvent(db, actor, kind, "", detail, now);
    TouchPresence(db, actor, now);
  });
  if (reason.empty()) {
    throw sdk::ToolError("workspace is held by " + old->holder + " (task: " +
                         Snip(old->task, 120) + ") until " + Rfc(old->expires_at_ms) +
                         ". Coordinate with them (handoff_write), wait for the lease to "
                         "expire, or send force:true to take it over (recorded).");
  }
  Json takeover = nullptr;
  if (reason == "expired" || reason == "forced") {
    takeover = {{"previous_holder", old->holder},
                {"previous_task", old->task},
                {"previous_expires_at", Rfc(old->expires_at_ms)},
                {"reason", reason}};
  }
  Json out = {{"holder", actor.agent_id},  {"task", task},
              {"claimed_at", Rfc(claimed_at)}, {"expires_at", Rfc(expires)},
              {"renewed", reason == "renew"},  {"takeover", takeover}};
  std::string text = std::string(reason == "renew" ? "workspace renewed" : "workspace claimed") +
                     " until " + Rfc(expires) + ": " + Snip(task, 120);
  if (!takeover.is_null()) {
    text += " (taken over from " + old->holder + ", " +
            (reason == "forced" ? std::string("forced") : std::string("their lease expired")) + ")";
  }
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult WorkspaceRelease(const ToolContext& env, const Json& args,
                                 const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  auto& db = env.Db();
  std::optional<WorkspaceRow> old;
  sdk::WithWriteTransaction(db, [&] {
    const std::int64_t now = env.Now();
    old = LoadWorkspace(db, actor.project_id);
    if (!old || old->holder != actor.agent_id) return;
    SQLite::Statement del(db,
                          "DELETE FROM working_workspace WHERE project_id = ? AND holder = ?");
    sdk::Bind(del, actor.project_id, actor.agent_id);
    del.exec();
    RecordEvent(db, actor, "workspace.release", "", {{"task", Snip(old->task, 200)}}, now);
    TouchPresence(db, actor, now);
  });
  if (!old) {
    return sdk::ToolResult::Ok("no workspace claim to release",
                               {{"released", false}, {"task", nullptr}});
  }
  if (old->holder != actor.agent_id) {
    throw sdk::ToolError("the workspace is held by " + old->holder + " until " +
                         Rfc(old->expires_at_ms) +
                         ", not by you; only the holder releases it. Nothing was changed.");
  }
  return sdk::ToolResult::Ok("workspace released (task: " + Snip(old->task, 120) + ")",
                             {{"released", true}, {"task", old->task}});
}

struct LogEntry {
  std::int64_t at_ms;
  std::string agent_id;
  std::string kind;
  std::string subject;
  std::string excerpt;
};

std::string LogLine(const LogEntry& e, bool with_agent) {
  std::string line = Rfc(e.at_ms) + " " + (with_agent ? e.agent_id + " " : "") + e.kind;
  if (!e.subject.empty()) line += " " + e.subject;
  if (!e.excerpt.empty()) line += ": " + e.excerpt;
  return line;
}

/// Newest `limit` events (oldest first in the result), optionally only one agent's and only
/// after `since_ms`. (File-claim renewals are never logged: they are heartbeats, not work.)
std::vector<LogEntry> LoadLog(SQLite::Database& db, const std::string& project,
                              const std::string& agent, std::int64_t since_ms, int limit) {
  SQLite::Statement q(db,
                      "SELECT at, agent_id, kind, subject, detail FROM working_events "
                      "WHERE project_id = ?1 AND (?2 = '' OR agent_id = ?2) AND at >= ?3 "
                      "ORDER BY seq DESC LIMIT ?4");
  sdk::Bind(q, project, agent, since_ms, limit);
  std::vector<LogEntry> out;
  while (q.executeStep()) {
    LogEntry e{q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getString(),
               q.getColumn(3).getString(), ""};
    const Json detail = Json::parse(q.getColumn(4).getString(), nullptr, false);
    if (detail.is_object()) {
      if (detail.contains("excerpt") && detail["excerpt"].is_string()) {
        e.excerpt = detail["excerpt"].get<std::string>();
      } else if (detail.contains("task") && detail["task"].is_string()) {
        e.excerpt = detail["task"].get<std::string>();
      }
      if (detail.contains("previous_holder") && detail["previous_holder"].is_string()) {
        e.excerpt += (e.excerpt.empty() ? "" : " ") + std::string("(from ") +
                     detail["previous_holder"].get<std::string>() + ")";
      }
    }
    out.push_back(std::move(e));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

/// The procedural layer's latest open plan, through the host (layers never include each
/// other's code): {id, title, status, percent, ready: [{id, title}]} and one text line, or
/// nullopt when that layer is disabled or the project has no open plan.
std::optional<std::pair<Json, std::string>> LatestPlan(const ToolContext& env, const sdk::Caller& caller) {
  if (!env.host.HasTool("plan_status")) return std::nullopt;
  const auto r = env.host.CallTool("plan_status", {{"plan", "latest"}, {"limit", 1}}, caller);
  if (r.is_error || !r.structured.is_object() || !r.structured.contains("plan") ||
      !r.structured["plan"].is_object()) {
    return std::nullopt;
  }
  // Read defensively: another layer's result must never fail this tool.
  const Json& p = r.structured["plan"];
  const Json progress = p.contains("progress") && p["progress"].is_object() ? p["progress"] : Json::object();
  Json ready = Json::array();
  if (r.structured.contains("ready") && r.structured["ready"].is_array()) {
    for (const auto& t : r.structured["ready"]) {
      if (t.is_object()) ready.push_back({{"id", t.value("id", "")}, {"title", t.value("title", "")}});
    }
  }
  Json out = {{"id", p.value("id", "")},
              {"title", p.value("title", "")},
              {"status", p.value("status", "")},
              {"percent", progress.value("percent", 0)},
              {"ready", std::move(ready)}};
  std::string line = "plan: " + Snip(p.value("title", ""), 80) + " — " +
                     std::to_string(progress.value("percent", 0)) + "% of " +
                     std::to_string(progress.value("total", 0)) + " tasks, " +
                     p.value("status", "") + "; ready:";
  if (out["ready"].empty()) line += " none";
  std::size_t shown = 0;
  for (const auto& t : out["ready"]) {
    if (++shown > 5) break;
    line += " " + t.value("id", "") + " " + Snip(t.value("title", ""), 50) + ";";
  }
  return std::make_pair(std::move(out), std::move(line));
}

struct OpenItems {
  Json questions = Json::array();
  Json handoffs = Json::array();
  Json my_claims = Json::array();
};

OpenItems LoadOpenItems(SQLite::Database& db, const std::string& project,
                        const std::string& agent, std::int64_t now) {
  OpenItems items;
  {
    SQLite::Statement q(db,
                        "SELECT id, asked_by, question FROM working_questions WHERE project_id "
                        "= ? AND answered_at IS NULL ORDER BY created_at DESC LIMIT 20");
    sdk::Bind(q, project);
    while (q.executeStep()) {
      items.questions.push_back({{"question_id", q.getColumn(0).getString()},
                                 {"asked_by", q.getColumn(1).getString()},
                                 {"question", q.getColumn(2).getString()}});
    }
  }
  {
    SQLite::Statement q(db,
                        "SELECT id, from_agent, to_agent, summary FROM working_handoffs WHERE "
                        "project_id = ?1 AND claimed_by IS NULL AND (to_agent IS NULL OR "
                        "to_agent = ?2) ORDER BY created_at DESC LIMIT 10");
    sdk::Bind(q, project, agent);
    while (q.executeStep()) {
      items.handoffs.push_back(
          {{"handoff_id", q.getColumn(0).getString()},
           {"from_agent", q.getColumn(1).getString()},
           {"to_agent", q.getColumn(2).isNull() ? Json(nullptr) : Json(q.getColumn(2).getString())},
           {"summary", q.getColumn(3).getString()}});
    }
  }
  if (!agent.empty()) {
    SQLite::Statement q(db,
                        "SELECT path, intent, expires_at FROM working_file_claims WHERE "
                        "project_id = ? AND holder = ? AND expires_at > ? ORDER BY path "
                        "LIMIT 100");
    sdk::Bind(q, project, agent, now);
    while (q.executeStep()) {
      items.my_claims.push_back({{"path", q.getColumn(0).getString()},
                                 {"intent", q.getColumn(1).getString()},
                                 {"expires_at", Rfc(q.getColumn(2).getInt64())}});
    }
  }
  return items;
}

sdk::ToolResult WorkspaceStatus(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  auto& db = env.Db();
  const std::int64_t now = env.Now();
  const auto ws = LoadWorkspace(db, actor.project_id);
  Json workspace = ws ? WorkspaceJson(db, env, actor.project_id, *ws, actor.agent_id, now)
                      : Json(nullptr);
  // Live agents.
  Json agents = Json::array();
  {
    SQLite::Statement q(db,
                        "SELECT agent_id, status, focus, last_seen_at FROM working_presence "
                        "WHERE project_id = ? AND last_seen_at >= ? ORDER BY last_seen_at DESC "
                        "LIMIT 50");
    sdk::Bind(q, actor.project_id, now - env.settings.presence_ttl_seconds * sdk::kMsPerSecond);
    while (q.executeStep()) {
      agents.push_back({{"agent_id", q.getColumn(0).getString()},
                        {"status", q.getColumn(1).getString()},
                        {"focus", q.getColumn(2).getString()},
                        {"last_seen", Rfc(q.getColumn(3).getInt64())}});
    }
  }
  std::int64_t active_claims = 0;
  {
    SQLite::Statement q(db,
                        "SELECT count(*) FROM working_file_claims WHERE project_id = ? AND "
                        "expires_at > ?");
    sdk::Bind(q, actor.project_id, now);
    q.executeStep();
    active_claims = q.getColumn(0).getInt64();
  }
  OpenItems items = LoadOpenItems(db, actor.project_id, actor.agent_id, now);
  const std::size_t my_claim_count = items.my_claims.size();
  if (my_claim_count > kStatusClaims) {
    items.my_claims.erase(items.my_claims.begin() + kStatusClaims, items.my_claims.end());
  }
  for (Json& c : items.my_claims) c["intent"] = Snip(c["intent"].get<std::string>(), kStatusSnippetBytes);
  for (Json& q : items.questions) q["question"] = Snip(q["question"].get<std::string>(), kStatusSnippetBytes);
  for (Json& h : items.handoffs) h["summary"] = Snip(h["summary"].get<std::string>(), kStatusSnippetBytes);
  const std::string focus_doc = FocusMarkdown(db, actor.project_id);
  const bool focus_cut = focus_doc.size() > kStatusFocusBytes;
  const std::string focus = focus_cut ? sdk::TruncateUtf8(focus_doc, kStatusFocusBytes) : focus_doc;
  auto log = LoadLog(db, actor.project_id, "", 0, kStatusLogEntries);
  for (LogEntry& e : log) {
    e.subject = Snip(e.subject, kStatusSnippetBytes);
    e.excerpt = Snip(e.excerpt, kStatusSnippetBytes);
  }
  Json recent = Json::array();
  for (const auto& e : log) {
    recent.push_back({{"at", Rfc(e.at_ms)}, {"agent_id", e.agent_id}, {"kind", e.kind},
                      {"subject", e.subject}, {"excerpt", e.excerpt}});
  }

  std::string text;
  if (!ws) {
    text = "workspace: free (claim it with workspace_claim)";
  } else {
    text = "workspace: " + ws->holder + (workspace["mine"].get<bool>() ? " (you)" : "") +
           " — " + Snip(ws->task, 120) + "; " +
           (ws->expires_at_ms > now ? "until " : "EXPIRED at ") + Rfc(ws->expires_at_ms) +
           ", holder " + workspace["liveness"].get<std::string>();
  }
  text += "\nlive agents: " + std::to_string(agents.size());
  for (const auto& a : agents) text += " " + a["agent_id"].get<std::string>();
  text += "\nactive file claims: " + std::to_string(active_claims);
  if (my_claim_count > 0) text += " (" + std::to_string(my_claim_count) + " yours)";
  text += "\nopen questions: " + std::to_string(items.questions.size()) +
          "; handoffs waiting for you: " + std::to_string(items.handoffs.size());
  if (!focus.empty()) text += "\n" + sdk::TruncateUtf8(focus, 1500);
  if (focus_cut || my_claim_count > kStatusClaims) {
    text += "\n(overview: texts are snippets; full focus in focus_get, every claim in claim_list)";
  }
  if (!log.empty()) {
    text += "\nrecent:";
    for (const auto& e : log) text += "\n- " + LogLine(e, true);
  }
  const auto plan = LatestPlan(env, ctx.caller);
  if (plan) text += "\n" + plan->second;
  Json out = {{"workspace", workspace},
              {"plan", plan ? plan->first : Json(nullptr)},
              {"agents", std::move(agents)},
              {"active_file_claims", active_claims},
              {"my_file_claims", items.my_claims},
              {"my_file_claim_count", my_claim_count},
              {"focus_truncated", focus_cut},
              {"open_questions", items.questions},
              {"handoffs", items.handoffs},
              {"focus", focus},
              {"recent", std::move(recent)}};
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

std::string ComposeSummary(const ToolContext& env, const Actor& actor, const std::string& reason,
                           const std::optional<WorkspaceRow>& ws, const std::string& focus,
                           const std::vector<LogEntry>& log, const OpenItems& items,
                           const std::string& plan_line, std::int64_t now) {
  // What happened first, who dumped it last: a reader of the first line (the context
  // block's "last session", 300 bytes) gets the reason and the task, not the dump's header.
  std::string s;
  if (!reason.empty()) s += reason + "\n";
  if (ws) {
    s += "Task: " + ws->task + " (workspace held by " + ws->holder + " since " +
         Rfc(ws->claimed_at_ms) + ")\n";
  }
  if (!plan_line.empty()) s += "P" + plan_line.substr(1) + "\n";
  if (!focus.empty()) s += "\nFocus:\n" + focus;
  if (!log.empty()) {
    s += "\nLog:\n";
    for (const auto& e : log) s += "- " + LogLine(e, false) + "\n";
  }
  if (!items.questions.empty() || !items.handoffs.empty() || !items.my_claims.empty()) {
    s += "\nOpen items:\n";
    for (const auto& q : items.questions) {
      s += "- question " + q["question_id"].get<std::string>() + ": " +
           Snip(q["question"].get<std::string>(), 200) + "\n";
    }
    for (const auto& h : items.handoffs) {
      s += "- handoff " + h["handoff_id"].get<std::string>() + " from " +
           h["from_agent"].get<std::string>() + ": " +
           Snip(h["summary"].get<std::string>(), 200) + "\n";
    }
    if (!items.my_claims.empty()) {
      s += "- files claimed:";
      for (const auto& c : items.my_claims) s += " " + c["path"].get<std::string>();
      s += "\n";
    }
  }
  s += "(workspace dump by " + actor.agent_id + " at " + Rfc(now) +
       (actor.project_id.empty() ? std::string() : ", project " + actor.project_id) + ")\n";
  return sdk::TruncateUtf8(s, static_cast<std::size_t>(env.settings.dump_max_bytes),
                           "\n…(truncated)");
}

sdk::ToolResult WorkspaceDump(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::string reason = TextArg(env, args, "reason", kMaxReasonBytes).value_or("");
  const bool release = args.value("release", false);
  auto& host = env.host;
  auto& db = env.Db();
  const std::int64_t now = env.Now();

  // 1. Gather (reads only).
  const auto ws = LoadWorkspace(db, actor.project_id);
  std::int64_t since = 0;
  {
    SQLite::Statement q(db,
                        "SELECT max(created_at) FROM working_dumps WHERE project_id = ? AND "
                        "agent_id = ?");
    sdk::Bind(q, actor.project_id, actor.agent_id);
    if (q.executeStep() && !q.getColumn(0).isNull()) since = q.getColumn(0).getInt64() + 1;
  }
  if (since == 0 && ws && ws->holder == actor.agent_id) since = ws->claimed_at_ms;
  const auto log = LoadLog(db, actor.project_id, actor.agent_id, since, kDumpLogEntries);
  const auto items = LoadOpenItems(db, actor.project_id, actor.agent_id, now);
  const std::string focus = FocusMarkdown(db, actor.project_id);
  const auto plan = LatestPlan(env, ctx.caller);
  const std::string summary =
      ComposeSummary(env, actor, reason, ws, focus, log, items, plan ? plan->second : "", now);
  const std::string session_id = !actor.session_id.empty() ? actor.session_id : sdk::NewId(now);

  // 2. Episodic write, outside any transaction of ours (the other layer opens its own).
  std::string episodic = "disabled";
  std::string episodic_note = "episodic layer disabled: summary kept in the working layer only";
  // Nothing since the last dump (no reason, task, plan, focus, activity or open item): no
  // session summary, which would say only who dumped when and become the "last session".
  const bool empty = reason.empty() && !ws && !plan && focus.empty() && log.empty() && items.questions.empty() &&
                     items.handoffs.empty() && items.my_claims.empty();
  if (empty && host.HasTool(sdk::contract::kSessionSummaryAdd)) {
    episodic = "skipped";
    episodic_note = "nothing since the last dump: no episodic summary written";
  } else if (host.HasTool(sdk::contract::kSessionSummaryAdd)) {
    sdk::Caller caller = ctx.caller;
    caller.agent_id = actor.agent_name;  // summaries are shared by the agent's windows
    caller.session_id = session_id;
    if (host.HasTool(sdk::contract::kSessionStart)) {
      const auto started =
          host.CallTool(sdk::contract::kSessionStart, sdk::contract::SessionStartArgs(session_id), caller);
      if (started.is_error) {
        throw sdk::ToolError("episodic session_start failed: " + Snip(started.text, 300) +
                             "; nothing was dumped or released — retry later or fix the "
                             "episodic layer");
      }
    }
    const auto added = host.CallTool(sdk::contract::kSessionSummaryAdd,
                                     sdk::contract::SessionSummaryAddArgs(session_id, summary), caller);
    if (added.is_error) {
      throw sdk::ToolError("episodic session_summary_add refused the summary: " +
                           Snip(added.text, 300) + "; nothing was dumped or released");
    }
    episodic = "written";
    episodic_note = "episodic summary written to session " + session_id;
  }

  // 3. Record the dump and release, in one transaction.
  const std::string dump_id = sdk::NewId(now);
  bool released_workspace = false;
  Json released_files = Json::array();
  sdk::WithWriteTransaction(db, [&] {
    released_workspace = false;
    released_files = Json::array();
    const std::int64_t t = env.Now();
    SQLite::Statement ins(db,
                          "INSERT INTO working_dumps (id, project_id, agent_id, session_id, "
                          "reason, summary, episodic, created_at) VALUES (?, ?, ?, ?, ?, ?, "
                          "?, ?)");
    sdk::Bind(ins, dump_id, actor.project_id, actor.agent_id, session_id, reason, summary, episodic,
              t);
    ins.exec();
    RecordEvent(db, actor, "workspace.dump", dump_id,
                {{"episodic", episodic}, {"excerpt", Snip(reason, 120)}}, t);
    if (release) {
      SQLite::Statement del_ws(db,
                               "DELETE FROM working_workspace WHERE project_id = ? AND holder = ?");
      sdk::Bind(del_ws, actor.project_id, actor.agent_id);
      if (del_ws.exec() > 0) {
        released_workspace = true;
        RecordEvent(db, actor, "workspace.release", "", {{"via", "workspace_dump"}}, t);
      }
      SQLite::Statement del(db,
                            "DELETE FROM working_file_claims WHERE project_id = ? AND holder = "
                            "? RETURNING path");
      sdk::Bind(del, actor.project_id, actor.agent_id);
      std::vector<std::string> gone;
      while (del.executeStep()) gone.push_back(del.getColumn(0).getString());
      std::sort(gone.begin(), gone.end());
      for (const auto& p : gone) {
        RecordEvent(db, actor, "file.release", p, {{"via", "workspace_dump"}}, t);
        released_files.push_back(p);
      }
    }
    TouchPresence(db, actor, t);
  });

  std::string text = "dumped workspace (" + std::to_string(summary.size()) + " bytes, " +
                     std::to_string(log.size()) + " log entries) — " + episodic_note;
  if (release) {
    text += "; released " + std::string(released_workspace ? "the workspace and " : "") +
            std::to_string(released_files.size()) + " file claim(s)";
  }
  text += "\n" + summary;
  Json out = {{"dump_id", dump_id},
              {"session_id", session_id},
              {"summary", summary},
              {"episodic", episodic},
              {"released", {{"workspace", released_workspace}, {"file_claims", released_files}}}};
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

}  // namespace

void RegisterWorkspaceTools(sdk::Registrar& registrar, const ToolContext& env) {
  const auto& s = env.settings;
  {
    sdk::ToolSpec spec;
    spec.name = "workspace_claim";
    spec.title = "Claim the project workspace for a task";
    spec.description =
        "Claim this project for your task (one claim per project; call again to renew). A "
        "live claim of another agent refuses you with its holder; force:true takes over. "
        "ttl_seconds default " + std::to_string(s.workspace_default_ttl_seconds) + ".";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {
              {"task", schema::String(kMaxTaskBytes, "", 1)},
              {"ttl_seconds", schema::Integer(kMinTtlSeconds, s.workspace_max_ttl_seconds)},
              {"force", schema::Bool("")},
              {"agent_id", AgentIdProp()},
          },
          {"task"});
      t.output_schema = schema::Output({{"holder", schema::Type("string")},
                                        {"task", schema::Type("string")},
                                        {"claimed_at", schema::Type("string")},
                                        {"expires_at", schema::Type("string")},
                                        {"renewed", schema::Bool()},
                                        {"takeover", {{"type", Json::array({"object", "null"})}}}},
                                       {"holder", "task", "expires_at", "renewed", "takeover"});
    };
    spec.annotations.destructive = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return WorkspaceClaim(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "workspace_release";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Release your workspace claim";
    spec.description =
        "Releases the project workspace when you finish or stop your task. Only the holder "
        "releases; with no claim it does nothing. workspace_dump with release:true also "
        "saves a summary first.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({{"agent_id", AgentIdProp()}});
      t.output_schema = schema::Output(
          {{"released", schema::Bool()}, {"task", schema::Nullable(schema::Type("string"))}}, {"released"});
    };
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return WorkspaceRelease(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "workspace_status";
    spec.title = "What is going on in this project";
    spec.description =
        "Call first: workspace holder and task, live agents, file claims, open questions, "
        "handoffs for you, the focus document, recent activity.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({{"agent_id", AgentIdProp()}});
      t.output_schema = schema::Output(
          {{"workspace", {{"type", Json::array({"object", "null"})}}},
           {"agents", schema::ArrayOf({{"type", "object"}})},
           {"active_file_claims", schema::Type("integer")},
           {"my_file_claims", schema::ArrayOf({{"type", "object"}})},
           {"my_file_claim_count", schema::Type("integer")},
           {"focus_truncated", schema::Bool()},
           {"open_questions", schema::ArrayOf({{"type", "object"}})},
           {"handoffs", schema::ArrayOf({{"type", "object"}})},
           {"focus", schema::Type("string")},
           {"recent", schema::ArrayOf({{"type", "object"}})}},
          {"workspace", "agents", "active_file_claims", "open_questions", "handoffs", "focus", "recent"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return WorkspaceStatus(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "workspace_dump";
    spec.title = "Save the workspace as an episodic summary";
    spec.description =
        "End of session or handover: saves task, focus, your activity and open items as a "
        "session summary; release:true also releases your workspace and file claims.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"reason", schema::String(kMaxReasonBytes)},
          {"release", schema::Bool("")},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema = schema::Output(
          {{"dump_id", schema::Type("string")},
           {"session_id", schema::Type("string")},
           {"summary", schema::Type("string")},
           {"episodic", {{"enum", {"written", "skipped", "disabled"}}}},
           {"released",
            schema::Output({{"workspace", schema::Bool()}, {"file_claims", schema::ArrayOf(schema::Type("string"))}},
                           {"workspace", "file_claims"})}},
          {"dump_id", "session_id", "summary", "episodic", "released"});
    };
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return WorkspaceDump(env, a, c);
    });
  }
}

}  // namespace kioku::working
