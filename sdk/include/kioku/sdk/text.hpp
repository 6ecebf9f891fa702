#pragma once
/// @file text.hpp
/// Text helpers every layer needs at its boundaries: UTF-8 hygiene, truncation and token
/// estimates for output budgets.

#include <cstddef>
#include <string>
#include <string_view>

namespace kioku::sdk {

/// True when `text` is well-formed UTF-8.
bool IsValidUtf8(std::string_view text);

/// Copy of `text` with every invalid UTF-8 sequence replaced by U+FFFD (one per maximal
/// subpart, Unicode §3.9 — the WHATWG/ICU convention).
std::string SanitizeUtf8(std::string_view text);

/// Length in Unicode code points (invalid bytes count as one each).
std::size_t Utf8Length(std::string_view text);

/// "1 memory" / "3 memories": `n`, a space, then `one` when n is 1, else `many`.
std::string Plural(std::size_t n, const char* one, const char* many);

/// At most `max_bytes` bytes of `text`, cut at a code point boundary; appends `ellipsis`
/// (counted within max_bytes) when something was cut. An ellipsis longer than `max_bytes`
/// is omitted. Invalid bytes count as single-byte units.
std::string TruncateUtf8(std::string_view text, std::size_t max_bytes,
                         std::string_view ellipsis = "…");

/// At most `max_bytes` bytes of `text` for a reader: when it must be cut, it ends after
/// the last sentence (".", "!", "?" followed by a space, or "。", "！", "？") that keeps at
/// least half of the budget, with nothing appended; else at the last space that keeps at
/// least half, followed by `ellipsis` (spaces before it dropped); else as TruncateUtf8 cuts
/// it. A text that fits is returned unchanged. Used where prose reaches a model under a
/// byte budget (the episodic SessionStart summary), so it does not stop mid-word.
std::string TruncateAtBoundary(std::string_view text, std::size_t max_bytes,
                               std::string_view ellipsis = "…");

/// Estimated LLM tokens: ceil(bytes / 4), the common rule of thumb for English and code
/// (OpenAI tokenizer guidance); CJK-heavy text is undercounted, so budgets stay approximate.
std::size_t EstimateTokens(std::string_view text);

/// Collapses ASCII whitespace runs (space, \t, \n, \v, \f, \r) to one space and trims both
/// ends. Non-ASCII spaces are left as they are.
std::string CollapseWhitespace(std::string_view text);

}  // namespace kioku::sdk
