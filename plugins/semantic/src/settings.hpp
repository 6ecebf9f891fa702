#pragma once
/// @file settings.hpp
/// The semantic plugin's YAML section (`semantic:` in kioku.yaml), its JSON Schema and the
/// parsed, defaulted form every other unit reads. Missing keys take the defaults below.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::semantic {

/// Recall tuning. Defaults are the values documented in README.md "Ranking".
struct RecallSettings {
  int default_limit = 10;          ///< memory_recall `limit` when absent (max 100).
  int token_budget = 2000;         ///< Estimated tokens the result text may use.
  int candidates_per_list = 100;   ///< Rows each rank list contributes (at least 2×limit).
  /// A query term matching more rows than this is "common": it no longer selects
  /// candidates by itself (only its newest matches are scored), so no recall scores
  /// every row of a frequent term.
  int scan_limit = 500;
  double rrf_k = 5.0;              ///< RRF constant k (see README "Ranking": tuned).
  bool show_unconfirmed = true;    ///< Show pending/contested (labelled) at all.
  int max_unconfirmed = 3;         ///< At most this many labelled unconfirmed per answer.
  bool track_recalls = true;       ///< Bump recall_count/last_recalled of returned rows.
  /// Drop question filler ("what happened", "what kind of") from the word list.
  bool drop_filler = true;
  /// Use the curated coding-vocabulary expansions (query_terms.hpp) as the expansion list.
  bool expansions = true;
  /// Pseudo-relevance feedback: top word hits read, expansion terms taken (0 = off).
  int feedback_docs = 3;
  int feedback_terms = 2;
  /// Top word hits whose session neighbours join the neighbour list (0 = off).
  int neighbour_hits = 10;
  /// Top word hits checked for a date / a person when the question asks for one (0 = off).
  int answer_hits = 20;
  /// Whether a memory found only by the feedback or neighbour lists may be shown. Off: those
  /// lists only reorder memories a direct list (words, substrings, entities, expansions)
  /// found, so a query for a unique word answers that memory alone. On: better recall on
  /// conversations (README "Figures"), at the cost of looser answers.
  bool context_candidates = false;
};

/// Weights of each rank list inside RRF (w_i in Σ w_i / (k + rank_i)).
struct ListWeights {
  double bm25 = 1.0;        ///< FTS5 BM25, unicode61 + Porter over text/subject/value/tags.
  double trigram = 0.6;     ///< FTS5 trigram over text (substrings, CJK >= 3 chars).
  double cjk = 1.0;         ///< CJK bigram index (2-character CJK queries).
  double entity = 0.8;      ///< Memories linked to entities named in the query.
  double expansion = 0.5;   ///< Curated expansions of the query (query_terms.hpp).
  double feedback = 0.5;    ///< Query plus pseudo-relevance feedback terms.
  double neighbour = 0.5;   ///< Session neighbours of the top word hits.
  double answer = 0.5;      ///< Top word hits holding the date / person a question asks for.
  double recency = 1.0;     ///< Empty query: newest first.
  double importance = 0.5;  ///< Empty query: most important first.
  /// Memories marked helpful with memory_used, most sessions first (review_store.hpp
  /// UsefulnessList). Only re-ranks what another list found. Modest on purpose.
  double useful = 0.4;
};

/// Decay of confidence, review thresholds and retention (decay.hpp, review_store.hpp).
struct HousekeepingSettings {
  /// Minutes between background housekeeping passes (memory_maintain's work) run on the
  /// host's writer thread after a call; 0 = only when memory_maintain is called.
  int interval_minutes = 360;
  /// An active, unpinned memory whose decayed confidence falls below this is listed as
  /// "stale" in review (it is never changed or deleted for it).
  double stale_below = 0.4;
  /// Days a superseded (replaced, forgotten, rejected, consolidated) memory is kept before
  /// the pass deletes it for good; 0 = keep forever. Pinned, active, pending and contested
  /// memories are never deleted.
  int superseded_retention_days = 0;
};

/// Multipliers applied after fusion. See ranking.hpp for the formulas and sources.
struct MultiplierSettings {
  /// Power-law forgetting exponent C in R(t) = (1 + F·t/S)^C (FSRS-4.5: C = -0.5).
  double decay_exponent = -0.5;
  /// Share of the score that never decays: m_decay = floor + (1 − floor)·R(t). Durable
  /// knowledge stays findable; recency still orders near-equal matches.
  double decay_floor = 0.5;
  /// Days until R falls to 0.5, per kind; pinned memories never decay.
  std::map<std::string, double> half_life_days = {
      {"decision", 180}, {"preference", 180}, {"correction", 120}, {"lesson", 120},
      {"fact", 90},      {"observation", 30}, {"event", 14},       {"todo", 14}};
  double importance_weight = 0.3;  ///< m_imp = 1 + w·(importance − 5)/5.
  double strength_weight = 0.15;   ///< m_str = 1 + w·ln(1 + recall_count + reaffirm_count).
  /// Trust multiplier by status.
  std::map<std::string, double> trust = {{"active", 1.0},  {"pinned", 1.15},
                                         {"pending", 0.6}, {"contested", 0.5},
                                         {"superseded", 0.3}};
};

struct GraphSettings {
  /// Relation types where a new assertion closes the previous open one (functional).
  std::vector<std::string> single_valued = {"uses", "owned_by", "default_branch",
                                            "package_manager", "located_at"};
  int max_relations = 200;  ///< Cap on relations one entity_graph answer returns.
};

/// Vector search over memory embeddings (vectors.hpp, vector_index.hpp, embed_worker.hpp);
/// inert unless the host has an embedder (config `providers.embedding`).
struct VectorSettings {
  double weight = 1.0;     ///< RRF weight of the "vector" rank list in memory_recall.
  /// Relevance floor: vector hits with a cosine below it are not listed (keyword hits are
  /// unaffected). Model-specific; `kioku embed --calibrate` suggests a value.
  double min_score = 0.3;
  /// A newly embedded memory whose cosine to an older live memory of the same kind, scope
  /// and subject/value is at least this reaffirms the older one and is superseded by it.
  /// 1.0 = off.
  double dedup_threshold = 0.97;
  int exact_below = 5000;  ///< Below this many vectors search is exact; at or above, HNSW.
  int batch_size = 32;     ///< Memories per embedding request of the background worker.
  int poll_ms = 1000;      ///< Worker's idle wait between queue checks.
  /// Worker's wait after start before its first pass, so short CLI commands and hooks exit
  /// without touching the endpoint.
  int start_delay_ms = 3000;
};

struct Settings {
  RecallSettings recall;
  ListWeights weights;
  MultiplierSettings multipliers;
  GraphSettings graph;
  HousekeepingSettings housekeeping;
  VectorSettings vectors;
  /// Default scope of memory_remember when the call names none: "project" when the caller
  /// has a project, else "global".
  std::string default_scope = "project";
};

/// JSON Schema of the section (additionalProperties:false at every level).
nlohmann::json SettingsSchema();

/// Parses a validated section; absent keys keep their defaults.
Settings ParseSettings(const nlohmann::json& section);

/// The eight memory kinds, in documentation order.
const std::vector<std::string>& MemoryKinds();
/// The five statuses.
const std::vector<std::string>& MemoryStatuses();

}  // namespace kioku::semantic
