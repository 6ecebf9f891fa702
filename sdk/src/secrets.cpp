#include "kioku/sdk/secrets.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace kioku::sdk {
namespace {

// Hand-written scanners instead of std::regex: libstdc++'s regex is slow and recurses per
// character (stack overflow on long inputs). Every scanner is linear in the text.

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsUrlSafe(char c) { return IsAlnum(c) || c == '-' || c == '_'; }
bool IsEntropyChar(char c) {
  return IsAlnum(c) || c == '+' || c == '/' || c == '_' || c == '=' || c == '-';
}
char Lower(char c) { return IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

std::size_t SpanWhile(std::string_view s, std::size_t pos, bool (*pred)(char)) {
  std::size_t end = pos;
  while (end < s.size() && pred(s[end])) ++end;
  return end - pos;
}

// A pattern may only start where a word starts: "task-..." must not match "sk-".
bool AtWordStart(std::string_view s, std::size_t pos) {
  return pos == 0 || !(IsAlnum(s[pos - 1]) || s[pos - 1] == '_' || s[pos - 1] == '-');
}

using Findings = std::vector<SecretFinding>;

// Calls `on_match(pos)` for each occurrence of `needle` at a word start.
template <class F>
void ForEachAtWordStart(std::string_view text, std::string_view needle, F on_match) {
  for (std::size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + 1)) {
    if (AtWordStart(text, pos)) on_match(pos);
  }
}

void ScanAws(std::string_view text, Findings& out) {
  // Access key ids: 4-letter type prefix + 16 upper-case base32 characters (AWS IAM
  // "Unique identifiers"). AKIA = long-term, ASIA = temporary (STS).
  for (std::string_view prefix : {"AKIA", "ASIA"}) {
    ForEachAtWordStart(text, prefix, [&](std::size_t pos) {
      const std::size_t tail = pos + 4;
      std::size_t n = 0;
      while (tail + n < text.size() && (IsUpper(text[tail + n]) || IsDigit(text[tail + n]))) ++n;
      if (n == 16 && (tail + n == text.size() || !IsAlnum(text[tail + n]))) {
        out.push_back({"aws-access-key", pos, 20});
      }
    });
  }
}

void ScanGithub(std::string_view text, Findings& out) {
  // Classic tokens: gh[pousr]_ + 36 base62 (GitHub "About authentication" token formats);
  // fine-grained: github_pat_ + 82 [A-Za-z0-9_]. We accept >= 30 / >= 22 to catch variants.
  for (std::string_view prefix : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    ForEachAtWordStart(text, prefix, [&](std::size_t pos) {
      const std::size_t n = SpanWhile(text, pos + 4, IsAlnum);
      if (n >= 30) out.push_back({"github-token", pos, 4 + n});
    });
  }
  ForEachAtWordStart(text, "github_pat_", [&](std::size_t pos) {
    const std::size_t n =
        SpanWhile(text, pos + 11, [](char c) { return IsAlnum(c) || c == '_'; });
    if (n >= 22) out.push_back({"github-token", pos, 11 + n});
  });
}

void ScanSlack(std::string_view text, Findings& out) {
  for (std::string_view prefix : {"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}) {
    ForEachAtWordStart(text, prefix, [&](std::size_t pos) {
      const std::size_t n =
          SpanWhile(text, pos + 5, [](char c) { return IsAlnum(c) || c == '-'; });
      std::size_t digits = 0;
      for (std::size_t i = pos + 5; i < pos + 5 + n; ++i) digits += IsDigit(text[i]);
      if (n >= 10 && digits >= 4) out.push_back({"slack-token", pos, 5 + n});
    });
  }
}

void ScanSkKeys(std::string_view text, Findings& out) {
  // OpenAI (sk-…, sk-proj-…) and Anthropic (sk-ant-…) keys. Requiring upper, lower and
  // digits in a >= 20 character tail keeps kebab-case words ("sk-learn-pipeline") out.
  ForEachAtWordStart(text, "sk-", [&](std::size_t pos) {
    const std::size_t n = SpanWhile(text, pos + 3, IsUrlSafe);
    if (n < 20) return;
    bool upper = false, lower = false, digit = false;
    for (std::size_t i = pos + 3; i < pos + 3 + n; ++i) {
      upper |= IsUpper(text[i]);
      lower |= IsLower(text[i]);
      digit |= IsDigit(text[i]);
    }
    if (!(upper && lower && digit)) return;
    const bool anthropic = text.substr(pos, 7) == "sk-ant-";
    out.push_back({anthropic ? "anthropic-key" : "openai-key", pos, 3 + n});
  });
}

void ScanGoogle(std::string_view text, Findings& out) {
  ForEachAtWordStart(text, "AIza", [&](std::size_t pos) {
    const std::size_t n = SpanWhile(text, pos + 4, IsUrlSafe);
    if (n >= 35) out.push_back({"google-api-key", pos, 4 + n});
  });
}

void ScanJwt(std::string_view text, Findings& out) {
  // header.payload.signature, base64url; header and payload are JSON objects, so both
  // start with "eyJ" ('{"' encoded). RFC 7519.
  ForEachAtWordStart(text, "eyJ", [&](std::size_t pos) {
    const std::size_t h = SpanWhile(text, pos, IsUrlSafe);
    std::size_t p = pos + h;
    if (h < 10 || p >= text.size() || text[p] != '.') return;
    ++p;
    if (text.substr(p, 3) != "eyJ") return;
    const std::size_t b = SpanWhile(text, p, IsUrlSafe);
    if (b < 10) return;
    p += b;
    if (p >= text.size() || text[p] != '.') return;
    ++p;
    p += SpanWhile(text, p, IsUrlSafe);  // signature may be empty (alg "none")
    out.push_back({"jwt", pos, p - pos});
  });
}

void ScanPrivateKey(std::string_view text, Findings& out) {
  // PEM (RFC 7468) "-----BEGIN <label>PRIVATE KEY-----" … "-----END <label>PRIVATE KEY-----".
  for (std::size_t pos = text.find("-----BEGIN "); pos != std::string_view::npos;
       pos = text.find("-----BEGIN ", pos + 1)) {
    const std::size_t line_end = std::min(text.find('\n', pos), text.size());
    const std::string_view header = text.substr(pos, line_end - pos);
    const std::size_t label = header.find("PRIVATE KEY-----");
    if (label == std::string_view::npos) continue;
    std::size_t end = text.find("-----END ", pos);
    if (end != std::string_view::npos) {
      const std::size_t close = text.find("-----", end + 9);
      end = (close == std::string_view::npos) ? text.size() : close + 5;
    } else {
      end = text.size();  // truncated block: the rest is key material
    }
    out.push_back({"private-key", pos, end - pos});
    pos = end - 1;
  }
}

// Values that are placeholders or references, not secrets.
bool IsTrivialValue(std::string_view v) {
  if (v.size() < 6) return true;
  const char first = v.front();
  if (first == '$' || first == '<' || first == '{' || first == '%' || first == '(' ||
      first == '[' || first == '!' || first == '*' || first == '&') {
    return true;
  }
  if (std::all_of(v.begin(), v.end(), [&](char c) { return c == first; })) return true;
  if (v.find('(') != std::string_view::npos) return true;  // getenv("X"), read_secret()
  std::string lower(v);
  std::transform(lower.begin(), lower.end(), lower.begin(), Lower);
  for (std::string_view p : {"process.env", "os.environ", "env.", "secrets.", "vault:"}) {
    if (lower.rfind(p, 0) == 0) return true;
  }
  for (std::string_view p : {"password", "changeme", "example", "placeholder", "redacted",
                             "your_", "your-", "xxxx", "none", "null", "undefined", "true",
                             "false", "required", "optional", "string"}) {
    if (lower.find(p) != std::string::npos) return true;
  }
  // Prose ("token: expires hourly") has one character class; credentials mix classes or
  // are long passphrases.
  int classes = 0;
  classes += std::any_of(v.begin(), v.end(), IsLower);
  classes += std::any_of(v.begin(), v.end(), IsUpper);
  classes += std::any_of(v.begin(), v.end(), IsDigit);
  classes += std::any_of(v.begin(), v.end(), [](char c) { return !IsAlnum(c); });
  return classes < 2 && v.size() < 16;
}

void ScanAssignments(std::string_view text, Findings& out) {
  // key (case-insensitive) [quote] [spaces] (= | : | :=) [spaces] [quote] value
  static constexpr std::array<std::string_view, 11> kKeys = {
      "password", "passwd", "passphrase", "secret", "secret_key", "token", "api_key",
      "apikey", "api-key", "access_key", "private_key"};
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), Lower);
  for (std::string_view key : kKeys) {
    for (std::size_t pos = lower.find(key); pos != std::string::npos;
         pos = lower.find(key, pos + 1)) {
      if (pos > 0 && IsAlnum(lower[pos - 1])) continue;  // "mytoken" but "csrf_token" ok
      std::size_t p = pos + key.size();
      if (p < lower.size() && (lower[p] == '"' || lower[p] == '\'')) ++p;
      while (p < lower.size() && (lower[p] == ' ' || lower[p] == '\t')) ++p;
      if (p >= lower.size()) continue;
      if (lower[p] == ':' && p + 1 < lower.size() && lower[p + 1] == '=') {
        p += 2;
      } else if (lower[p] == '=' || lower[p] == ':') {
        ++p;
        if (p < lower.size() && lower[p] == '=') continue;  // "token == x" is a comparison
      } else {
        continue;
      }
      while (p < lower.size() && (lower[p] == ' ' || lower[p] == '\t')) ++p;
      char quote = 0;
      if (p < lower.size() && (lower[p] == '"' || lower[p] == '\'' || lower[p] == '`')) {
        quote = lower[p++];
      }
      std::size_t end = p;
      while (end < text.size()) {
        const char c = text[end];
        if (quote ? c == quote || c == '\n'
                  : (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' ||
                     c == ';' || c == '"' || c == '\'' || c == '`')) {
          break;
        }
        ++end;
      }
      const std::string_view value = text.substr(p, end - p);
      if (!IsTrivialValue(value)) out.push_back({"credential-assignment", p, value.size()});
    }
  }
}

