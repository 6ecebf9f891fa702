#include "normalize.hpp"

#include "kioku/sdk/match_key.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::semantic {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Decodes one UTF-8 sequence at `pos`; returns its length (0 = invalid byte).
std::size_t Decode(std::string_view s, std::size_t pos, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  std::size_t len = 0;
  char32_t value = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    value = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    value = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    value = b0 & 0x07;
  } else {
    return 0;
  }
  if (pos + len > s.size()) return 0;
  for (std::size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(s[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    value = (value << 6) | (b & 0x3F);
  }
  *cp = value;
  return len;
}

}  // namespace

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string AsciiUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::string NormalizeText(std::string_view text) {
  std::string out = sdk::MatchKey(text);
  if (!out.empty() && out.back() == '.') out.pop_back();
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string NormalizeSubject(std::string_view subject) {
  std::string out = NormalizeText(subject);
  for (char& c : out) {
    if (c == ' ') c = '-';
  }
  return out;
}

std::string NormalizeTag(std::string_view tag) {
  std::string out = sdk::MatchKey(tag);
  if (!out.empty() && out.front() == '#') out.erase(0, 1);
  for (char& c : out) {
    if (c == ' ') c = '-';
  }
  return out;
}

std::int64_t KeyHash(const std::vector<std::string_view>& parts) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  bool first = true;
  for (std::string_view part : parts) {
    if (!first) {
      h ^= 0x1F;
      h *= 1099511628211ULL;
    }
    first = false;
    for (unsigned char c : part) {
      h ^= c;
      h *= 1099511628211ULL;  // FNV 64-bit prime
    }
  }
  return static_cast<std::int64_t>(h);
}

bool IsCjkCodePoint(char32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) ||    // Hiragana, Katakana
         (cp >= 0x31F0 && cp <= 0x31FF) ||    // Katakana phonetic extensions
         (cp >= 0x3400 && cp <= 0x4DBF) ||    // CJK extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||    // CJK unified ideographs
         (cp >= 0xAC00 && cp <= 0xD7AF) ||    // Hangul syllables
         (cp >= 0x1100 && cp <= 0x11FF) ||    // Hangul jamo
         (cp >= 0x3130 && cp <= 0x318F) ||    // Hangul compatibility jamo
         (cp >= 0xF900 && cp <= 0xFAFF) ||    // CJK compatibility ideographs
         (cp >= 0xFF66 && cp <= 0xFF9F) ||    // half-width katakana
         (cp >= 0x20000 && cp <= 0x2FA1F);    // extensions B–F, compatibility supplement
}

std::vector<std::string> CjkRuns(std::string_view text) {
  std::vector<std::string> runs;
  std::string current;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t cp = 0;
    const bool ascii = static_cast<unsigned char>(text[pos]) < 0x80;  // most of most texts: not decoded
    const std::size_t len = ascii ? 1 : Decode(text, pos, &cp);
    if (!ascii && len != 0 && IsCjkCodePoint(cp)) {
      current.append(text.substr(pos, len));
    } else if (!current.empty()) {
      runs.push_back(std::move(current));
      current.clear();
    }
    pos += len == 0 ? 1 : len;
  }
  if (!current.empty()) runs.push_back(std::move(current));
  return runs;
}

std::vector<std::string> CjkBigrams(std::string_view run) {
  std::vector<std::string_view> chars;
  for (std::size_t pos = 0; pos < run.size();) {
    char32_t cp = 0;
    const std::size_t len = Decode(run, pos, &cp);
    const std::size_t step = len == 0 ? 1 : len;
    chars.push_back(run.substr(pos, step));
    pos += step;
  }
  std::vector<std::string> out;
  if (chars.size() == 1) {
    out.emplace_back(chars[0]);
    return out;
  }
  for (std::size_t i = 0; i + 1 < chars.size(); ++i) {
    out.push_back(std::string(chars[i]) + std::string(chars[i + 1]));
  }
  return out;
}

std::string CjkIndexTerms(std::string_view text) {
  std::string out;
  for (const std::string& run : CjkRuns(text)) {
    const std::vector<std::string> grams = CjkBigrams(run);
    for (const std::string& g : grams) {
      if (!out.empty()) out.push_back(' ');
      out += g;
    }
    char32_t first = 0;
    const std::size_t first_len = Decode(run, 0, &first);
    if (first_len != 0 && first_len < run.size()) {
      // The run's last character alone, so a one-character prefix query finds it too.
      std::size_t last = run.size();
      while (last > 0 && (static_cast<unsigned char>(run[last - 1]) & 0xC0) == 0x80) --last;
      if (last > 0) --last;
      out.push_back(' ');
      out.append(run.substr(last));
    }
  }
  return out;
}

}  // namespace kioku::semantic
