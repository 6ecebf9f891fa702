#pragma once
/// @file procedure_ops.hpp
/// Procedures: saving (versioned), finding (ranked), and recording runs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "model.hpp"
#include "plan_ops.hpp"

namespace kioku::procedural {

struct SaveResult {
  Procedure procedure;
  bool unchanged = false;  ///< Same trigger, steps and tags as the current version: kept.
};

/// Saves `p` (name, when, steps, tags, project_id = scope) as the next version of its
/// (scope, name), or keeps the current version when nothing differs. One transaction.
SaveResult SaveProcedure(SQLite::Database& db, Procedure p, const Actor& actor,
                         std::int64_t now_ms);

struct RankedProcedure {
  Procedure procedure;
  RunStats stats;
  double score = 0;
};

/// Ranked search for procedures visible from `project_id` that fit a task description.
/// Three rank lists fused with Reciprocal Rank Fusion (sdk/fusion.hpp, k = 60):
///   bm25     FTS5 BM25 over name, trigger, tags and steps (weight 1): procedures holding
///            every query word, then — only when those are fewer than `limit` — the ones
///            holding some,
///   name     the bm25 candidates by how many query tokens their name holds (weight 1),
///   vector   `vector_seqs` (vector search, sdk::LayerVectors::Query, best first; weight
///            `vector_weight`), the current ones visible from `project_id`: they find a
///            procedure that shares no word with the query,
///   success  the candidates of all lists with more successes than failures, by
///            RunStats::Smoothed (weight 0.5: a good record lifts a relevant procedure,
///            it does not bring in an irrelevant one).
/// The query is tokenized with sdk::FtsTokens, stop words dropped (while another token
/// remains) and each token quoted (sdk::QuoteFtsToken); a query with no
/// searchable token finds through the vector list only. At most `limit` results out of
/// `candidates` text hits plus the vector hits.
std::vector<RankedProcedure> FindProcedures(SQLite::Database& db, const std::string& project_id,
                                            const std::string& query, int limit,
                                            int candidates = 100,
                                            const std::vector<std::int64_t>& vector_seqs = {},
                                            double vector_weight = 1.0);

struct RunResult {
  Procedure procedure;
  RunStats stats;
};

/// Records that `actor` followed the procedure `name` visible from actor.project_id (the
/// project's own first, then the global one; `version` = the current one when nullopt).
/// ToolError naming what exists when the name or version is unknown.
RunResult RecordRun(SQLite::Database& db, const std::string& name, std::optional<int> version,
                    bool success, const std::string& note, const Actor& actor,
                    std::int64_t now_ms);

}  // namespace kioku::procedural