void ScanUrlCredentials(std::string_view text, Findings& out) {
  // scheme://user:password@host — the password part only.
  for (std::size_t pos = text.find("://"); pos != std::string_view::npos;
       pos = text.find("://", pos + 3)) {
    const std::size_t start = pos + 3;
    std::size_t p = start;
    while (p < text.size() && text[p] != '@' && text[p] != '/' && text[p] != ' ' &&
           text[p] != '\n' && text[p] != '\t' && text[p] != '"' && text[p] != '\'') {
      ++p;
    }
    if (p >= text.size() || text[p] != '@') continue;
    const std::string_view userinfo = text.substr(start, p - start);
    const std::size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view password = userinfo.substr(colon + 1);
    if (password.size() < 3 || password.front() == '$' || password.front() == '<' ||
        password.front() == '{' || password == "***" || password == "xxx") {
      continue;
    }
    out.push_back({"url-credentials", start + colon + 1, password.size()});
  }
}

double ShannonEntropy(std::string_view s) {
  std::array<int, 256> counts{};
  for (unsigned char c : s) ++counts[c];
  double h = 0;
  const double n = static_cast<double>(s.size());
  for (int c : counts) {
    if (c == 0) continue;
    const double p = c / n;
    h -= p * std::log2(p);
  }
  return h;
}

