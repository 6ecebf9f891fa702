// presence_ping / presence_list: heartbeats with liveness computed at read time
// (dokoro's agent_presence with a read-time TTL; default 900 s).
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/sql.hpp"
#include "tools.hpp"

namespace kioku::working {
namespace {

constexpr std::int64_t kMaxStatusBytes = 200;
constexpr std::int64_t kMaxPresenceFocusBytes = 1000;

sdk::ToolResult PresencePing(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const auto status = TextArg(env, args, "status", kMaxStatusBytes);
  const auto focus = TextArg(env, args, "focus", kMaxPresenceFocusBytes);
  auto& db = env.Db();
  std::int64_t now = 0;
  std::string stored_status;
  std::string stored_focus;
  sdk::WithWriteTransaction(db, [&] {
    now = env.Now();
    TouchPresence(db, actor, now);
    SQLite::Statement upd(db,
                          "UPDATE working_presence SET status = COALESCE(?, status), "
                          "focus = COALESCE(?, focus) WHERE project_id = ? AND agent_id = ? "
                          "RETURNING status, focus");
    sdk::Bind(upd, status, focus, actor.project_id, actor.agent_id);
    if (upd.executeStep()) {
      stored_status = upd.getColumn(0).getString();
      stored_focus = upd.getColumn(1).getString();
    }
  });
  const std::int64_t live_until = now + env.settings.presence_ttl_seconds * 1000;
  Json out = {{"agent_id", actor.agent_id},       {"status", stored_status},
              {"focus", stored_focus},            {"last_seen", Rfc(now)},
              {"live_until", Rfc(live_until)},    {"ttl_seconds", env.settings.presence_ttl_seconds}};
  std::string text = "present: " + actor.agent_id;
  if (!stored_status.empty()) text += " [" + Snip(stored_status, 60) + "]";
  if (!stored_focus.empty()) text += " — " + Snip(stored_focus);
  text += "; live until " + Rfc(live_until) + " unless you ping or write again";
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult PresenceList(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  const std::int64_t ttl = args.value("ttl_seconds", env.settings.presence_ttl_seconds);
  if (ttl < kMinTtlSeconds || ttl > 7 * 86'400) {
    throw sdk::ToolError("ttl_seconds " + std::to_string(ttl) + " is out of range; send " +
                         std::to_string(kMinTtlSeconds) + " to 604800 seconds (default " +
                         std::to_string(env.settings.presence_ttl_seconds) + ")");
  }
  const bool include_stale = args.value("include_stale", false);
  auto& db = env.Db();
  const std::int64_t now = env.Now();
  SQLite::Statement q(db,
                      "SELECT agent_id, status, focus, last_seen_at, first_seen_at FROM "
                      "working_presence WHERE project_id = ? ORDER BY last_seen_at DESC, "
                      "agent_id");
  sdk::Bind(q, actor.project_id);
  const std::size_t offset = sdk::CursorOffset(args, "presence_list");
  const auto limit = static_cast<std::size_t>(args.value("limit", std::int64_t{100}));
  sdk::ResultPage page(offset, limit, sdk::ResultRoom(ctx));
  Json agents = Json::array();
  std::string lines;
  int live = 0;
  int stale = 0;
  std::size_t listed = 0;  // rows this filter lists, before the cursor included
  while (q.executeStep()) {
    const std::int64_t seen = q.getColumn(3).getInt64();
    const Liveness l = LivenessOf(seen, now, ttl);
    if (l == Liveness::kLive) ++live; else ++stale;
    if (l != Liveness::kLive && !include_stale) continue;
    if (listed++ < offset) continue;
    if (page.Shown() >= limit || page.Omitted() > 0) {
      page.Offer(0);  // past the page: counted only
      continue;
    }
    const std::string agent = q.getColumn(0).getString();
    const std::string status = q.getColumn(1).getString();
    const std::string focus = q.getColumn(2).getString();
    const std::int64_t ago_s = (now - seen) / 1000;
    Json j = {{"agent_id", agent},
              {"status", status},
              {"focus", focus},
              {"last_seen", Rfc(seen)},
              {"first_seen", Rfc(q.getColumn(4).getInt64())},
              {"seconds_since_seen", ago_s},
              {"liveness", LivenessName(l)},
              {"you", agent == actor.agent_id}};
    std::string line = "\n- " + agent + (agent == actor.agent_id ? " (you)" : "") + " " +
                       std::string(LivenessName(l)) + ", seen " + std::to_string(ago_s) + " s ago";
    if (!status.empty()) line += " [" + Snip(status, 60) + "]";
    if (!focus.empty()) line += ": " + Snip(focus);
    if (!page.Offer(sdk::RowBytes(j, line))) continue;
    agents.push_back(std::move(j));
    lines += line;
  }
  std::string text = std::to_string(live) + " live agent(s)";
  if (stale > 0) text += ", " + std::to_string(stale) + " stale" +
                         (include_stale ? "" : " (hidden; include_stale:true shows them)");
  text += " (ttl " + std::to_string(ttl) + " s)" + lines;
  if (const std::string more = page.MoreText("presence_list"); !more.empty()) text += "\n" + more;
  Json out = {{"agents", std::move(agents)}, {"ttl_seconds", ttl}, {"live", live},
              {"stale", stale}};
  page.Describe(out);
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

}  // namespace

sdk::EventBus::Handler MakePresenceHandler(const ToolContext& env) {
  return [&env](const sdk::Event& event) {
    const sdk::ToolCallEvent call = sdk::ToolCallEvent::FromJson(event.payload);
    // Working-layer writes touch presence in their own transaction already.
    if (call.read_only || call.outcome != "success" || call.plugin == "working") return;
    if (call.agent_id.empty() || call.agent_id == "unknown" || call.project_id.empty()) return;
    try {
      auto& db = env.Db();
      sdk::WithWriteTransaction(db, [&] {
        SQLite::Statement q(db,
                            "UPDATE working_presence SET last_seen_at = MAX(last_seen_at, ?) "
                            "WHERE project_id = ? AND agent_id = ?");
        sdk::Bind(q, static_cast<int64_t>(call.at_ms > 0 ? call.at_ms : env.Now()), call.project_id,
                  call.agent_id);
        q.exec();
      });
    } catch (const std::exception& e) {
      env.host.Log().Warn(std::string("presence refresh after ") + call.tool + " failed: " + e.what());
    }
  };
}

void RegisterPresenceTools(sdk::Registrar& registrar, const ToolContext& env) {
  {
    sdk::ToolSpec spec;
    spec.name = "presence_ping";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Announce you are active";
    spec.description =
        "Heartbeat: tell other agents in this project that you are active, optionally with "
        "a short status and what you are focused on. Call it at the start of work and every "
        "few minutes while working (once you have pinged, any successful write of any layer "
        "also counts as a heartbeat). You count "
        "as live for presence_ttl_seconds (default 900 s) after your last heartbeat; after "
        "that your file claims may be taken over. Omitted fields keep their previous value.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"status", schema::String(200, "Short status, e.g. \"editing\", \"reviewing\", \"idle\".")},
          {"focus", schema::String(1000, "What you are working on, one line.")},
          {"agent_id", AgentIdProp()},
      });
    };
    spec.output_schema =
        schema::Output({{"agent_id", schema::Type("string")},
                        {"status", schema::Type("string")},
                        {"focus", schema::Type("string")},
                        {"last_seen", schema::Type("string")},
                        {"live_until", schema::Type("string")},
                        {"ttl_seconds", schema::Type("integer")}},
                       {"agent_id", "status", "focus", "last_seen", "live_until", "ttl_seconds"});
    spec.annotations.idempotent = false;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return PresencePing(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "presence_list";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "List agents active in this project";
    spec.description =
        "Who else is working in this project right now. Liveness is computed when you ask: "
        "an agent is live if its last heartbeat (presence_ping or any write) is within "
        "ttl_seconds (default: the server's presence TTL, 900 s). Use before claiming files "
        "or the workspace to see who you might collide with.";
    Json agent = schema::Output({{"agent_id", schema::Type("string")},
                                 {"status", schema::Type("string")},
                                 {"focus", schema::Type("string")},
                                 {"last_seen", schema::Type("string")},
                                 {"first_seen", schema::Type("string")},
                                 {"seconds_since_seen", schema::Type("integer")},
                                 {"liveness", {{"enum", {"live", "stale"}}}},
                                 {"you", schema::Bool()}},
                                {"agent_id", "last_seen", "liveness"});
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"ttl_seconds", schema::Integer(kMinTtlSeconds, 7 * 86'400, "Liveness window in seconds (default 900).")},
          {"include_stale", schema::Bool("Also list agents whose heartbeat is older (default false).")},
          {"limit", schema::Integer(1, 500, "Most agents to list (default 100).")},
          {"cursor", schema::String(16)},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema = schema::Output({{"agents", schema::ArrayOf(agent)},
                                        {"ttl_seconds", schema::Type("integer")},
                                        {"live", schema::Type("integer")},
                                        {"stale", schema::Type("integer")},
                                        {"omitted", schema::Type("integer")},
                                        {"next_cursor", schema::Type("string")}},
                                       {"agents", "ttl_seconds", "omitted"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return PresenceList(env, a, c);
    });
  }
}

}  // namespace kioku::working
