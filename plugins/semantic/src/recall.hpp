#pragma once
/// @file recall.hpp
/// Hybrid recall: candidates come only from indexes, each rank list bounded by
/// `recall.candidates_per_list` rows:
///   bm25      FTS5 unicode61+porter MATCH over text/subject/value/tags, ORDER BY bm25
///   trigram   FTS5 trigram MATCH over text (tokens >= 3 chars; substrings, CJK)
///   cjk       FTS5 over CJK bigrams (a bigram phrase per CJK run; 1 char = prefix query)
///   entity    memories linked to entities the query names (paths, identifiers, flags,
///             packages, versions), most entity hits first
///   vector    nearest memories by embedding cosine (RecallRequest::vector_seqs), when
///             an embedder is configured and the store's vectors are of its model
/// or, for an empty query, the (updated_at) and (importance, updated_at) indexes.
/// Filters are applied in the same SQL (joined by primary key), lists are fused with
/// sdk::ReciprocalRankFusion, and the multipliers of ranking.hpp order the result.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memory.hpp"
#include "ranking.hpp"

namespace kioku::semantic {

struct RecallRequest {
  std::string query;                  ///< Free text; "" = rank by recency/importance.
  std::vector<std::string> kinds;     ///< Any of; empty = all.
  std::vector<std::string> tags;      ///< All of (normalized); empty = no tag filter.
  std::vector<std::string> statuses;  ///< Any of; empty = the live ones (not superseded).
  std::string subject;                ///< Normalized subject; "" = any.
  std::string scope;                  ///< "global" | "project" | "path"; "" = all visible.
  std::optional<std::int64_t> since;  ///< captured_at >= since (unset = unbounded).
  std::optional<std::int64_t> until;  ///< captured_at < until (unset = unbounded).
  std::optional<std::int64_t> as_of;  ///< What was believed at that time.
  int limit = 10;
  /// Memory seqs found by vector search (sdk::LayerVectors::Query), best first. With a text
  /// query they join fusion as the "vector" list, weight `vectors.weight`, filtered like
  /// every other list. Empty = no vector list (text-only).
  std::vector<std::int64_t> vector_seqs;
};

/// Who is asking: recall sees global memories plus those of this project (and its paths).
struct Viewer {
  std::string project_id;    ///< "" = no project: global memories only.
  std::string project_root;  ///< Where anchors are evaluated; "" = anchors unverified.
};

struct RecalledMemory {
  Memory memory;       ///< Text is the version believed at as_of when as_of is set.
  std::string status;  ///< Status at as_of (or now).
  /// "confirmed" | "derived" (IsModelDerived) | "outdated" (derived, citing a memory no
  /// longer live: CitesGoneMemory) | "unconfirmed" | "contested" | "superseded"
  std::string trust;
  ScoreParts score;
  std::map<std::string, int> ranks;  ///< List name → 1-based rank (absent = not in list).
  std::string anchor_verdict;  ///< "" (no anchor) | "affirmed" | "unverified"
};

struct RecallOutcome {
  std::vector<RecalledMemory> memories;  ///< Best first, at most `limit`.
  int withheld = 0;    ///< Unconfirmed matches held back (recall.max_unconfirmed / show).
  /// Matches held back because their anchor is contradicted (anchors.hpp); never shown.
  std::vector<std::string> contradicted;
  int candidates = 0;  ///< Distinct candidates scored.
  bool text_query = false;  ///< False when ranked by recency/importance.
  /// Search tokens of the query past sdk::FtsQueryOptions::max_tokens (32), which were not
  /// searched; 0 when every token was. Counted up to 2 × max_tokens.
  int unsearched_tokens = 0;
};

/// Runs a recall (read-only). Throws sdk::ToolError when `query` is non-empty but holds no
/// searchable token (only operators/punctuation).
RecallOutcome Recall(const Env& env, const RecallRequest& request, const Viewer& viewer);

/// Trust label for a status.
std::string TrustLabel(const std::string& status);

/// True for small English function words that carry no search signal (used to keep the
/// trigram and entity lists from matching half the store).
bool IsStopword(std::string_view lower_word);
bool IsStopword(const std::string& lower_word);
/// The words IsStopword holds (rivals.cpp folds them into its own word table).
std::span<const std::string_view> Stopwords();

}  // namespace kioku::semantic