bool AllHex(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), IsHex); }

bool IsUlid(std::string_view s) {
  if (s.size() != 26 || s[0] > '7') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return IsDigit(c) || (IsUpper(c) && c != 'I' && c != 'L' && c != 'O' && c != 'U');
  });
}

// Allowlist for the entropy rule: ids and paths are random-looking but not secret.
bool IsAllowlistedToken(std::string_view tok) {
  if (AllHex(tok) || IsUlid(tok)) return true;  // git SHAs (40/64), digests, ULIDs
  // Paths: several '/'-separated segments, none long enough to be key material.
  if (std::count(tok.begin(), tok.end(), '/') >= 2) {
    bool short_segments = true;
    std::size_t seg = 0;
    for (char c : tok) {
      seg = (c == '/') ? 0 : seg + 1;
      if (seg > 24) short_segments = false;
    }
    if (short_segments) return true;
  }
  // Compounds of ids: UUIDs (8-4-4-4-12 hex), "sha256-<hex>", "mem_<ULID>": every
  // segment is hex, a ULID or a short label, and at least one is a long hex run or ULID.
  bool has_id = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= tok.size(); ++i) {
    if (i < tok.size() && tok[i] != '-' && tok[i] != '_' && tok[i] != '/' && tok[i] != '=' &&
        tok[i] != '+') {
      continue;
    }
    const std::string_view seg = tok.substr(start, i - start);
    start = i + 1;
    if (seg.empty()) continue;
    if (IsUlid(seg) || (AllHex(seg) && seg.size() >= 8)) {
      has_id = true;
    } else if (!(AllHex(seg) || seg.size() <= 8)) {
      return false;
    }
  }
  return has_id;
}

