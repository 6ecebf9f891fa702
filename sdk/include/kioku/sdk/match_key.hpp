#pragma once
/// @file match_key.hpp
/// The one key under which every layer compares names and texts that a person would call
/// "the same": entity names, subjects, tags, dedupe keys of memory texts. Stored text stays
/// as written; only the key is normalized.
///
/// MatchKey(text) =
///   1. invalid UTF-8 replaced by U+FFFD;
///   2. ICU's NFKC_Casefold (UAX #15 compatibility composition + Unicode full case folding
///      + removal of default-ignorable code points; ICU Normalizer2 "nfkc_cf", the mapping
///      of Unicode's DerivedNormalizationProps NFKC_CF): "Ｔａｒｏ" → "taro",
///      "cafe\u0301" → "café", "Straße" → "strasse", "ＡＢＣ①" → "abc1";
///   3. every run of Unicode white space (ICU u_isUWhiteSpace: U+00A0, U+2003, U+3000, tabs,
///      newlines, …) collapsed to one ASCII space, and both ends trimmed.
/// So "Taro\u00A0", "Ｔａｒｏ" and "taro" share one key. Deterministic for a given ICU
/// version (Unicode updates may, rarely, change a key: re-key stored rows on upgrade).
///
/// ASCII text never touches ICU. Other text loads ICU's common library (libicuuc, the major
/// version the SDK was built with) the first time it is needed, through its C API.
///
/// Thread-safety: safe from any thread (ICU's normalizer instance is immutable and shared).
/// Errors: for non-ASCII text when ICU cannot be loaded, sdk::ToolError (a
/// std::runtime_error) naming why and the package (a key made without ICU would never match
/// the keys stored with it, so the write or search fails instead; UnicodeMatchKeysProblem()
/// tells in advance, `kioku doctor` reports it). ASCII text never throws; should a loaded
/// ICU fail on some input, that input comes back with only its ASCII letters lower-cased.

#include <string>
#include <string_view>

namespace kioku::sdk {

/// The matching key of `text` (see the file comment). Output is valid UTF-8.
std::string MatchKey(std::string_view text);

/// "" when ICU can be used for non-ASCII keys (loading it if needed), else why not (the
/// loader's message).
std::string UnicodeMatchKeysProblem();

/// The ICU library MatchKey opens ("libicuuc.so.72"), for messages.
const char* UnicodeLibraryName();

}  // namespace kioku::sdk
