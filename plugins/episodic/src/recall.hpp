#pragma once
/// @file recall.hpp
/// session_recall: find past sessions' summaries by meaning and time.
///
/// Candidates are active (not folded) summaries, plus one synthetic item per session that
/// has log entries but no active summary yet (its title and latest entries).
/// Time filter: an item covers [started_at, ended_at]; it matches the window
/// [since, until) when ended_at >= since and started_at < until (since inclusive, until
/// exclusive; a point-in-time item matches when since <= t < until).
/// Ranking with a query: Reciprocal Rank Fusion (Cormack et al., SIGIR 2009, k = 60,
/// sdk::ReciprocalRankFusion) of
///   bm25   — BM25 over summaries, unicode61 + Porter (weight 1.0)
///   tri    — BM25 over the trigram index of summaries, substrings/identifiers (weight
///            0.5), for the query tokens of >= 3 characters the word index does not hold
///            as words
///   log    — BM25 over session log entries, mapped to their session's item (weight 0.7)
/// Each text list scores the newest 500 matches that pass the filters (a time window with
/// an `until` reads the rowid range of its summaries first) with sdk kioku_bm25
/// (fts_rank.hpp: Robertson & Zaragoza 2009, k1 = 1.2, b = 0.75), each phrase's document
/// frequency counted exactly up to 128 rows and estimated from its match density above.
///   vector — `vector_rowids` (vector search over summaries, best first; weight
///            `vector_weight`), the active ones passing the filters
///   recent — the matches ordered by time, newest first (weight 0.2, a tie-breaker)
/// Only items matched by at least one text or vector list are returned. Without a query (or with
/// one that holds no searchable token) items are ordered newest first.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

namespace kioku::episodic {

struct RecallQuery {
  std::string query;
  std::optional<std::int64_t> since;
  std::optional<std::int64_t> until;
  std::string session_id;  ///< resolved id, or empty
  std::string agent_id;
  std::optional<std::vector<std::string>> project;  ///< keys; nullopt = every project
  int limit = 10;
  /// Summary rowids found by vector search (sdk::LayerVectors::Query), best first.
  std::vector<std::int64_t> vector_rowids;
  double vector_weight = 1.0;
};

struct RecallItem {
  std::string summary_id;  ///< empty for a session without summaries
  std::string session_id;
  std::string kind;  ///< summary | session_end | consolidated | transcript | log
  std::int64_t time = 0;  ///< ended_at of the covered span
  std::int64_t started_at = 0;
  std::string model;
  std::int64_t message_count = 0;
  std::string title;
  std::string text;
  std::string highlights_model;  ///< consolidated: the model that wrote its highlights, or ""
  double score = 0;
};

struct RecallResult {
  std::vector<RecallItem> items;  ///< best first, at most `limit`
  std::size_t matched = 0;        ///< all matches (before limit)
  std::string mode;               ///< "text" or "recency"
};

RecallResult RunRecall(SQLite::Database& db, const RecallQuery& q);

}  // namespace kioku::episodic
