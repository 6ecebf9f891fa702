#pragma once
/// @file normalize.hpp
/// Deterministic text keys: the reaffirm key (normalized text), subject/tag keys, and the
/// CJK bigram strings indexed so 1–2 character CJK queries find memories (the trigram
/// tokenizer cannot match fewer than 3 characters; https://sqlite.org/fts5.html §4.3.5).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::semantic {

/// Reaffirm key of a memory's text (token-goat-mem seed, "Explicit capture"):
/// sdk::MatchKey (NFKC, full case folding, Unicode white space collapsed and trimmed), one
/// trailing '.' dropped. So "Taro\u00A0", "Ｔａｒｏ" and "taro" are one key.
std::string NormalizeText(std::string_view text);

/// Subject key: NormalizeText, then inner spaces become '-' ("Package manager" →
/// "package-manager"), so spelling variants of one key compare equal.
std::string NormalizeSubject(std::string_view subject);

/// Tag key: sdk::MatchKey, inner whitespace → '-', a leading '#' dropped.
std::string NormalizeTag(std::string_view tag);

/// 64-bit FNV-1a over the parts joined with U+001F (unit separator). Used as an indexed
/// pre-filter for exact-key lookups; callers re-check the real key (collisions).
std::int64_t KeyHash(const std::vector<std::string_view>& parts);

/// True for code points of Han, Hiragana, Katakana, Hangul and their extensions/
/// compatibility blocks (the scripts written without spaces between words).
bool IsCjkCodePoint(char32_t cp);

/// Runs of consecutive CJK code points in `text`, each as its UTF-8 bytes.
std::vector<std::string> CjkRuns(std::string_view text);

/// Space-separated CJK index terms for `text`: for each CJK run the overlapping bigrams
/// ("東京都" → "東京 京都") followed by the run's last character alone, so a bigram phrase
/// finds any 2+ character substring and a prefix query finds any single character.
/// Empty when the text holds no CJK. Deterministic: the FTS index relies on it.
std::string CjkIndexTerms(std::string_view text);

/// The bigrams of one CJK run, in order ("東京都" → {"東京", "京都"}); {run} when the run
/// is one character long.
std::vector<std::string> CjkBigrams(std::string_view run);

/// Lower-case ASCII copy.
std::string AsciiLower(std::string_view text);
/// Upper-case ASCII copy (ids: ULIDs are upper-case, people type them in lower case).
std::string AsciiUpper(std::string_view text);

/// Trims ASCII whitespace at both ends.
std::string_view Trim(std::string_view text);

}  // namespace kioku::semantic
