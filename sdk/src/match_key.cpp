#include "kioku/sdk/match_key.hpp"

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

}  // namespace

std::string MatchKey(std::string_view text) {
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
