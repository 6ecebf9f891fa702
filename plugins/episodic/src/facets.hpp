#pragma once
/// @file facets.hpp
/// Deterministic extraction of what a summary must never lose when it is folded: the
/// decisions, the open items and the files touched. Everything else is a "highlight".
///
/// Units: a summary is read line by line; bullet lines ("- ", "* ", "+ ", "1. ",
/// "- [ ] ") are one unit each, other lines are split into sentences at ". ", "! ", "? ".
/// Classification of a unit, first rule that applies:
///   1. It sits under a section header ("Decisions:", "## Open items", "Next steps:",
///      "Files touched:" ...; a header is a short line ending in ':' or starting with '#')
///      or starts with an inline label ("Decision: ...", "TODO: ...", "Open: ...").
///   2. Open item: "- [ ]", TODO, FIXME, TBD, "open question", "next step", "follow-up",
///      "still need", "need(s) to", "not yet", "unresolved", "pending", "blocked on".
///   3. Decision: "decided", "decision", "chose", "agreed", "settled on", "going with",
///      "will use", "switched to", "opted", "adopted".
///   4. Otherwise a highlight.
/// Files: every token that looks like a path (see LooksLikePath), from every unit.
/// The rules are ours (no paper); they are tuned to keep recall of decisions/open items
/// high at the price of an occasional highlight promoted to a decision.

#include <string>
#include <string_view>
#include <vector>

namespace kioku::episodic {

struct Facets {
  std::vector<std::string> decisions;   ///< unit text, trimmed, bullet marker removed
  std::vector<std::string> open_items;
  std::vector<std::string> files;       ///< as written, de-duplicated, first-seen order
  std::vector<std::string> highlights;  ///< other units, in order
};

/// Extracts facets; each list is de-duplicated by NormalizeKey.
Facets ExtractFacets(std::string_view text);

/// True for tokens such as `src/a.cpp`, `./x`, `~/y/z`, `/etc/hosts`, `Makefile`,
/// `CMakeLists.txt`, `plots.ts`: a slash with a dotted last segment or a leading `/`, `./`,
/// `~/`; or a bare name with a known source/config extension. URLs are not paths.
bool LooksLikePath(std::string_view token);

/// Path-looking tokens of `text`, trimmed of quotes/brackets/trailing punctuation, in order.
std::vector<std::string> ExtractPaths(std::string_view text);

/// Splits one line of prose into sentences (kept with their final punctuation).
std::vector<std::string> SplitSentences(std::string_view line);

}  // namespace kioku::episodic
