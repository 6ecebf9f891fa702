#include "kioku/sdk/fts.hpp"

#include <algorithm>
#include <unordered_map>

#include "utf8_internal.hpp"

namespace kioku::sdk {
namespace {

bool IsAsciiWord(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsJoiner(char c) {
  return c == '_' || c == '.' || c == '/' || c == '-' || c == '+' || c == '#';
}

// Non-ASCII code points that separate words rather than belong to them: common spaces and
// punctuation (Latin-1 punctuation, General Punctuation, CJK punctuation, full-width
// ASCII punctuation). Everything else >= U+0080 counts as a letter.
bool IsUnicodeSeparator(char32_t cp) {
  if (cp >= 0x80 && cp <= 0xBF) {
    return cp != 0xAA && cp != 0xB2 && cp != 0xB3 && cp != 0xB5 && cp != 0xB9 && cp != 0xBA &&
           cp != 0xBC && cp != 0xBD && cp != 0xBE;
  }
  if (cp == 0xD7 || cp == 0xF7) return true;  // × ÷
  if (cp >= 0x2000 && cp <= 0x206F) return true;
  if (cp >= 0x3000 && cp <= 0x3003) return true;
  if (cp >= 0x3008 && cp <= 0x3011) return true;  // 〈〉《》「」『』【】
  if (cp == 0xFEFF) return true;                  // BOM / zero-width no-break space
  if (cp >= 0xFF01 && cp <= 0xFF0F) return true;
  if (cp >= 0xFF1A && cp <= 0xFF20) return true;
  return false;
}

// One scanned word, ASCII lower-cased, invalid UTF-8 gone.
struct Word {
  std::string text;                // whole compound, e.g. "pre-commit"
  std::vector<std::string> parts;  // its pieces: "pre", "commit"
};

// Accumulates unique tokens and remembers which ones belong to the most recent word, so
// BuildFtsQuery can make the last word a prefix query (`prefix_last`).
class Collector {
 public:
  explicit Collector(const FtsQueryOptions& options) : options_(options) {}

  bool Full() const { return tokens_.size() >= options_.max_tokens; }

  void StartWord() { last_word_.clear(); }

  // `completes` marks the tokens a prefix query should extend: the compound and its final
  // piece ("pre-com" → `pre-com`*, `pre`, `com`*).
  void Add(const std::string& token, bool completes) {
    if (token.empty() || Utf8LengthValid(token) < options_.min_token_chars) return;
    auto [it, inserted] = seen_.try_emplace(token, tokens_.size());
    if (inserted) {
      if (Full()) {
        seen_.erase(it);
        return;
      }
      tokens_.push_back(token);
    }
    if (completes) last_word_.push_back(it->second);
  }

  std::vector<std::string>& Tokens() { return tokens_; }
  const std::vector<std::size_t>& LastWord() const { return last_word_; }

 private:
  static std::size_t Utf8LengthValid(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // tokens hold valid UTF-8 only
    return n;
  }

  const FtsQueryOptions& options_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, std::size_t> seen_;  // token -> index in tokens_
  std::vector<std::size_t> last_word_;
};

void Scan(std::string_view text, const FtsQueryOptions& options, Collector& out) {
  text = text.substr(0, std::min(text.size(), options.max_input_bytes));
  if (options.max_tokens == 0) return;

  Word word;
  std::string part;
  const auto end_part = [&] {
    if (!part.empty()) word.parts.push_back(std::move(part));
    part.clear();
  };
  const auto end_word = [&] {
    end_part();
    if (word.parts.empty()) return;
    out.StartWord();
    if (word.parts.size() > 1) out.Add(word.text, true);  // the compound, then its pieces
    for (std::size_t i = 0; i < word.parts.size(); ++i) {
      out.Add(word.parts[i], i + 1 == word.parts.size());
    }
    word.text.clear();
    word.parts.clear();
  };

  std::size_t pos = 0;
  while (pos < text.size() && !out.Full()) {
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (IsAsciiWord(c)) {
      const char lower = detail::LowerAscii(static_cast<char>(c));
      part.push_back(lower);
      word.text.push_back(lower);
      ++pos;
      continue;
    }
    if (c >= 0x80) {
      char32_t cp = 0;
      const std::size_t len = detail::DecodeUtf8(text, pos, &cp);
      if (len != 0 && !IsUnicodeSeparator(cp)) {
        part.append(text.substr(pos, len));
        word.text.append(text.substr(pos, len));
        pos += len;
        continue;
      }
      // Invalid bytes and Unicode punctuation end the word.
      end_word();
      pos += (len == 0) ? 1 : len;
      continue;
    }
    // A joiner between two word characters links the pieces into one compound.
    if (IsJoiner(static_cast<char>(c)) && !part.empty() && pos + 1 < text.size()) {
      const unsigned char next = static_cast<unsigned char>(text[pos + 1]);
      bool next_is_word = IsAsciiWord(next);
      if (!next_is_word && next >= 0x80) {
        char32_t cp = 0;
        next_is_word = detail::DecodeUtf8(text, pos + 1, &cp) != 0 && !IsUnicodeSeparator(cp);
      }
      if (next_is_word) {
        end_part();
        word.text.push_back(static_cast<char>(c));
        ++pos;
        continue;
      }
    }
    end_word();
    ++pos;
  }
  end_word();
}

}  // namespace

std::vector<std::string> FtsTokens(std::string_view text, const FtsQueryOptions& options) {
  Collector out(options);
  Scan(text, options, out);
  return std::move(out.Tokens());
}

bool IsFtsOperatorWord(std::string_view token) {
  if (token.size() < 2 || token.size() > 4) return false;
  std::string lower(token);
  for (char& c : lower) c = detail::LowerAscii(c);
  return lower == "and" || lower == "or" || lower == "not" || lower == "near";
}

std::optional<std::string> UnsearchableQuery(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return std::nullopt;
  for (const std::string& token : FtsTokens(text)) {
    if (!IsFtsOperatorWord(token)) return std::nullopt;
  }
  return std::string(
      "query has no searchable words (only operators such as AND/OR/NOT or punctuation); "
      "send words, identifiers or paths, or omit query to list the most recent");
}

std::string QuoteFtsToken(std::string_view token) {
  std::string out;
  out.reserve(token.size() + 2);
  out.push_back('"');
  for (char c : token) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::optional<std::string> TrigramMatch(std::string_view text, std::size_t max_trigrams) {
  std::vector<std::size_t> starts;  // byte offset of each code point (an invalid byte is one)
  for (std::size_t pos = 0; pos < text.size();) {
    starts.push_back(pos);
    const std::size_t len = detail::DecodeUtf8(text, pos);
    pos += len == 0 ? 1 : len;
  }
  starts.push_back(text.size());
  std::vector<std::string_view> seen;
  std::string out;
  for (std::size_t i = 0; i + 3 < starts.size() && seen.size() < max_trigrams; ++i) {
    const std::string_view gram = text.substr(starts[i], starts[i + 3] - starts[i]);
    if (std::find(seen.begin(), seen.end(), gram) != seen.end()) continue;
    seen.push_back(gram);
    out += (out.empty() ? "" : " AND ") + QuoteFtsToken(gram);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<std::string> BuildFtsQuery(std::string_view text,
                                         const FtsQueryOptions& options) {
  Collector out(options);
  Scan(text, options, out);
  const std::vector<std::string>& tokens = out.Tokens();
  if (tokens.empty()) return std::nullopt;
  std::vector<bool> prefix(tokens.size(), false);
  if (options.prefix_last) {
    for (std::size_t i : out.LastWord()) prefix[i] = true;
  }
  const char* sep = options.join == FtsJoin::kAll ? " AND " : " OR ";
  std::string query;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0) query += sep;
    query += QuoteFtsToken(tokens[i]);
    if (prefix[i]) query.push_back('*');  // FTS5 prefix phrase: "tok"* (fts5.html §3.3)
  }
  return query;
}

}  // namespace kioku::sdk
