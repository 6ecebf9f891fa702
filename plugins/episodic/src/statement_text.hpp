#pragma once
/// @file statement_text.hpp
/// Text helpers of the durable-statement extractor (statements.hpp): removing pasted
/// material from a human message and matching words and phrases in a lowered sentence.
/// ASCII case folding only; typographic apostrophes (U+2019) and dashes (U+2013/U+2014)
/// are folded to ASCII first so "don’t" and "don't" match alike.

#include <initializer_list>
#include <string>
#include <string_view>

namespace kioku::episodic {

/// Removes pasted material from a human message, keeping a line break where it was:
/// fenced blocks (``` / ~~~), '>' quotes, indented blocks (4 spaces / tab) and lines that
/// look like logs, compiler output or a shell session (leading date/time, log level,
/// "error:"/"warning:", file:line:col, "$ ", stack frames, "npm ERR!").
std::string StripPastedMaterial(std::string_view text);

/// `text` with U+2019/U+2018 folded to '\'', U+2013/U+2014 to " - ", ASCII lowered when
/// `lower`; anything else byte for byte.
std::string FoldText(std::string_view text, bool lower);

/// True when `phrase` occurs in `lower` at word boundaries (letters/digits on neither side).
bool HasPhrase(std::string_view lower, std::string_view phrase);
/// First word-boundary position of `phrase` in `lower` at or after `from`, or npos.
std::size_t FindPhrase(std::string_view lower, std::string_view phrase, std::size_t from = 0);
/// True when any of `phrases` occurs (word boundaries).
bool HasAny(std::string_view lower, std::initializer_list<std::string_view> phrases);
/// True when `lower` starts with any of `phrases` followed by a word boundary.
bool StartsWithAny(std::string_view lower, std::initializer_list<std::string_view> phrases);

}  // namespace kioku::episodic
