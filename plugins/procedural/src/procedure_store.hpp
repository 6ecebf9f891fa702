#pragma once
/// @file procedure_store.hpp
/// Reads and writes of the procedure tables (schema.hpp); the only place procedure SQL
/// lives. Writers expect to run inside sdk::WithWriteTransaction. "Visible" from a project
/// means that project's procedures plus the global ones (project_id "").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "model.hpp"

namespace kioku::procedural {

/// The current version of (scope, name), if any.
std::optional<Procedure> LoadCurrentProcedure(SQLite::Database& db, const std::string& scope,
                                              const std::string& name);
/// One stored version of (scope, name).
std::optional<Procedure> LoadProcedureVersion(SQLite::Database& db, const std::string& scope,
                                              const std::string& name, int version);
/// Current versions named `name` visible from `project_id` (project first, then global).
std::vector<Procedure> FindByName(SQLite::Database& db, const std::string& project_id,
                                  const std::string& name);
/// Older versions of (scope, name), newest first (version numbers and dates only matter).
std::vector<Procedure> ProcedureHistory(SQLite::Database& db, const std::string& scope,
                                        const std::string& name, int limit);

/// Stores `p` as version current+1 of (p.project_id, p.name) and makes it current, moving
/// the text index to it. Fills p.version (and keeps p.id). Returns the stored procedure.
Procedure InsertProcedureVersion(SQLite::Database& db, Procedure p);

/// Rebuilds the text index of the current procedures from the table (after an import wrote
/// rows the index does not know).
void ReindexProcedures(SQLite::Database& db);

/// Current procedures visible from `project_id` matching an FTS5 expression, best BM25
/// first (column weights: name 10, when 5, tags 3, steps 1). Returns row keys for
/// LoadProceduresBySeq. Reads at most 3 · `limit` index hits before the scope filter.
std::vector<std::int64_t> SearchProcedures(SQLite::Database& db, const std::string& project_id,
                                           const std::string& match, int limit);
/// Current procedures with the given row keys (any order).
std::vector<std::pair<std::int64_t, Procedure>> LoadProceduresBySeq(
    SQLite::Database& db, const std::vector<std::int64_t>& seqs);
/// Current procedures visible from `project_id`, by name then scope, that sort after
/// (after_name, after_project) — a keyset page; "" "" starts at the first.
std::vector<Procedure> ListProcedures(SQLite::Database& db, const std::string& project_id,
                                      const std::string& after_name, const std::string& after_project, int limit);
/// How many of them sort after (after_name, after_project) ("" "" = all).
std::size_t CountProceduresAfter(SQLite::Database& db, const std::string& project_id, const std::string& after_name,
                                 const std::string& after_project);

RunStats LoadRunStats(SQLite::Database& db, const std::string& scope, const std::string& name);

struct Run {
  std::string procedure_id;
  std::string scope;
  std::string name;
  int version = 0;
  bool success = false;
  std::string note;
  std::string agent_id;
  std::string run_project_id;
  std::int64_t at_ms = 0;
};
/// Stores a run and folds it into procedural_run_stats; returns the new stats.
RunStats InsertRun(SQLite::Database& db, const Run& run);

}  // namespace kioku::procedural

namespace kioku::procedural {

/// Run stats of many (scope, name) pairs with one prepared statement; same order as given.
std::vector<RunStats> LoadRunStatsMany(SQLite::Database& db,
                                       const std::vector<std::pair<std::string, std::string>>& keys);

}  // namespace kioku::procedural
