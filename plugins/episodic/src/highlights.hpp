#pragma once
/// @file highlights.hpp
/// Model-written highlights of consolidated summaries (setting compaction.model_highlights,
/// off by default; issue 16).
///
/// Compaction itself stays deterministic (compaction.hpp): the consolidated summary with its
/// extractive highlights is always written first. Afterwards, outside any transaction, the
/// chat model (sdk/chat.hpp) is asked for a short abstract of the folded summaries; the
/// answer is untrusted and is checked (CheckAbstract), then written in a new short write
/// transaction over the highlights section only, and only while the summary is still active
/// with the text that was read (compare-and-set). Decisions, open items and files are never
/// the model's. `highlights_model` records the model; session_recall shows
/// "(highlights by <model>)".
///
/// Who calls the model: session_end and session_summary_add when they compacted (after their
/// transaction commits), and `kioku summaries refine`. Never the hook (`kioku hook capture`)
/// or transcript ingest: they compact without it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "compaction.hpp"
#include "kioku/sdk/chat.hpp"
#include "kioku/sdk/plugin.hpp"
#include "store.hpp"
#include "tool_support.hpp"

namespace kioku::episodic {

/// What became of one consolidated summary's highlights.
struct HighlightsOutcome {
  bool attempted = false;
  std::string model;  ///< The model whose abstract is now the highlights; "" = extractive.
  /// Why the extractive highlights stay (one line, e.g. "rejected: it names `src/x.cpp`,
  /// which no folded summary mentions"); "" when the model's were written or nothing was
  /// attempted.
  std::string kept_because;
};

/// `abstract` as the highlights section's lines: one "- " bullet per sentence
/// (SplitSentences), the extractive highlights' shape, so that ExtractFacets keeps reading
/// them as highlights (it classifies unbulleted prose by keywords).
std::string HighlightBullets(std::string_view abstract);

/// Why `abstract` (whitespace already collapsed) cannot replace the highlights of a summary
/// consolidated from `folded`, or "" when it can. Rejected, never cut: empty; more than
/// `highlight_tokens` estimated tokens (sdk::EstimateTokens); a secret (sdk::FindSecret);
/// a file path (LooksLikePath) or identifier-like token (snake_case, camelCase, `a::b`,
/// `f()`, `a.b`, anything in backticks) that appears in none of the folded texts; a
/// sentence ExtractFacets would read as a decision or open item as a highlight bullet (an
/// inline label such as "Decision: …"), since later folds and session_timeline read it.
std::string CheckAbstract(std::string_view abstract, const std::vector<Summary>& folded,
                          std::int64_t highlight_tokens);

/// Refines the consolidated summary `consolidated_id` with `chat` as described above. Must
/// be called outside any transaction (it opens its own write transaction, after the model
/// answered). Never throws for model or endpoint faults; database errors propagate.
HighlightsOutcome RefineHighlights(SQLite::Database& db, sdk::ChatModel& chat,
                                   const Settings& settings, std::string_view consolidated_id);

/// The tools' step once their compaction committed: nothing when `compaction` did not
/// compact or compaction.model_highlights is off; "no chat model" when providers.chat is not
/// configured; else RefineHighlights.
HighlightsOutcome RefineAfterCompaction(ToolContext& env, const CompactionOutcome& compaction);

/// `kioku summaries refine [--limit N]`: refines every active consolidated summary no model
/// refined yet, oldest first, at most N (default 20) per run, one line per summary. Works
/// whatever compaction.model_highlights says (running it is the opt-in); needs
/// providers.chat. Exit 0, or 1 without a chat model, 2 on a usage error.
sdk::CommandSpec RefineCommand(ToolContext& env);

}  // namespace kioku::episodic
