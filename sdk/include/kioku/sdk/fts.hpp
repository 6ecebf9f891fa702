#pragma once
/// @file fts.hpp
/// Safe SQLite FTS5 queries from arbitrary user text. User text is never passed to MATCH
/// raw: `C++`, `"`, `-foo`, `AND`, `*`, `pre-commit`, `it's` would be syntax errors or
/// operators. Instead the text is split into tokens and each token becomes an FTS5 string
/// ("..." with embedded quotes doubled), which FTS5 treats as a literal phrase
/// (https://sqlite.org/fts5.html §3.1 "FTS5 Strings").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::sdk {

enum class FtsJoin {
  kAny,  ///< tok1 OR tok2 … — recall-oriented; BM25 rewards rows matching more tokens.
  kAll,  ///< tok1 AND tok2 … — every token must match.
};

struct FtsQueryOptions {
  FtsJoin join = FtsJoin::kAny;
  std::size_t max_tokens = 32;     ///< Extra tokens are dropped (bounded query cost).
  std::size_t max_input_bytes = 4096;  ///< Only this prefix of the text is read.
  /// Make the last word typed a prefix query (search-as-you-type): its final piece and, for
  /// a compound, the compound get `*` ("pre-com" → "pre-com"* OR "pre" OR "com"*).
  bool prefix_last = false;
  /// Minimum token length in Unicode code points. 1 for unicode61 word indexes; 3 for a
  /// trigram index (shorter tokens cannot match a trigram index and are dropped).
  std::size_t min_token_chars = 1;
};

/// Splits text into search tokens, in order of appearance, without duplicates.
/// A *piece* is a run of word characters: ASCII letters/digits and any valid non-ASCII code
/// point except common Unicode spaces/punctuation (General Punctuation, CJK and full-width
/// punctuation), so UTF-8 words and CJK survive. Pieces joined by one of `_` `.` `/` `-`
/// `+` `#` sitting *between* word characters form a compound: the compound is emitted first,
/// then its pieces ("pre-commit" → `pre-commit`, `pre`, `commit`; "snake_case" →
/// `snake_case`, `snake`, `case`). Quoted, a compound is an FTS5 phrase of adjacent tokens
/// under unicode61 and a literal substring under trigram. Everything else separates
/// ("C++" → `c`, "it's" → `it`, `s`, "AND" → `and`, a literal word once quoted).
/// ASCII is lower-cased. Invalid UTF-8 bytes separate words and are dropped. Tokens shorter
/// than `min_token_chars` code points are skipped; scanning stops after `max_tokens` tokens
/// or `max_input_bytes` bytes, so cost is bounded for any input.
std::vector<std::string> FtsTokens(std::string_view text, const FtsQueryOptions& options = {});

/// Builds a MATCH expression from user text, or nullopt when the text holds no searchable
/// token (empty, only punctuation/operators) — callers then fall back to a non-text
/// ranking (e.g. recency) instead of running MATCH.
std::optional<std::string> BuildFtsQuery(std::string_view text,
                                         const FtsQueryOptions& options = {});

/// True for the FTS5 operator words AND, OR, NOT, NEAR in any letter case
/// (https://sqlite.org/fts5.html §3.7). Quoted they are ordinary words.
bool IsFtsOperatorWord(std::string_view token);

/// The one rule for queries without anything to search for, used by every layer that
/// searches (memory_recall, session_recall, entity search):
///   - empty or white-space-only text: not a text query (nullopt; the caller lists by
///     recency or its own order);
///   - text holding a search token (FtsTokens) other than an operator word: searched, with
///     any operator words as literal words ("do NOT commit" finds "not");
///   - text holding only punctuation and/or operator words ("?!", "AND OR NOT", "-- *"):
///     refused — returns the message for an isError answer (the layer adds nothing but its
///     field name). Never searched as literal words: FTS5 would treat them as syntax when
///     unquoted, and quoted they match nearly every English row, which answers nothing.
/// Returns the refusal message, or nullopt when the query may be run (or is empty).
std::optional<std::string> UnsearchableQuery(std::string_view text);

/// MATCH expression for "rows holding every trigram of `text`" in a trigram table: each
/// 3-code-point window of `text` quoted, joined by AND, duplicates once, at most
/// `max_trigrams` (the first ones; a bound on query cost, still a necessary condition).
/// nullopt when `text` has fewer than 3 code points. Under detail=none, where phrase
/// queries are refused, this is how a substring is searched; the rows it finds hold the
/// trigrams but not necessarily adjacent, so callers keep those where kioku_substrings
/// (fts_rank.hpp) finds `text`. Case is folded by the tokenizer, not here.
std::optional<std::string> TrigramMatch(std::string_view text, std::size_t max_trigrams = 64);

/// Quotes one token as an FTS5 string: wraps in double quotes, doubling inner quotes.
std::string QuoteFtsToken(std::string_view token);

}  // namespace kioku::sdk