// Mean length of runs of one character class (lower, upper, digit, other), where an upper
// followed by lowers is one run ("User"). Identifiers read as words ("getUserProfile2024"
// → get|User|Profile|2024, mean 4.5); random tokens switch class every ~1.6 characters.
double MeanRunLength(std::string_view tok) {
  const auto cls = [](char c) { return IsLower(c) ? 0 : IsUpper(c) ? 1 : IsDigit(c) ? 2 : 3; };
  std::size_t runs = 0;
  for (std::size_t i = 0; i < tok.size(); ++i) {
    if (i == 0) {
      ++runs;
      continue;
    }
    const int prev = cls(tok[i - 1]), cur = cls(tok[i]);
    if (cur == prev) continue;
    if (prev == 1 && cur == 0) continue;  // "User", "HTTPServer": one word
    ++runs;
  }
  return runs == 0 ? 0.0 : static_cast<double>(tok.size()) / static_cast<double>(runs);
}

void ScanEntropy(std::string_view text, Findings& out) {
  // detect-secrets / truffleHog style: long tokens from the base64(url) alphabet whose
  // Shannon entropy is >= 4.0 bits per character and which mix letters and digits.
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (!IsEntropyChar(text[pos])) {
      ++pos;
      continue;
    }
    const std::size_t n = SpanWhile(text, pos, IsEntropyChar);
    std::string_view tok = text.substr(pos, n);
    std::size_t off = pos;
    pos += n;
    // Trim separators that belong to the surrounding text ("key=...", "--flag", "/path").
    while (!tok.empty() && !IsAlnum(tok.front())) {
      tok.remove_prefix(1);
      ++off;
    }
    while (!tok.empty() && !IsAlnum(tok.back()) && tok.back() != '=') tok.remove_suffix(1);
    if (tok.size() < 32) continue;
    bool letters = false, digits = false;
    for (char c : tok) {
      letters |= IsUpper(c) || IsLower(c);
      digits |= IsDigit(c);
    }
    if (!letters || !digits) continue;
    if (ShannonEntropy(tok) < 4.0) continue;
    if (MeanRunLength(tok) >= 3.0) continue;  // reads like an identifier, not a key
    if (IsAllowlistedToken(tok)) continue;
    out.push_back({"high-entropy", off, tok.size()});
  }
}

// All findings, sorted by offset, overlaps resolved in favour of the earlier (then longer)
// span so redaction never double-replaces.
Findings AllFindings(std::string_view text) {
  Findings found;
  ScanPrivateKey(text, found);
  ScanAws(text, found);
  ScanGithub(text, found);
  ScanSlack(text, found);
  ScanSkKeys(text, found);
  ScanGoogle(text, found);
  ScanJwt(text, found);
  ScanUrlCredentials(text, found);
  ScanAssignments(text, found);
  ScanEntropy(text, found);
  std::stable_sort(found.begin(), found.end(), [](const SecretFinding& a, const SecretFinding& b) {
    if (a.offset != b.offset) return a.offset < b.offset;
    return a.length > b.length;
  });
  Findings merged;
  std::size_t covered_to = 0;
  for (SecretFinding& f : found) {
    if (f.length == 0) continue;
    if (!merged.empty() && f.offset < covered_to) continue;
    covered_to = f.offset + f.length;
    merged.push_back(std::move(f));
  }
  return merged;
}

}  // namespace

std::optional<SecretFinding> FindSecret(std::string_view text) {
  Findings found = AllFindings(text);
  if (found.empty()) return std::nullopt;
  return found.front();
}

std::string RedactSecrets(std::string_view text) {
  const Findings found = AllFindings(text);
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (const SecretFinding& f : found) {
    out.append(text.substr(pos, f.offset - pos));
    out += "[REDACTED:" + f.kind + "]";
    pos = f.offset + f.length;
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace kioku::sdk
