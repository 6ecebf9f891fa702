// handoff_write / handoff_inbox / handoff_claim: cross-session and cross-agent handoffs
// (dokoro dokoro_handoff_*). A claim is a conditional UPDATE inside BEGIN IMMEDIATE, so
// exactly one of any number of concurrent claimers wins, across processes.
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/sql.hpp"
#include "tools.hpp"

namespace kioku::working {
namespace {

constexpr std::int64_t kMaxOpenItems = 50;
constexpr std::int64_t kMaxOpenItemBytes = 1000;

struct Handoff {
  std::string id;
  std::string project_id;
  std::string from_agent;
  std::optional<std::string> to_agent;
  std::string summary;
  Json open_items = Json::array();
  std::int64_t created_at_ms = 0;
  std::optional<std::string> claimed_by;
  std::optional<std::int64_t> claimed_at_ms;
};

constexpr const char* kHandoffColumns =
    "id, project_id, from_agent, to_agent, summary, open_items, created_at, claimed_by, "
    "claimed_at";

Handoff ReadHandoff(SQLite::Statement& q) {
  Handoff h;
  h.id = q.getColumn(0).getString();
  h.project_id = q.getColumn(1).getString();
  h.from_agent = q.getColumn(2).getString();
  if (!q.getColumn(3).isNull()) h.to_agent = q.getColumn(3).getString();
  h.summary = q.getColumn(4).getString();
  h.open_items = Json::parse(q.getColumn(5).getString(), nullptr, false);
  if (!h.open_items.is_array()) h.open_items = Json::array();
  h.created_at_ms = q.getColumn(6).getInt64();
  if (!q.getColumn(7).isNull()) h.claimed_by = q.getColumn(7).getString();
  if (!q.getColumn(8).isNull()) h.claimed_at_ms = q.getColumn(8).getInt64();
  return h;
}

Json HandoffJson(const Handoff& h) {
  return {{"handoff_id", h.id},
          {"from_agent", h.from_agent},
          {"to_agent", h.to_agent ? Json(*h.to_agent) : Json(nullptr)},
          {"summary", h.summary},
          {"open_items", h.open_items},
          {"created_at", Rfc(h.created_at_ms)},
          {"claimed_by", h.claimed_by ? Json(*h.claimed_by) : Json(nullptr)},
          {"claimed_at", RfcOrNull(h.claimed_at_ms)}};
}

std::string HandoffLine(const Handoff& h) {
  std::string line = h.id + " from " + h.from_agent +
                     (h.to_agent ? " to " + *h.to_agent : std::string(" to anyone")) + " at " +
                     Rfc(h.created_at_ms) + ": " + Snip(h.summary, 120);
  if (!h.open_items.empty()) line += " [" + std::to_string(h.open_items.size()) + " open item(s)]";
  if (h.claimed_by) line += " — claimed by " + *h.claimed_by;
  return line;
}

sdk::ToolResult HandoffWrite(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::string summary =
      RequiredTextArg(env, args, "summary", env.settings.max_text_bytes);
  Json items = Json::array();
  if (args.contains("open_items") && !args.at("open_items").is_null()) {
    const auto& raw = args.at("open_items");
    if (static_cast<std::int64_t>(raw.size()) > kMaxOpenItems) {
      throw sdk::ToolError("open_items has " + std::to_string(raw.size()) +
                           " entries; the limit is " + std::to_string(kMaxOpenItems));
    }
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const std::string item = CheckText(env, raw[i].get<std::string>(),
                                         "open_items[" + std::to_string(i) + "]",
                                         kMaxOpenItemBytes);
      if (!item.empty()) items.push_back(item);
    }
  }
  std::optional<std::string> to_agent;
  if (args.contains("to_agent") && !args.at("to_agent").is_null()) {
    to_agent = args.at("to_agent").get<std::string>();
    if (to_agent->empty() || to_agent->size() > kMaxAgentIdBytes) {
      throw sdk::ToolError("to_agent must be an agent id of 1 to 128 bytes, or omitted for "
                           "a handoff open to any agent");
    }
    RefuseSecret(env, *to_agent, "to_agent");
  }
  auto& db = env.Db();
  std::string id;
  std::int64_t now = 0;
  sdk::WithWriteTransaction(db, [&] {
    now = env.Now();
    id = sdk::NewId(now);
    SQLite::Statement ins(db,
                          "INSERT INTO working_handoffs (id, project_id, from_agent, to_agent, "
                          "summary, open_items, session_id, created_at) VALUES (?, ?, ?, ?, "
                          "?, ?, ?, ?)");
    sdk::Bind(ins, id, actor.project_id, actor.agent_id, to_agent, summary, sdk::DumpJson(items),
              actor.session_id, now);
    ins.exec();
    RecordEvent(db, actor, "handoff.write", id,
                {{"to_agent", to_agent ? Json(*to_agent) : Json(nullptr)},
                 {"excerpt", Snip(summary, 120)}},
                now);
    TouchPresence(db, actor, now);
  });
  Json out = {{"handoff_id", id},
              {"to_agent", to_agent ? Json(*to_agent) : Json(nullptr)},
              {"created_at", Rfc(now)},
              {"open_items", items.size()}};
  return sdk::ToolResult::Ok("handoff " + id + " written for " +
                                 (to_agent ? *to_agent : std::string("any agent")) +
                                 "; the recipient claims it with handoff_claim",
                             std::move(out));
}

sdk::ToolResult HandoffInbox(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const bool include_claimed = args.value("include_claimed", false);
  const std::int64_t limit = args.value("limit", std::int64_t{20});
  const std::size_t offset = sdk::CursorOffset(args, "handoff_inbox");
  auto& db = env.Db();
  // Every match from the cursor on is read (rows past the page only counted), so `omitted`
  // is exact; handoffs are per project and few.
  SQLite::Statement q(db, std::string("SELECT ") + kHandoffColumns +
                              " FROM working_handoffs WHERE project_id = ?1 AND (to_agent IS "
                              "NULL OR to_agent = ?2 OR to_agent = ?5) AND (?3 OR claimed_by IS NULL) ORDER BY "
                              "created_at DESC, id DESC LIMIT -1 OFFSET ?4");
  sdk::Bind(q, actor.project_id, actor.agent_id, include_claimed, static_cast<std::int64_t>(offset),
            actor.agent_name);
  sdk::ResultPage page(offset, static_cast<std::size_t>(limit), sdk::ResultRoom(ctx));
  Json list = Json::array();
  std::string lines;
  while (q.executeStep()) {
    if (page.Shown() >= static_cast<std::size_t>(limit) || page.Omitted() > 0) {
      page.Offer(0);  // past the page: counted only
      continue;
    }
    const Handoff h = ReadHandoff(q);
    Json j = HandoffJson(h);
    FitFields(j, {"summary", "open_items"}, sdk::ResultRoom(ctx) - 1024);  // one row never overflows
    std::string line = "\n- " + HandoffLine(h);
    if (!page.Offer(sdk::RowBytes(j, line))) continue;
    list.push_back(std::move(j));
    lines += line;
  }
  std::string text = list.empty() ? std::string("no open handoffs for ") + actor.agent_id
                                  : std::to_string(list.size()) + " handoff(s) for " +
                                        actor.agent_id +
                                        " (claim one with handoff_claim to take it on):" + lines;
  if (const std::string more = page.MoreText("handoff_inbox"); !more.empty()) text += "\n" + more;
  Json out = {{"handoffs", std::move(list)}};
  page.Describe(out);
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult HandoffClaim(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::string raw_id = args.value("handoff_id", std::string());
  auto& db = env.Db();
  Handoff h;
  std::string refusal;
  sdk::WithWriteTransaction(db, [&] {
    refusal.clear();
    const std::int64_t now = env.Now();
    const std::string id =
        sdk::ResolveIdPrefix(db, "working_handoffs", "id", raw_id, "handoff");
    SQLite::Statement q(db, std::string("SELECT ") + kHandoffColumns +
                                " FROM working_handoffs WHERE id = ?");
    sdk::Bind(q, id);
    if (!q.executeStep()) throw sdk::ToolError("unknown handoff id '" + raw_id + "'");
    h = ReadHandoff(q);
    if (h.project_id != actor.project_id) {
      throw sdk::ToolError("unknown handoff id '" + raw_id +
                           "' in this project; handoff_inbox lists yours");
    }
    // Addressed to an agent: any of its windows may take it; to one window: only that one.
    if (h.to_agent && *h.to_agent != actor.agent_id && *h.to_agent != actor.agent_name) {
      refusal = "handoff " + h.id + " is addressed to " + *h.to_agent + "; only " +
                *h.to_agent + " can claim it. handoff_inbox lists the handoffs open to you.";
      return;
    }
    if (h.claimed_by) {
      refusal = "handoff " + h.id + " was already claimed by " + *h.claimed_by +
                (*h.claimed_by == actor.agent_id ? " (you)" : "") + " at " +
                Rfc(*h.claimed_at_ms) + "; a handoff is taken on once. handoff_inbox lists "
                "open ones.";
      return;
    }
    SQLite::Statement upd(db,
                          "UPDATE working_handoffs SET claimed_by = ?, claimed_at = ? WHERE "
                          "id = ? AND claimed_by IS NULL");
    sdk::Bind(upd, actor.agent_id, now, h.id);
    if (upd.exec() != 1) {
      // Unreachable under BEGIN IMMEDIATE (the row was read unclaimed under the write lock);
      // kept so a broken invariant can never hand one handoff to two agents.
      throw std::runtime_error("handoff " + h.id + " changed during claim");
    }
    h.claimed_by = actor.agent_id;
    h.claimed_at_ms = now;
    RecordEvent(db, actor, "handoff.claim", h.id, {{"from_agent", h.from_agent}}, now);
    TouchPresence(db, actor, now);
  });
  if (!refusal.empty()) throw sdk::ToolError(refusal);
  // Summary and items go out twice (text and JSON): each copy gets half the result room.
  Json out = HandoffJson(h);
  const bool cut = FitFields(out, {"summary", "open_items"}, sdk::ResultRoom(ctx) / 2 - 512);
  std::string text = "claimed handoff " + h.id + " from " + h.from_agent + ":\n" + out["summary"].get<std::string>();
  if (!out["open_items"].empty()) {
    text += "\nOpen items:";
    for (const auto& item : out["open_items"]) text += "\n- " + item.get<std::string>();
  }
  if (cut) {
    text += "\n… [cut to the result size cap: " + std::to_string(out.value("summary_omitted_bytes", std::size_t{0})) +
            " bytes of the summary and " + std::to_string(out.value("open_items_omitted", std::size_t{0})) +
            " open items left out]";
  }
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

Json HandoffOutput() {
  return schema::Output({{"handoff_id", schema::Type("string")},
                         {"from_agent", schema::Type("string")},
                         {"to_agent", schema::Nullable(schema::Type("string"))},
                         {"summary", schema::Type("string")},
                         {"open_items", schema::ArrayOf(schema::Type("string"))},
                         {"created_at", schema::Type("string")},
                         {"claimed_by", schema::Nullable(schema::Type("string"))},
                         {"claimed_at", schema::Nullable(schema::Type("string"))}},
                        {"handoff_id", "from_agent", "to_agent", "summary", "open_items",
                         "created_at", "claimed_by", "claimed_at"});
}

}  // namespace

void RegisterHandoffTools(sdk::Registrar& registrar, const ToolContext& env) {
  {
    sdk::ToolSpec spec;
    spec.name = "handoff_write";
    spec.title = "Leave a handoff for another agent or session";
    spec.description =
        "Stopping mid-task or passing work on: where things stand and open items, for "
        "to_agent or (omitted) any agent here.";
    spec.schemas = [=, &env](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {
              {"summary", schema::String(env.settings.max_text_bytes, "", 1)},
              {"open_items",
               {{"type", "array"}, {"items", schema::String(kMaxOpenItemBytes)}, {"maxItems", kMaxOpenItems}}},
              {"to_agent", schema::String(static_cast<std::int64_t>(kMaxAgentIdBytes), "", 1)},
              {"agent_id", AgentIdProp()},
          },
          {"summary"});
      t.output_schema = schema::Output({{"handoff_id", schema::Type("string")},
                                        {"to_agent", schema::Nullable(schema::Type("string"))},
                                        {"created_at", schema::Type("string")},
                                        {"open_items", schema::Type("integer")}},
                                       {"handoff_id", "to_agent", "created_at"});
    };
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return HandoffWrite(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "handoff_inbox";
    spec.title = "Read handoffs waiting for you";
    spec.description =
        "Unclaimed handoffs for you or any agent, newest first.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"include_claimed", schema::Bool()},
          {"limit", schema::Integer(1, 200, "default 20")},
          {"cursor", schema::String(16)},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema = schema::Output({{"handoffs", schema::ArrayOf(HandoffOutput())},
                                        {"omitted", schema::Type("integer")},
                                        {"next_cursor", schema::Type("string")}},
                                       {"handoffs", "omitted"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return HandoffInbox(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "handoff_claim";
    spec.title = "Take on a handoff";
    spec.description =
        "Take on a handoff (only one agent wins); returns its summary and open items.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {{"handoff_id", schema::String(64, "id or unique prefix", 4)}, {"agent_id", AgentIdProp()}}, {"handoff_id"});
      t.output_schema = HandoffOutput();
    };
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return HandoffClaim(env, a, c);
    });
  }
}

}  // namespace kioku::working
