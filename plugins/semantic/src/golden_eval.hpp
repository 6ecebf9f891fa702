#pragma once
/// @file golden_eval.hpp
/// Retrieval-quality harness over a golden set, run against the exact recall code the
/// tool uses (kirok seed, "Search quality": the harness must not drift from production).
///
/// Golden-set file: JSON Lines, one object per line; blank lines and lines starting with
/// '#' or '//' are ignored. Two kinds of line:
///
///   {"memory": {"key": "pm", "text": "...", "kind": "preference", ...memory_remember
///               fields..., "age_days": 30, "suggest": true, "pin": true,
///               "recalls": 4, "project": "other-project"}}
///      A memory to load. `key` names it for expectations. age_days (default 0) back-dates
///      it: memories load oldest first, so a newer value for a subject supersedes an older
///      one. suggest = stored pending; pin = pinned; recalls = recall count; project =
///      written from another project (default: the evaluation project).
///
///   {"query": "which package manager", "expect": ["pm"], "expect_text": ["pnpm"],
///    "absent": ["old-pm"], "args": {...memory_recall filters...}, "note": "..."}
///      A case. A result is relevant when its key is in `expect` or its text contains a
///      string of `expect_text` (ASCII case-insensitive). `absent` keys must not appear in
///      the top 10 (e.g. superseded values, other projects' memories).
///
/// Metrics over the cases: hit@1, hit@5 (share of cases with a relevant result in the top
/// 1/5), MRR (mean of 1/rank of the first relevant result, 0 when none in the top 10),
/// recall@10 (mean share of the relevant memories found in the top 10), and the number of
/// cases where an `absent` key showed up.
///
/// Conversation sets (conversation_eval.hpp) use the same report and metrics.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kioku/sdk/embedding.hpp"
#include "kioku/sdk/plugin.hpp"
#include "settings.hpp"

namespace kioku::semantic {

struct EvalCaseResult {
  int line = 0;
  std::string query;
  std::string type;  ///< Conversation sets: the question's type ("fact", "changed", ...).
  int first_relevant_rank = 0;  ///< 1-based; 0 = none in the top 10.
  int relevant = 0;             ///< Size of the relevant set.
  int relevant_in_top10 = 0;
  bool absent_violated = false;
  std::vector<std::string> top;  ///< Keys (or ids) of the top 5 results.
};

struct EvalReport {
  int memories = 0;
  int cases = 0;
  double hit_at_1 = 0;
  double hit_at_5 = 0;
  double mrr = 0;
  double recall_at_10 = 0;
  int absent_violations = 0;
  std::vector<EvalCaseResult> results;
};

/// Which ranking an evaluation runs.
class EvalVectors;

enum class EvalRanker {
  kRecall,  ///< The production memory_recall ranking (recall.hpp).
  /// Plain SQLite FTS5 BM25 over semantic_fts: every query token quoted and OR-ed, ordered
  /// by bm25() with default column weights, live memories the viewer sees. The reference
  /// point of issue 16 ("plain FTS5 BM25, the question's terms OR-ed").
  kBm25,
};

/// Parses "recall" / "bm25"; nullopt for anything else.
std::optional<EvalRanker> ParseEvalRanker(std::string_view name);

/// Fills hit@1, hit@5, MRR, recall@10 and absent_violations from report.results.
void ComputeMetrics(EvalReport& report);

/// Loads the golden set from `in` into a private in-memory database (the deployment's
/// database is never touched) and runs every case. Throws std::runtime_error naming the
/// line for malformed input or a memory the tools would refuse.
/// `vectors` (optional): the vector list recall fuses (eval_vectors.hpp).
EvalReport RunGoldenSet(std::istream& in, const Settings& settings,
                        EvalRanker ranker = EvalRanker::kRecall, EvalVectors* vectors = nullptr);

/// One-line summary: "cases 64 · hit@1 0.81 · hit@5 0.95 · MRR 0.87 · recall@10 0.93 · …".
std::string FormatReport(const EvalReport& report);

/// The `kioku recall-eval FILE [--ranker recall|bm25] [--vectors] [--min-hit1 X]
/// [--min-hit5 X] [--verbose] [--json]` command. FILE is a golden set or a conversation set
/// (told apart by its lines: a conversation set has "turn" lines). --vectors adds the vector
/// list from `embedder` (the deployment's providers.embedding; null = none configured).
sdk::CommandSpec RecallEvalCommand(const Settings& settings, sdk::Embedder* embedder);

}  // namespace kioku::semantic
