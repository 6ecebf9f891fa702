#include "kioku/sdk/match_key.hpp"

#include <algorithm>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "kioku/sdk/text.hpp"

namespace kioku::sdk {
namespace {

std::string AsciiLowerFallback(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// ASCII alone: NFKC_Casefold maps A-Z to a-z and leaves every other ASCII character as it
// is (none is default-ignorable or has a compatibility mapping), and the ASCII white space
// of u_isUWhiteSpace is U+0009..U+000D and U+0020. Two thirds of a batch write's MatchKey
// time went to building ICU strings for text that is ASCII throughout.
bool IsAsciiWhiteSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string AsciiMatchKey(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (const char c : text) {
    if (IsAsciiWhiteSpace(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

}  // namespace

std::string MatchKey(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return AsciiMatchKey(text);
  }
  const std::string clean = IsValidUtf8(text) ? std::string(text) : SanitizeUtf8(text);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status) || nfkc_cf == nullptr) return AsciiLowerFallback(clean);
  const icu::UnicodeString source = icu::UnicodeString::fromUTF8(clean);
  const icu::UnicodeString folded = nfkc_cf->normalize(source, status);
  if (U_FAILURE(status)) return AsciiLowerFallback(clean);

  // Collapse Unicode white space runs to one ASCII space; trim both ends.
  icu::UnicodeString collapsed;
  bool pending_space = false;
  for (int32_t i = 0; i < folded.length();) {
    const UChar32 cp = folded.char32At(i);
    i += U16_LENGTH(cp);
    if (u_isUWhiteSpace(cp)) {
      pending_space = !collapsed.isEmpty();
      continue;
    }
    if (pending_space) collapsed.append(static_cast<UChar>(u' '));
    pending_space = false;
    collapsed.append(cp);
  }
  std::string out;
  collapsed.toUTF8String(out);
  return out;
}

}  // namespace kioku::sdk
