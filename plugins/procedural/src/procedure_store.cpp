#include "kioku/sdk/sql.hpp"
#include "procedure_store.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/VariadicBind.h>
#include <nlohmann/json.hpp>

namespace kioku::procedural {
namespace {

using nlohmann::json;

constexpr const char* kColumns =
    "seq, id, project_id, name, version, when_text, steps, tags, created_by, created_at, "
    "current";

std::string StepsJson(const std::vector<Step>& steps) {
  json out = json::array();
  for (const auto& s : steps) {
    json j = {{"text", s.text}};
    if (!s.command.empty()) j["command"] = s.command;
    out.push_back(std::move(j));
  }
  return out.dump();
}

// Plain text of the steps for the text index.
std::string StepsText(const std::vector<Step>& steps) {
  std::string out;
  for (const auto& s : steps) {
    out += s.text;
    if (!s.command.empty()) out += " " + s.command;
    out += "\n";
  }
  return out;
}

std::string TagsText(const std::vector<std::string>& tags) {
  std::string out;
  for (const auto& t : tags) out += t + " ";
  return out;
}

std::pair<std::int64_t, Procedure> Read(SQLite::Statement& q) {
  Procedure p;
  const std::int64_t seq = q.getColumn(0).getInt64();
  p.id = q.getColumn(1).getString();
  p.project_id = q.getColumn(2).getString();
  p.name = q.getColumn(3).getString();
  p.version = q.getColumn(4).getInt();
  p.when = q.getColumn(5).getString();
  const auto steps = json::parse(q.getColumn(6).getString(), nullptr, false);
  if (steps.is_array()) {
    for (const auto& s : steps) p.steps.push_back({s.value("text", ""), s.value("command", "")});
  }
  const auto tags = json::parse(q.getColumn(7).getString(), nullptr, false);
  if (tags.is_array()) {
    for (const auto& t : tags) {
      if (t.is_string()) p.tags.push_back(t.get<std::string>());
    }
  }
  p.created_by = q.getColumn(8).getString();
  p.created_at_ms = q.getColumn(9).getInt64();
  p.current = q.getColumn(10).getInt() != 0;
  return {seq, std::move(p)};
}

}  // namespace

std::optional<Procedure> LoadCurrentProcedure(SQLite::Database& db, const std::string& scope,
                                              const std::string& name) {
  SQLite::Statement q(db, std::string("SELECT ") + kColumns +
                              " FROM procedural_procedures WHERE project_id = ? AND name = ? "
                              "AND current = 1");
  SQLite::bind(q, scope, name);
  if (!q.executeStep()) return std::nullopt;
  return Read(q).second;
}

std::optional<Procedure> LoadProcedureVersion(SQLite::Database& db, const std::string& scope,
                                              const std::string& name, int version) {
  SQLite::Statement q(db, std::string("SELECT ") + kColumns +
                              " FROM procedural_procedures WHERE project_id = ? AND name = ? "
                              "AND version = ?");
  SQLite::bind(q, scope, name, version);
  if (!q.executeStep()) return std::nullopt;
  return Read(q).second;
}

std::vector<Procedure> FindByName(SQLite::Database& db, const std::string& project_id,
                                  const std::string& name) {
  SQLite::Statement q(db, std::string("SELECT ") + kColumns +
                              " FROM procedural_procedures WHERE project_id IN (?1, '') AND "
                              "name = ?2 AND current = 1 ORDER BY project_id = '' , project_id");
  SQLite::bind(q, project_id, name);
  std::vector<Procedure> out;
  while (q.executeStep()) out.push_back(Read(q).second);
  return out;
}

std::vector<Procedure> ProcedureHistory(SQLite::Database& db, const std::string& scope,
                                        const std::string& name, int limit) {
  SQLite::Statement q(db, std::string("SELECT ") + kColumns +
                              " FROM procedural_procedures WHERE project_id = ? AND name = ? "
                              "ORDER BY version DESC LIMIT ?");
  SQLite::bind(q, scope, name, limit);
  std::vector<Procedure> out;
  while (q.executeStep()) out.push_back(Read(q).second);
  return out;
}

Procedure InsertProcedureVersion(SQLite::Database& db, Procedure p) {
  std::optional<std::int64_t> old_seq;
  {
    SQLite::Statement q(db,
                        "SELECT seq, version FROM procedural_procedures WHERE project_id = ? "
                        "AND name = ? AND current = 1");
    SQLite::bind(q, p.project_id, p.name);
    p.version = 1;
    if (q.executeStep()) {
      old_seq = q.getColumn(0).getInt64();
      p.version = q.getColumn(1).getInt() + 1;
    }
  }
  if (old_seq) {
    SQLite::Statement off(db, "UPDATE procedural_procedures SET current = 0 WHERE seq = ?");
    sdk::Bind(off, *old_seq);
    off.exec();
    SQLite::Statement unindex(db, "DELETE FROM procedural_procedures_fts WHERE rowid = ?");
    sdk::Bind(unindex, *old_seq);
    unindex.exec();
  }
  SQLite::Statement ins(db,
                        "INSERT INTO procedural_procedures (id, project_id, name, version, "
                        "when_text, steps, tags, created_by, created_at, current) VALUES (?, "
                        "?, ?, ?, ?, ?, ?, ?, ?, 1)");
  SQLite::bind(ins, p.id, p.project_id, p.name, p.version, p.when, StepsJson(p.steps),
               json(p.tags).dump(), p.created_by, p.created_at_ms);
  ins.exec();
  const std::int64_t seq = db.getLastInsertRowid();
  SQLite::Statement index(db,
                          "INSERT INTO procedural_procedures_fts (rowid, name, when_text, steps, "
                          "tags) VALUES (?, ?, ?, ?, ?)");
  SQLite::bind(index, seq, p.name, p.when, StepsText(p.steps), TagsText(p.tags));
  index.exec();
  p.current = true;
  return p;
}

std::vector<std::int64_t> SearchProcedures(SQLite::Database& db, const std::string& project_id,
                                           const std::string& match, int limit) {
  // Top hits of the text index first (FTS5 ranks without touching the base table), then
  // the scope filter on those few rows; over-fetch so other projects' rows do not starve
  // the page.
  SQLite::Statement q(db,
                      "SELECT h.rowid FROM (SELECT rowid, bm25(procedural_procedures_fts, 10.0, "
                      "5.0, 1.0, 3.0) AS score FROM procedural_procedures_fts WHERE "
                      "procedural_procedures_fts MATCH ?1 ORDER BY score LIMIT ?3 * 3) AS h JOIN "
                      "procedural_procedures p ON p.seq = h.rowid WHERE p.project_id IN (?2, '') "
                      "ORDER BY h.score LIMIT ?3");
  SQLite::bind(q, match, project_id, limit);
  std::vector<std::int64_t> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getInt64());
  return out;
}

