#pragma once
/// @file compaction.hpp
/// Summary writes and the compaction that keeps a session's summaries under its budget.
///
/// Rule (deterministic, extractive): when the active summaries of a session add up to more
/// than `session_token_budget` tokens, the newest summaries that fit in
/// `budget × keep_recent_fraction` stay as they are and all older ones (at least two) are
/// folded into one `consolidated` summary holding, in full, every decision, open item and
/// file of the folded summaries (facets.hpp), plus highlights up to `highlight_tokens`
/// (round-robin over the folded summaries, first sentences first, so each contributes).
/// Folded summaries keep their text with status `folded` and `folded_into` = the
/// consolidated id: history is never lost, only recall skips them.
/// Seed: dokoro "compacts" by concatenation; this keeps what matters and bounds the rest.
/// Optionally a chat model later rewrites the highlights alone (highlights.hpp).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "settings.hpp"
#include "store.hpp"

namespace kioku::episodic {

struct CompactionOutcome {
  bool compacted = false;
  std::string consolidated_id;
  std::vector<std::string> folded_ids;
  std::int64_t tokens_before = 0;  ///< active tokens of the session before
  std::int64_t tokens_after = 0;
};

/// Builds the consolidated text for `folded` (oldest first). Pure function.
std::string BuildConsolidatedText(const std::vector<Summary>& folded,
                                  std::int64_t highlight_tokens);

/// The header line of the highlights section, the consolidated text's last section.
inline constexpr std::string_view kHighlightsHeader = "Highlights:";

/// `consolidated` (BuildConsolidatedText's shape) with everything after its highlights
/// header replaced by `highlights`, or a highlights section appended when it has none.
/// The lines before it (header, decisions, open items, files) are kept byte for byte.
std::string ReplaceHighlights(std::string_view consolidated, std::string_view highlights);

/// Compacts `session_id` when it is over budget. Runs inside the caller's transaction.
CompactionOutcome CompactSession(SQLite::Database& db, std::string_view session_id,
                                 const Settings& settings, std::int64_t now_ms);

}  // namespace kioku::episodic
