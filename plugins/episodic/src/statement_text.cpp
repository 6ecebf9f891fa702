#include "statement_text.hpp"

#include <cctype>

namespace kioku::episodic {

namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool Digits(std::string_view t, std::size_t at, std::size_t n) {
  if (at + n > t.size()) return false;
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isdigit(static_cast<unsigned char>(t[at + k]))) return false;
  }
  return true;
}

// "src/a.ts:12:5", "foo.py:88" — a compiler or test-runner location.
bool HasFileLineColumn(std::string_view t) {
  for (std::size_t i = 1; i + 1 < t.size(); ++i) {
    if (t[i] != ':' || !std::isdigit(static_cast<unsigned char>(t[i + 1]))) continue;
    std::size_t b = i;
    while (b > 0 && t[b - 1] != ' ' && t[b - 1] != '(') --b;
    const std::string_view word = t.substr(b, i - b);
    const auto dot = word.rfind('.');
    if (dot != std::string_view::npos && dot + 1 < word.size() && dot > 0 &&
        std::isalpha(static_cast<unsigned char>(word[dot + 1]))) {
      return true;
    }
  }
  return false;
}

bool IsPastedLine(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::string_view t = line.substr(i);
  if (t.empty()) return false;
  // 2025-11-11T08:59:58Z …, 2025-11-11 08:59 …, 08:59:58 …, [2025-…]
  const std::string_view d = t.front() == '[' ? t.substr(1) : t;
  if (Digits(d, 0, 4) && d.size() > 4 && d[4] == '-' && Digits(d, 5, 2)) return true;
  if (Digits(d, 0, 2) && d.size() > 5 && d[2] == ':' && Digits(d, 3, 2) && d[5] == ':' &&
      Digits(d, 6, 2)) {
    return true;  // a bare "02:00 is fine" is prose
  }
  static constexpr std::string_view kStarts[] = {
      "INFO ",  "WARN ",   "WARNING ", "ERROR ",  "DEBUG ",  "TRACE ",  "FATAL ",   "[INFO]",
      "[WARN]", "[ERROR]", "[DEBUG]",  "INFO:",   "WARN:",   "ERROR:",  "WARNING:", "DEBUG:",
      "Traceback ", "E   ",    "npm ERR!", "npm WARN", "error:", "error[",   "warning:",
      "$ ",     "FAILED ",  "PASSED ", "FAIL ",   "PASS ",   "Error: ",  "panic:",
      "thread '", "File \"", "+++ ",    "@@ ",     "Exit code"};
  for (std::string_view s : kStarts) {
    if (StartsWith(t, s)) return true;
  }
  return HasFileLineColumn(t) &&
         (t.find("error") != std::string_view::npos || t.find("warning") != std::string_view::npos ||
          t.find("Error") != std::string_view::npos);
}

}  // namespace

std::string StripPastedMaterial(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_fence = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::string_view trimmed = line.substr(i);
    if (StartsWith(trimmed, "```") || StartsWith(trimmed, "~~~")) {
      in_fence = !in_fence;
      out += '\n';
    } else if (in_fence || StartsWith(trimmed, ">") || StartsWith(line, "    ") ||
               StartsWith(line, "\t") || IsPastedLine(line)) {
      out += '\n';  // keep a sentence break where the pasted block was
    } else {
      out.append(line);
      out += '\n';
    }
    if (nl >= text.size()) break;
  }
  return out;
}

std::string FoldText(std::string_view text, bool lower) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80') {
      const char k = text[i + 2];
      if (k == '\x98' || k == '\x99') {
        out += '\'';
        i += 2;
        continue;
      }
      if (k == '\x93' || k == '\x94') {
        out += " - ";
        i += 2;
        continue;
      }
      if (k == '\x9C' || k == '\x9D') {
        out += '"';
        i += 2;
        continue;
      }
    }
    out += lower && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::size_t FindPhrase(std::string_view lower, std::string_view phrase, std::size_t from) {
  if (phrase.empty() || phrase.size() > lower.size()) return std::string_view::npos;
  // The left word boundary is tested before comparing: hundreds of phrases are looked up
  // per sentence, and most first-letter hits sit inside a word (ingest throughput).
  const char first = phrase.front();
  const bool word_first = IsWordChar(first);
  const bool word_last = IsWordChar(phrase.back());
  const std::size_t last_start = lower.size() - phrase.size();
  for (std::size_t pos = lower.find(first, from); pos != std::string_view::npos && pos <= last_start;
       pos = lower.find(first, pos + 1)) {
    if (word_first && pos > 0 && IsWordChar(lower[pos - 1])) continue;
    if (lower.compare(pos, phrase.size(), phrase) != 0) continue;
    const std::size_t e = pos + phrase.size();
    if (word_last && e < lower.size() && IsWordChar(lower[e])) continue;
    return pos;
  }
  return std::string_view::npos;
}

bool HasPhrase(std::string_view lower, std::string_view phrase) {
  return FindPhrase(lower, phrase) != std::string_view::npos;
}

bool HasAny(std::string_view lower, std::initializer_list<std::string_view> phrases) {
  for (std::string_view p : phrases) {
    if (HasPhrase(lower, p)) return true;
  }
  return false;
}

bool StartsWithAny(std::string_view lower, std::initializer_list<std::string_view> phrases) {
  for (std::string_view p : phrases) {
    if (StartsWith(lower, p) &&
        (lower.size() == p.size() || !IsWordChar(lower[p.size()]) || !IsWordChar(p.back()))) {
      return true;
    }
  }
  return false;
}

}  // namespace kioku::episodic