std::vector<std::pair<std::int64_t, Procedure>> LoadProceduresBySeq(
    SQLite::Database& db, const std::vector<std::int64_t>& seqs) {
  std::vector<std::pair<std::int64_t, Procedure>> out;
  if (seqs.empty()) return out;
  // One statement: the keys travel as a JSON array (json_each), so no SQL is built from
  // a list of values.
  SQLite::Statement q(db, std::string("SELECT ") + kColumns +
                              " FROM procedural_procedures WHERE seq IN (SELECT value FROM "
                              "json_each(?))");
  sdk::Bind(q, json(seqs).dump());
  while (q.executeStep()) out.push_back(Read(q));
  return out;
}

// Keyset pages: rows after the last one shown, so a procedure saved between two pages
// neither repeats a row nor hides one (an OFFSET would shift).
std::vector<Procedure> ListProcedures(SQLite::Database& db, const std::string& project_id,
                                      const std::string& after_name, const std::string& after_project, int limit) {
  SQLite::Statement q(db, std::string("SELECT ") + kColumns +
                              " FROM procedural_procedures WHERE project_id IN (?1, '') AND current = 1 AND "
                              "(name, project_id) > (?2, ?3) ORDER BY name, project_id LIMIT ?4");
  SQLite::bind(q, project_id, after_name, after_project, limit);
  std::vector<Procedure> out;
  while (q.executeStep()) out.push_back(Read(q).second);
  return out;
}

