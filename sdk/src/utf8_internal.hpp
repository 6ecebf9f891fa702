#pragma once
// Internal to the SDK library: one UTF-8 decoder and the ASCII helpers shared by text.cpp,
// fts.cpp, match_key.cpp, secrets.cpp and trigram_substrings.cpp. Not installed, not part
// of the plugin contract.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kioku::sdk::detail {

/// `c` with A–Z lower-cased, every other byte as it is.
constexpr char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// The end of the run of ASCII bytes from `pos`: each is one valid character, so a run is
/// copied, counted or folded at once (most text is ASCII; decoding it byte by byte cost ~40
/// instructions a byte in every memory written). `text` is all ASCII when
/// AsciiRunEnd(text, 0) == text.size().
inline std::size_t AsciiRunEnd(std::string_view text, std::size_t pos) {
  while (pos < text.size() && static_cast<unsigned char>(text[pos]) < 0x80) ++pos;
  return pos;
}

/// Length of the well-formed UTF-8 sequence starting at `s[pos]` (1–4), or 0 when the bytes
/// there are not one (Unicode 15 §3.9 Table 3-7: no overlongs, no surrogates, <= U+10FFFF).
/// On success `*cp` (if given) receives the code point.
inline std::size_t DecodeUtf8(std::string_view s, std::size_t pos, char32_t* cp = nullptr) {
  const std::size_t n = s.size() - pos;
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[pos + i]); };
  const unsigned char b0 = b(0);
  if (b0 < 0x80) {
    if (cp) *cp = b0;
    return 1;
  }
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 == 0xE0) {
    len = 3, lo = 0xA0;
  } else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
    len = 3;
  } else if (b0 == 0xED) {
    len = 3, hi = 0x9F;  // excludes UTF-16 surrogates D800–DFFF
  } else if (b0 == 0xF0) {
    len = 4, lo = 0x90;
  } else if (b0 >= 0xF1 && b0 <= 0xF3) {
    len = 4;
  } else if (b0 == 0xF4) {
    len = 4, hi = 0x8F;  // <= U+10FFFF
  } else {
    return 0;
  }
  if (n < len) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (std::size_t i = 2; i < len; ++i) {
    if (b(i) < 0x80 || b(i) > 0xBF) return 0;
  }
  if (cp) {
    char32_t v = b0 & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (std::size_t i = 1; i < len; ++i) v = (v << 6) | (b(i) & 0x3F);
    *cp = v;
  }
  return len;
}

/// Length of the maximal subpart of an ill-formed sequence at `pos` (Unicode §3.9 "U+FFFD
/// substitution of maximal subparts"): the bytes that still could have begun a valid
/// sequence, at least 1. Call only where DecodeUtf8 returned 0.
inline std::size_t InvalidSubpartLength(std::string_view s, std::size_t pos) {
  const unsigned char b0 = static_cast<unsigned char>(s[pos]);
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
  else if (b0 == 0xE0) len = 3, lo = 0xA0;
  else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) len = 3;
  else if (b0 == 0xED) len = 3, hi = 0x9F;
  else if (b0 == 0xF0) len = 4, lo = 0x90;
  else if (b0 >= 0xF1 && b0 <= 0xF3) len = 4;
  else if (b0 == 0xF4) len = 4, hi = 0x8F;
  else return 1;
  std::size_t i = 1;
  for (; i < len && pos + i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[pos + i]);
    const unsigned char l = (i == 1) ? lo : 0x80, h = (i == 1) ? hi : 0xBF;
    if (c < l || c > h) break;
  }
  return i;
}

}  // namespace kioku::sdk::detail
