#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>

#include "keys.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "anchors.hpp"
#include "decay.hpp"
#include "normalize.hpp"
#include "entity_store.hpp"
#include "review_store.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

const Json kStr = sdk::schema::Type("string");

Json MemoryObjectSchema() {
  // Full memory as MemoryToJson writes it; optional fields may be absent.
  return {{"type", "object"},
          {"required", {"id", "kind", "text", "status", "captured_at", "updated_at"}}};
}

std::string MemoryLine(const Memory& m, std::int64_t now) {
  std::string line = m.id + " [" + m.kind + "/" + m.status + "] ";
  if (!m.subject.empty()) line += m.subject + (m.value.empty() ? "" : "=" + m.value) + " ";
  line += Preview(m.text, 120) + " · " + FormatAge(now, m.captured_at);
  if (m.expires_at != 0 && m.expires_at <= now) line += " · expired";
  return line;
}

// The byte room a result may use: the host's cap less a margin for the envelope.
std::size_t Room(const sdk::CallContext& call) {
  return call.result_budget_bytes == 0 ? SIZE_MAX : call.result_budget_bytes * 7 / 8;
}

sdk::ToolResult GetMemory(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  Env env = ctx.MakeEnv();
  const Memory m = ResolveMemory(env.db, args.at("id").get<std::string>());
  Json j = MemoryToJson(m);
  Json history = Json::array();
  std::int64_t history_total = 0;
  {
    SQLite::Statement count(env.db, "SELECT count(*) FROM semantic_memory_history WHERE memory_id = ?");
    sdk::Bind(count, m.id);
    if (count.executeStep()) history_total = count.getColumn(0).getInt64();
    // The latest 200 entries (a memory edited 1,000 times shows its recent past), oldest first.
    SQLite::Statement q(env.db,
                        "SELECT action, at, agent_id, detail, snapshot FROM (SELECT action, at, agent_id, "
                        "detail, snapshot, seq FROM semantic_memory_history WHERE memory_id = ? ORDER BY at "
                        "DESC, seq DESC LIMIT 200) ORDER BY at, seq");
    sdk::Bind(q, m.id);
    while (q.executeStep()) {
      Json h = {{"action", q.getColumn(0).getString()},
                {"at", sdk::FormatRfc3339(q.getColumn(1).getInt64())},
                {"agent_id", q.getColumn(2).getString()},
                {"detail", q.getColumn(3).getString()}};
      if (!q.getColumn(4).isNull()) {
        Json prev = Json::parse(q.getColumn(4).getString(), nullptr, false);
        if (!prev.is_discarded()) h["previous"] = std::move(prev);
      }
      history.push_back(std::move(h));
    }
  }
  Json entities = Json::array();
  {
    SQLite::Statement q(env.db, std::string("SELECT ") + kShownEntityIdSql + ", e.created_at, e.seq, " + KeyTextSql("e.type_key") + ", " +
                                    kEntityNameSql +
                                    " FROM semantic_memory_entities me JOIN semantic_entities e ON e.seq = "
                                    "me.entity_seq WHERE me.memory_seq = ? ORDER BY e.seq");
    sdk::Bind(q, m.seq);
    while (q.executeStep()) {
      entities.push_back(
          {{"id", EntityId(q.getColumn(0).getString(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64())},
           {"type", q.getColumn(3).getString()},
           {"name", q.getColumn(4).getString()}});
    }
  }
  Json supersedes = Json::array();
  {
    SQLite::Statement q(env.db,
                        "SELECT " + MemoryIdSql() + " FROM semantic_memories WHERE superseded_by = ? ORDER BY seq "
                        "LIMIT 50");
    sdk::Bind(q, m.id);
    while (q.executeStep()) supersedes.push_back(q.getColumn(0).getString());
  }
  // Fit under the host's byte cap: previous versions are the bulk, so the oldest entries
  // lose their snapshot first, then the oldest entries go; the counts say what was left out.
  const std::size_t room = Room(call);
  const std::size_t fixed = sdk::DumpJson(j).size() + sdk::DumpJson(entities).size() +
                            sdk::DumpJson(supersedes).size() + 2 * m.text.size() + 1024;
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (const Json& h : history) total += sizes.emplace_back(sdk::DumpJson(h).size() + 48);
  std::int64_t snapshots_omitted = 0;
  for (std::size_t i = 0; i < history.size() && fixed + total > room; ++i) {
    if (!history[i].contains("previous")) continue;
    history[i].erase("previous");
    const std::size_t now_size = sdk::DumpJson(history[i]).size() + 48;
    total -= sizes[i] - now_size;
    sizes[i] = now_size;
    ++snapshots_omitted;
  }
  std::size_t drop = 0;
  while (drop < history.size() && fixed + total > room) total -= sizes[drop++];
  if (drop > 0) history.erase(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(drop));
  const std::int64_t history_omitted = history_total - static_cast<std::int64_t>(history.size());
  j["history"] = history;
  j["entities"] = entities;
  j["supersedes"] = supersedes;
  if (history_omitted > 0) j["history_omitted"] = history_omitted;
  if (snapshots_omitted > 0) j["previous_versions_omitted"] = snapshots_omitted;

  const std::int64_t now = env.clock.NowMs();
  std::string text = m.id + " [" + m.kind + "/" + m.status + ", importance " +
                     std::to_string(m.importance) + ", " + m.scope.kind +
                     (m.scope.path.empty() ? "" : " " + m.scope.path) + "]\n" + m.text;
  if (!m.subject.empty()) text += "\nsubject: " + m.subject + (m.value.empty() ? "" : " = " + m.value);
  if (!m.tags.empty()) text += "\ntags: " + JoinTags(m.tags);
  const std::string age = FormatAge(now, m.captured_at);
  text += "\ncaptured " + sdk::FormatRfc3339(m.captured_at) + " (" + (age == "now" ? "just now" : age + " ago") +
          ") by " + (m.agent_id.empty() ? "unknown agent" : m.agent_id) + "; recalled " +
          std::to_string(m.recall_count) + "×, reaffirmed " + std::to_string(m.reaffirm_count) + "×";
  if (m.expires_at != 0) text += "; expires " + sdk::FormatRfc3339(m.expires_at);
  if (const std::optional<double> decayed = DecayedConfidenceNow(env, m)) {
    const double rounded = std::round(*decayed * 100) / 100;
    j["decayed_confidence"] = rounded;
    char buf[128];
    std::snprintf(buf, sizeof buf, "\nconfidence %.2f, decayed to %.2f (reaffirm it or mark it used to refresh)",
                  m.confidence, rounded);
    if (rounded < m.confidence - 0.005) text += buf;
  }
  if (!m.superseded_by.empty()) text += "\nsuperseded by " + m.superseded_by;
  if (!supersedes.empty()) text += "\nreplaced " + Plural(supersedes.size(), "older memory", "older memories");
  if (history_omitted > 0) {
    text += "\n" + std::to_string(history_omitted) + " older history entries left out (result size cap)";
  }
  for (const Json& h : history) {
    text += "\n" + h["at"].get<std::string>() + " " + h["action"].get<std::string>();
    const std::string detail = h["detail"].get<std::string>();
    if (!detail.empty()) text += " (" + Preview(detail, 200) + ")";
  }
  if (snapshots_omitted > 0) {
    text += "\n(" + std::to_string(snapshots_omitted) + " previous versions not shown: result size cap)";
  }
  return sdk::ToolResult::Ok(text, Json{{"memory", j}});
}

// A memory_list cursor: the position after which the next page starts, the (captured_at,
// seq) of the page's last memory as sdk::DerivedId, so it holds when that memory is
// forgotten or purged meanwhile, or was imported (its id then says nothing of its seq here).
std::string CursorAfter(const Memory& m) { return sdk::DerivedId(m.captured_at, m.seq); }

// Where a memory_list page continues: what CursorAfter wrote, or the position of the memory a
// cursor of an earlier kioku names (its id). ToolError for what no page returned.
std::pair<std::int64_t, std::int64_t> CursorPosition(SQLite::Database& db, const std::string& cursor) {
  if (const std::optional<sdk::DerivedIdParts> at = sdk::ParseDerivedId(cursor)) return {at->unix_ms, at->seq};
  if (const std::optional<std::int64_t> seq = MemorySeqOfId(db, cursor)) {
    SQLite::Statement q(db, "SELECT captured_at FROM semantic_memories WHERE seq = ?");
    sdk::Bind(q, *seq);
    if (q.executeStep()) return {q.getColumn(0).getInt64(), *seq};
  }
  throw sdk::ToolError("cursor '" + sdk::TruncateUtf8(cursor, 40) +
                       "' is not one this tool returned; send next_cursor from the previous page, or omit it for "
                       "the first page");
}

sdk::ToolResult ListMemories(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const sdk::Caller& caller = call.caller;
  Env env = ctx.MakeEnv();
  const int limit = args.value("limit", 20);
  std::vector<std::string> statuses = {"active", "pinned", "pending", "contested"};
  if (args.contains("status")) statuses = args.at("status").get<std::vector<std::string>>();
  std::vector<std::string> kinds;
  if (args.contains("kinds")) kinds = args.at("kinds").get<std::vector<std::string>>();

  std::string sql = std::string("SELECT ") + MemoryColumns() + " FROM semantic_memories m WHERE ";
  std::vector<std::string> binds;
  if (caller.project_id.empty()) {
    sql += "m.scope = 'global'";
  } else {
    sql += "(m.scope = 'global' OR m.project_key = " + KeyOfSql("?") + ")";
    binds.push_back(caller.project_id);
  }
  sql += " AND m.status IN (";
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    sql += i ? ",?" : "?";
    binds.push_back(statuses[i]);
  }
  sql += ")";
  if (!kinds.empty()) {
    sql += " AND m.kind IN (";
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      sql += i ? ",?" : "?";
      binds.push_back(kinds[i]);
    }
    sql += ")";
  }
  if (args.contains("scope")) {
    sql += " AND m.scope = ?";
    binds.push_back(args.at("scope").get<std::string>());
  }
  std::optional<std::pair<std::int64_t, std::int64_t>> after;  // the cursor's (captured_at, seq)
  if (args.contains("cursor")) {
    after = CursorPosition(env.db, args.at("cursor").get<std::string>());
    sql += " AND (m.captured_at, m.seq) < (?, ?)";
  }
  sql += " ORDER BY m.captured_at DESC, m.seq DESC LIMIT " + std::to_string(limit + 1);
  SQLite::Statement q(env.db, sql);
  for (std::size_t i = 0; i < binds.size(); ++i) q.bind(static_cast<int>(i + 1), binds[i]);
  if (after) {
    q.bind(static_cast<int>(binds.size()) + 1, static_cast<int64_t>(after->first));
    q.bind(static_cast<int>(binds.size()) + 2, static_cast<int64_t>(after->second));
  }
  std::vector<Memory> rows;
  while (q.executeStep()) rows.push_back(ReadMemory(q));
  bool more = static_cast<int>(rows.size()) > limit;
  if (more) rows.pop_back();

  // A page ends early when the next memory would push the result over the host's byte cap;
  // next_cursor then continues right after the last memory shown.
  const std::int64_t now = env.clock.NowMs();
  const std::size_t room = Room(call);
  Json list = Json::array();
  std::string text;
  std::size_t used = 256;
  std::size_t shown = 0;
  for (const Memory& m : rows) {
    Json item = MemoryToJson(m);
    std::string line = MemoryLine(m, now) + "\n";
    const std::size_t cost = sdk::DumpJson(item).size() + line.size() + 1;
    if (shown > 0 && used + cost > room) break;
    used += cost;
    list.push_back(std::move(item));
    text += line;
    ++shown;
  }
  const bool cut = shown < rows.size();
  if (cut) {
    rows.resize(shown);
    more = true;
  }
  Json out = {{"memories", list}};
  if (more) out["next_cursor"] = CursorAfter(rows.back());
  if (rows.empty()) {
    text = args.contains("cursor") ? "no more memories" : "no memories match";
  } else {
    text = Plural(rows.size(), "memory", "memories") + " (newest first" +
           (cut ? "; page shortened to fit the result size cap" : "") + "):\n" + text;
    if (more) text += "more: memory_list with cursor \"" + CursorAfter(rows.back()) + "\"";
    else text.pop_back();
  }
  return sdk::ToolResult::Ok(text, out);
}