std::size_t CountProceduresAfter(SQLite::Database& db, const std::string& project_id, const std::string& after_name,
                                 const std::string& after_project) {
  SQLite::Statement q(db,
                      "SELECT count(*) FROM procedural_procedures WHERE project_id IN (?1, '') AND current = 1 AND "
                      "(name, project_id) > (?2, ?3)");
  SQLite::bind(q, project_id, after_name, after_project);
  q.executeStep();
  return static_cast<std::size_t>(q.getColumn(0).getInt64());
}

RunStats LoadRunStats(SQLite::Database& db, const std::string& scope, const std::string& name) {
  SQLite::Statement q(db,
                      "SELECT runs, successes FROM procedural_run_stats WHERE project_id = ? AND "
                      "name = ?");
  SQLite::bind(q, scope, name);
  RunStats s;
  if (q.executeStep()) {
    s.runs = q.getColumn(0).getInt64();
    s.successes = q.getColumn(1).getInt64();
  }
  return s;
}

RunStats InsertRun(SQLite::Database& db, const Run& r) {
  SQLite::Statement ins(db,
                        "INSERT INTO procedural_runs (procedure_id, project_id, name, version, "
                        "success, note, agent_id, run_project_id, at) VALUES (?, ?, ?, ?, ?, "
                        "?, ?, ?, ?)");
  SQLite::bind(ins, r.procedure_id, r.scope, r.name, r.version, r.success ? 1 : 0, r.note,
               r.agent_id, r.run_project_id, r.at_ms);
  ins.exec();
  SQLite::Statement up(db,
                       "INSERT INTO procedural_run_stats (project_id, name, runs, successes, "
                       "last_at) VALUES (?1, ?2, 1, ?3, ?4) ON CONFLICT (project_id, name) DO "
                       "UPDATE SET runs = runs + 1, successes = successes + ?3, last_at = "
                       "max(last_at, ?4)");
  SQLite::bind(up, r.scope, r.name, r.success ? 1 : 0, r.at_ms);
  up.exec();
  return LoadRunStats(db, r.scope, r.name);
}

}  // namespace kioku::procedural

namespace kioku::procedural {

std::vector<RunStats> LoadRunStatsMany(
    SQLite::Database& db, const std::vector<std::pair<std::string, std::string>>& keys) {
  std::vector<RunStats> out;
  out.reserve(keys.size());
  SQLite::Statement q(db,
                      "SELECT runs, successes FROM procedural_run_stats WHERE project_id = ? AND "
                      "name = ?");
  for (const auto& [scope, name] : keys) {
    q.reset();
    SQLite::bind(q, scope, name);
    RunStats s;
    if (q.executeStep()) {
      s.runs = q.getColumn(0).getInt64();
      s.successes = q.getColumn(1).getInt64();
    }
    out.push_back(s);
  }
  return out;
}

void ReindexProcedures(SQLite::Database& db) {
  db.exec("DELETE FROM procedural_procedures_fts");
  SQLite::Statement q(db, std::string("SELECT ") + kColumns + " FROM procedural_procedures WHERE current = 1");
  SQLite::Statement index(db,
                          "INSERT INTO procedural_procedures_fts (rowid, name, when_text, steps, "
                          "tags) VALUES (?, ?, ?, ?, ?)");
  while (q.executeStep()) {
    const auto [seq, p] = Read(q);
    SQLite::bind(index, seq, p.name, p.when, StepsText(p.steps), TagsText(p.tags));
    index.exec();
    index.reset();
  }
}

}  // namespace kioku::procedural
