#include "store.hpp"

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::episodic {

namespace {
std::string Shown(std::string_view s) { return sdk::TruncateUtf8(sdk::SanitizeUtf8(s), 80); }
}  // namespace

const char* const kSummaryColumns =
    "id, session_id, kind, status, COALESCE(folded_into, ''), summary, token_count, model, "
    "message_count, started_at, ended_at, created_at, agent_id, method, "
    "COALESCE(source_key, ''), highlights_model";

std::optional<Session> LoadSession(SQLite::Database& db, std::string_view id) {
  SQLite::Statement q(db,
                      "SELECT id, agent_id, model, project, title, source, branch, started_at, "
                      "ended_at, last_activity_at, message_count FROM episodic_sessions "
                      "WHERE id = ?");
  sdk::Bind(q, std::string(id));
  if (!q.executeStep()) return std::nullopt;
  Session s;
  s.id = q.getColumn(0).getString();
  s.agent_id = q.getColumn(1).getString();
  s.model = q.getColumn(2).getString();
  s.project = q.getColumn(3).getString();
  s.title = q.getColumn(4).getString();
  s.source = q.getColumn(5).getString();
  s.branch = q.getColumn(6).getString();
  s.started_at = q.getColumn(7).getInt64();
  if (!q.getColumn(8).isNull()) s.ended_at = q.getColumn(8).getInt64();
  s.last_activity_at = q.getColumn(9).getInt64();
  s.message_count = q.getColumn(10).getInt64();
  return s;
}

void CheckSessionIdFormat(std::string_view id) {
  bool ok = !id.empty() && id.size() <= 128;
  for (char c : id) {
    if (c <= ' ' || c > '~') ok = false;
  }
  if (!ok) {
    throw sdk::ToolError("session_id '" + Shown(id) +
                         "' is not usable: send 1-128 printable ASCII characters without "
                         "spaces (e.g. a UUID or '2026-05-19-login'), or omit it");
  }
}

std::string ResolveSessionId(SQLite::Database& db, std::string_view typed) {
  const std::string hint = "; call session_start with this session_id first, or pass an id "
                           "from session_recall";
  if (LoadSession(db, typed)) return std::string(typed);
  if (sdk::Utf8Length(typed) < 4) {
    throw sdk::ToolError("unknown session id '" + Shown(typed) + "'" + hint);
  }
  try {
    return sdk::ResolveIdPrefix(db, "episodic_sessions", "id", typed, "session");
  } catch (const sdk::ToolError& e) {
    const std::string what = e.what();
    if (what.rfind("unknown", 0) == 0) throw sdk::ToolError(what + hint);
    throw;
  }
}

bool UpsertSession(SQLite::Database& db, const SessionSeed& seed, std::int64_t now_ms) {
  SQLite::Statement ins(db,
                        "INSERT INTO episodic_sessions (id, agent_id, model, project, title, "
                        "source, branch, started_at, last_activity_at, created_at) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO NOTHING");
  sdk::Bind(ins, seed.id, seed.agent_id, seed.model, seed.project, seed.title, seed.source,
            seed.branch, static_cast<int64_t>(seed.started_at),
            static_cast<int64_t>(seed.started_at), static_cast<int64_t>(now_ms));
  if (ins.exec() == 1) return true;
  SQLite::Statement up(db,
                       "UPDATE episodic_sessions SET "
                       "agent_id = CASE WHEN agent_id = '' THEN ?2 ELSE agent_id END, "
                       "model = CASE WHEN ?3 <> '' THEN ?3 ELSE model END, "
                       "project = CASE WHEN project = '' THEN ?4 ELSE project END, "
                       "title = CASE WHEN title = '' THEN ?5 ELSE title END, "
                       "branch = CASE WHEN ?6 <> '' THEN ?6 ELSE branch END, "
                       "started_at = MIN(started_at, ?7) WHERE id = ?1");
  sdk::Bind(up, seed.id, seed.agent_id, seed.model, seed.project, seed.title, seed.branch,
            static_cast<int64_t>(seed.started_at));
  up.exec();
  return false;
}

void TouchSession(SQLite::Database& db, std::string_view id, std::int64_t at,
                  std::int64_t messages) {
  SQLite::Statement q(db,
                      "UPDATE episodic_sessions SET last_activity_at = MAX(last_activity_at, ?), "
                      "message_count = message_count + ? WHERE id = ?");
  sdk::Bind(q, static_cast<int64_t>(at), static_cast<int64_t>(messages), std::string(id));
  q.exec();
}

LogEntry AppendLog(SQLite::Database& db, LogEntry entry) {
  {
    SQLite::Statement q(db,
                        "SELECT COALESCE(MAX(seq), 0) + 1 FROM episodic_log WHERE session_id = ?");
    sdk::Bind(q, entry.session_id);
    q.executeStep();
    entry.seq = q.getColumn(0).getInt64();
  }
  if (entry.id.empty()) entry.id = sdk::NewId(entry.at);
  SQLite::Statement ins(db,
                        "INSERT INTO episodic_log (id, session_id, seq, at, type, entry, tags, "
                        "agent_id, source_ref) VALUES (?,?,?,?,?,?,?,?,?)");
  sdk::Bind(ins, entry.id, entry.session_id, static_cast<int64_t>(entry.seq),
            static_cast<int64_t>(entry.at), entry.type, entry.entry, sdk::DumpJson(entry.tags),
            entry.agent_id, entry.source_ref);
  ins.exec();
  TouchSession(db, entry.session_id, entry.at);
  return entry;
}

std::string InsertSummary(SQLite::Database& db, Summary s) {
  if (s.id.empty()) s.id = sdk::NewId(s.created_at);
  SQLite::Statement q(db,
                      "INSERT INTO episodic_summaries (id, session_id, kind, status, folded_into, "
                      "summary, token_count, model, message_count, started_at, ended_at, "
                      "created_at, agent_id, method, source_key) "
                      "VALUES (?,?,?,?,NULLIF(?, ''),?,?,?,?,?,?,?,?,?,NULLIF(?, ''))");
  sdk::Bind(q, s.id, s.session_id, s.kind, s.status, s.folded_into, s.text,
            static_cast<int64_t>(s.token_count), s.model, static_cast<int64_t>(s.message_count),
            static_cast<int64_t>(s.started_at), static_cast<int64_t>(s.ended_at),
            static_cast<int64_t>(s.created_at), s.agent_id, s.method, s.source_key);
  q.exec();
  return s.id;
}

Summary ReadSummaryRow(SQLite::Statement& q) {
  Summary s;
  s.id = q.getColumn(0).getString();
  s.session_id = q.getColumn(1).getString();
  s.kind = q.getColumn(2).getString();
  s.status = q.getColumn(3).getString();
  s.folded_into = q.getColumn(4).getString();
  s.text = q.getColumn(5).getString();
  s.token_count = q.getColumn(6).getInt64();
  s.model = q.getColumn(7).getString();
  s.message_count = q.getColumn(8).getInt64();
  s.started_at = q.getColumn(9).getInt64();
  s.ended_at = q.getColumn(10).getInt64();
  s.created_at = q.getColumn(11).getInt64();
  s.agent_id = q.getColumn(12).getString();
  s.method = q.getColumn(13).getString();
  s.source_key = q.getColumn(14).getString();
  s.highlights_model = q.getColumn(15).getString();
  return s;
}

std::optional<Summary> LoadSummary(SQLite::Database& db, std::string_view id) {
  SQLite::Statement q(db, std::string("SELECT ") + kSummaryColumns + " FROM episodic_summaries WHERE id = ?");
  sdk::Bind(q, std::string(id));
  if (!q.executeStep()) return std::nullopt;
  return ReadSummaryRow(q);
}

std::vector<Summary> FoldedInto(SQLite::Database& db, std::string_view consolidated_id) {
  SQLite::Statement q(db, std::string("SELECT ") + kSummaryColumns +
                              " FROM episodic_summaries WHERE folded_into = ? ORDER BY started_at, created_at, id");
  sdk::Bind(q, std::string(consolidated_id));
  std::vector<Summary> out;
  while (q.executeStep()) out.push_back(ReadSummaryRow(q));
  return out;
}

std::vector<std::string> UnrefinedConsolidated(SQLite::Database& db, int limit) {
  SQLite::Statement q(db,
                      "SELECT id FROM episodic_summaries WHERE status = 'active' AND kind = 'consolidated' "
                      "AND highlights_model = '' ORDER BY created_at, id LIMIT ?");
  sdk::Bind(q, limit);
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

bool ReplaceConsolidatedText(SQLite::Database& db, std::string_view id, std::string_view expected_text,
                             std::string_view text, std::string_view highlights_model) {
  SQLite::Statement q(db,
                      "UPDATE episodic_summaries SET summary = ?, token_count = ?, highlights_model = ? "
                      "WHERE id = ? AND status = 'active' AND summary = ?");
  sdk::Bind(q, std::string(text), static_cast<int64_t>(sdk::EstimateTokens(text)), std::string(highlights_model),
            std::string(id), std::string(expected_text));
  return q.exec() > 0;
}

std::vector<Summary> ActiveSummaries(SQLite::Database& db, std::string_view session_id) {
  SQLite::Statement q(db, std::string("SELECT ") + kSummaryColumns +
                              " FROM episodic_summaries WHERE session_id = ? AND status = "
                              "'active' ORDER BY started_at, created_at, id");
  sdk::Bind(q, std::string(session_id));
  std::vector<Summary> out;
  while (q.executeStep()) out.push_back(ReadSummaryRow(q));
  return out;
}

std::int64_t ActiveSummaryTokens(SQLite::Database& db, std::string_view session_id) {
  SQLite::Statement q(db,
                      "SELECT COALESCE(SUM(token_count), 0) FROM episodic_summaries "
                      "WHERE session_id = ? AND status = 'active'");
  sdk::Bind(q, std::string(session_id));
  q.executeStep();
  return q.getColumn(0).getInt64();
}

}  // namespace kioku::episodic