sdk::ToolResult EditMemory(ToolContext& ctx, const Json& args, const sdk::Caller& caller) {
  Env env = ctx.MakeEnv();
  const std::int64_t now = env.clock.NowMs();
  MemoryEdit e;
  sdk::ScreenSecrets(args);
  if (args.contains("text")) {
    std::string text = sdk::SanitizeUtf8(Trim(args.at("text").get<std::string>()));
    if (text.empty()) throw sdk::ToolError("text is empty; send the new text or omit text");
    if (sdk::Utf8Length(text) > static_cast<std::size_t>(kMaxTextChars)) {
      throw sdk::ToolError("text is longer than 4000 characters; shorten it");
    }
    e.text = std::move(text);
  }
  if (args.contains("kind")) e.kind = args.at("kind").get<std::string>();
  if (args.contains("subject")) e.subject = NormalizeSubject(args.at("subject").get<std::string>());
  if (args.contains("value")) {
    e.value = std::string(Trim(args.at("value").get<std::string>()));
  }
  if (e.subject && e.subject->empty() && !e.value) e.value = "";  // clearing the subject clears its value
  if (args.contains("tags")) e.tags = ParseTags(args.at("tags"));
  if (args.contains("importance")) e.importance = args.at("importance").get<int>();
  if (args.contains("confidence")) e.confidence = args.at("confidence").get<double>();
  if (args.contains("expires")) e.expires_at = ParseExpires(args.at("expires"), now);
  if (args.contains("anchor")) {
    e.anchor = std::string(Trim(args.at("anchor").get<std::string>()));
    if (const std::string bad = ValidateAnchor(*e.anchor); !bad.empty()) throw sdk::ToolError(bad);
    if (const std::string bad = ConfineAnchor(*e.anchor, caller.project_root); !bad.empty()) {
      throw sdk::ToolError(bad);
    }
  }
  if (args.contains("source_ref")) {
    e.source_ref = args.at("source_ref").get<std::string>();
  }
  if (args.contains("status")) e.status = args.at("status").get<std::string>();
  if (args.contains("scope") || args.contains("path")) {
    std::optional<std::string> path;
    if (args.contains("path")) path = args.at("path").get<std::string>();
    e.scope = ResolveWriteScope(args.value("scope", ""), path, caller, ctx.settings);
  }
  if (args.size() <= 1) {
    throw sdk::ToolError("nothing to change: send id and at least one of text, kind, subject, "
                         "value, tags, importance, confidence, scope, path, expires, anchor, "
                         "source_ref, status");
  }

  EditResult result;
  WithMemoryWriter(env, [&](MemoryWriter& writer) {
    const Memory current = ResolveMemory(env.db, args.at("id").get<std::string>());
    const Author author = AuthorOf(caller);
    if (e.status == "active" && current.status == "pinned") {
      // Confirming a pinned memory that is one side of a contest settles the contest; it
      // stays pinned (memory_pin pinned:false unpins). Without an open contest the edit
      // refuses as before: "active" would unpin it.
      std::vector<std::string> settled = SettlePinnedContests(env, current, author);
      if (settled.empty()) {
        result = writer.Edit(current, e, author);  // throws: pinned, use memory_pin
        return;
      }
      MemoryEdit rest = e;
      rest.status.reset();
      result = writer.Edit(current, rest, author);
      result.changed.emplace_back("rivals");
      for (std::string& id : settled) result.replaced.push_back(std::move(id));
      return;
    }
    if (e.status != "active" || (current.status != "pending" && current.status != "contested")) {
      result = writer.Edit(current, e, author);
      // A new subject/value may have superseded one side of a rival pair: close the pair now
      // and free the other side, not at the next housekeeping.
      if (!result.replaced.empty()) ResolveGoneRivals(env, author.agent_id);
      return;
    }
    // Confirming a pending or contested memory is memory_review's promote (review_store.hpp),
    // which the core tool profile does not list: its open rival pairs close and their other
    // sides are superseded, so no rival stays contested behind it.
    MemoryEdit rest = e;
    rest.status.reset();
    result = writer.Edit(current, rest, author);
    const ReviewActionResult promoted = Promote(env, writer, result.memory, author);
    result.changed.emplace_back("status");
    for (const std::string& id : promoted.superseded) {
      if (std::find(result.replaced.begin(), result.replaced.end(), id) == result.replaced.end()) {
        result.replaced.push_back(id);
      }
    }
    // A conflict the edit found (a pinned memory with another value) that the confirmation
    // then superseded is no conflict any more.
    std::erase_if(result.conflicts, [&](const std::string& id) {
      return std::find(result.replaced.begin(), result.replaced.end(), id) != result.replaced.end();
    });
    if (std::optional<Memory> now_m = LoadMemoryBySeq(env.db, current.seq)) result.memory = std::move(*now_m);
  });
  std::string text;
  if (result.changed.empty()) {
    text = "no change: memory " + result.memory.id + " already says that";
  } else {
    text = "edited " + result.memory.id + " (" ;
    for (std::size_t i = 0; i < result.changed.size(); ++i) text += (i ? ", " : "") + result.changed[i];
    text += "); previous version kept in history";
    if (!result.replaced.empty()) {
      text += "; superseded " + Plural(result.replaced.size(), "rival", "rivals") + ":";
      for (const std::string& id : result.replaced) text += " " + id;
    }
    if (!result.conflicts.empty()) {
      text += "; now " + result.memory.status + ", conflicts with:";
      for (const std::string& id : result.conflicts) text += " " + id;
    }
  }
  Json out = {{"memory", MemoryToJson(result.memory)},
              {"changed", result.changed},
              {"replaced", result.replaced},
              {"conflicts", result.conflicts}};
  return sdk::ToolResult::Ok(text, out);
}

}  // namespace

void RegisterManageTools(sdk::Registrar& registrar, ToolContext& ctx) {
  {
    sdk::ToolSpec spec;
    spec.name = "memory_get";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Show one memory in full";
    spec.description =
        "Show one memory with all its fields, its history (reaffirmations, edits with the "
        "previous versions, supersession, pins), the entities found in it and what it "
        "replaced. Send its id or a unique prefix of at least 4 characters.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema =
          sdk::schema::Object({{"id", sdk::schema::IdPrefix("Memory id or unique prefix (>= 4).")}}, {"id"});
      t.output_schema = sdk::schema::Output({{"memory", MemoryObjectSchema()}}, {"memory"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      return GetMemory(ctx, args, call);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "memory_list";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "List memories";
    spec.description =
        "Page through stored memories, newest first, to review or clean up (use "
        "memory_recall to search). Filter by kinds, status (default: all but superseded) and "
        "scope; pass next_cursor from one page to get the next.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object({
          {"kinds", {{"type", "array"}, {"items", sdk::schema::Enum(MemoryKinds(), "kind")}, {"maxItems", 8}}},
          {"status",
           {{"type", "array"},
            {"items", sdk::schema::Enum(MemoryStatuses(), "status")},
            {"minItems", 1},
            {"maxItems", 5}}},
          {"scope", sdk::schema::Enum({"global", "project", "path"}, "Only this scope.")},
          {"cursor", sdk::schema::String(64, "next_cursor from the previous page.")},
          {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"description", "Page size, default 20."}}},
      });
      t.output_schema = sdk::schema::Output(
          {{"memories", {{"type", "array"}, {"items", MemoryObjectSchema()}}}, {"next_cursor", kStr}}, {"memories"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      return ListMemories(ctx, args, call);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "memory_edit";
    spec.title = "Edit a memory";
    spec.description =
        "Correct a memory in place (history kept); status \"active\" confirms a pending or "
        "contested one. A value that changed over time: memory_remember the new one.";
    Json props = {
        {"id", sdk::schema::IdPrefix("id or prefix")},
        {"text", sdk::schema::String(kMaxTextChars, "", 1)},
        {"kind", sdk::schema::Enum(MemoryKinds(), "")},
        {"subject", sdk::schema::String(200, "\"\" clears subject and value")},
        {"value", sdk::schema::String(500, "")},
        {"tags", {{"type", "array"}, {"items", sdk::schema::String(64, "")}, {"maxItems", kMaxTags}}},
        {"importance", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"scope", sdk::schema::Enum({"global", "project", "path"}, "")},
        {"path", sdk::schema::String(1024, "")},
        {"expires", sdk::schema::String(64, "\"permanent\" or RFC 3339")},
        {"anchor", sdk::schema::String(500, "\"\" clears it")},
        {"source_ref", sdk::schema::String(500, "")},
        {"status", sdk::schema::Enum({"active"}, "")},
    };
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object(props, {"id"});
      t.output_schema = sdk::schema::Output({{"memory", MemoryObjectSchema()},
                                             {"changed", {{"type", "array"}, {"items", kStr}}},
                                             {"replaced", {{"type", "array"}, {"items", kStr}}},
                                             {"conflicts", {{"type", "array"}, {"items", kStr}}}},
                                            {"memory", "changed"});
    };
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      return EditMemory(ctx, args, call.caller);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "memory_forget";
    spec.title = "Forget a memory";
    spec.description =
        "Stop recalling a wrong or obsolete memory (soft, audited). purge:true deletes it "
        "and its history: only for what must not be kept.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object(
          {{"id", sdk::schema::IdPrefix("id or prefix")}, {"purge", {{"type", "boolean"}}}}, {"id"});
      t.output_schema = sdk::schema::Output(
          {{"id", kStr},
           {"action", sdk::schema::Enum({"forgotten", "already_forgotten", "purged"}, "")},
           {"reinstated", {{"type", "array"}, {"items", kStr}}}},
          {"id", "action"});
    };
    spec.annotations.destructive = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      Env env = ctx.MakeEnv();
      const bool purge = args.value("purge", false);
      std::string action;
      std::string id;
      std::vector<std::string> reinstated;
      WithMemoryWriter(env, [&](MemoryWriter& writer) {
        const Memory m = ResolveMemory(env.db, args.at("id").get<std::string>());
        const Author author = AuthorOf(call.caller);
        id = m.id;
        // The other side of each open rival pair is no longer contested by this one.
        reinstated = ReleaseRivals(env, m, author.agent_id);
        if (purge) {
          writer.Purge(m, author);
          action = "purged";
        } else {
          action = writer.Forget(m, author) ? "forgotten" : "already_forgotten";
        }
        // A pinned value of a subject kept its other values contested: they are free now.
        for (std::string& r : ReleaseSubjectRivals(env, m, author.agent_id)) reinstated.push_back(std::move(r));
      });
      std::string text;
      if (action == "purged") {
        text = "purged " + id + ": the memory and its history are deleted for real (one audit "
               "row without content remains)";
      } else if (action == "forgotten") {
        text = "forgot " + id + " (soft: status superseded, no longer recalled; purge: true deletes it)";
      } else {
        text = id + " was already superseded or forgotten; nothing changed";
      }
      Json out{{"id", id}, {"action", action}};
      if (!reinstated.empty()) {
        text += "; no longer contested: ";
        for (std::size_t i = 0; i < reinstated.size(); ++i) text += (i ? ", " : "") + reinstated[i];
        out["reinstated"] = reinstated;
      }
      return sdk::ToolResult::Ok(text, out);
    });
  }
  {
    // One tool for both directions: pin and unpin differ only by the flag.
    sdk::ToolSpec spec;
    spec.name = "memory_pin";
    spec.title = "Pin or unpin a memory";
    spec.description =
        "Pin what the user insists on: never decays, ranks first, a different later value "
        "becomes contested instead of replacing it; confirms a pending one. pinned:false "
        "unpins.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object({{"id", sdk::schema::IdPrefix("id or prefix")},
                                            {"pinned", {{"type", "boolean"}, {"description", "default true"}}}},
                                           {"id"});
      t.output_schema = sdk::schema::Output({{"id", kStr},
                                             {"status", kStr},
                                             {"changed", {{"type", "boolean"}}},
                                             {"replaced", {{"type", "array"}, {"items", kStr}}}},
                                            {"id", "status", "changed"});
    };
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      const bool pin = args.value("pinned", true);
      Env env = ctx.MakeEnv();
      std::string id, status;
      bool changed = false;
      std::vector<std::string> replaced;
      WithMemoryWriter(env, [&](MemoryWriter& writer) {
        Memory m = ResolveMemory(env.db, args.at("id").get<std::string>());
        id = m.id;
        replaced.clear();  // the body runs again after a busy retry
        if (pin) {
          changed = m.status != "pinned";
          const Author author = AuthorOf(call.caller);
          if (m.status == "pending" || m.status == "contested") {
            // Pinning one side of a contest confirms it first, as memory_edit status "active"
            // does: its pairs close and their other sides are superseded.
            replaced = Promote(env, writer, m, author).superseded;
            if (std::optional<Memory> now_m = LoadMemoryBySeq(env.db, m.seq)) m = std::move(*now_m);
          }
          std::vector<std::string> more = writer.Pin(m, author);
          // Pinned already, one side of a contest: pinning it again confirms it.
          if (std::optional<Memory> now_m = LoadMemoryBySeq(env.db, m.seq)) {
            for (std::string& r : SettlePinnedContests(env, *now_m, author)) more.push_back(std::move(r));
          }
          for (std::string& r : more) {
            if (std::find(replaced.begin(), replaced.end(), r) == replaced.end()) replaced.push_back(std::move(r));
          }
          changed = changed || !replaced.empty();
          status = "pinned";
        } else {
          if (m.status == "superseded") {
            throw sdk::ToolError("memory " + m.id + " is superseded, not pinned; nothing to unpin");
          }
          changed = writer.Unpin(m, AuthorOf(call.caller));
          if (changed) UnpinnedInPairs(env, m.seq);
          status = changed ? "active" : m.status;
        }
      });
      std::string text = changed ? (pin ? "pinned " : "unpinned ") + id
                                 : id + " was already " + status + "; nothing changed";
      if (!replaced.empty()) {
        text += "; superseded rivals:";
        for (const std::string& r : replaced) text += " " + r;
      }
      Json out = {{"id", id}, {"status", status}, {"changed", changed}};
      if (!replaced.empty()) out["replaced"] = replaced;
      return sdk::ToolResult::Ok(text, out);
    });
  }
}

}  // namespace kioku::semantic
