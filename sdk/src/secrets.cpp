#include "kioku/sdk/secrets.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::sdk {
namespace {

// Hand-written scanners instead of std::regex: libstdc++'s regex is slow and recurses per
// character (stack overflow on long inputs). Every scanner is linear in the text.

constexpr bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
constexpr bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr bool IsUrlSafe(char c) { return IsAlnum(c) || c == '-' || c == '_'; }
constexpr bool IsEntropyChar(char c) {
  return IsAlnum(c) || c == '+' || c == '/' || c == '_' || c == '=' || c == '-';
}
constexpr char Lower(char c) { return IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

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

// Gates. Ordinary text (most of what is screened) holds none of the scans' triggers, and
// looking for ~60 needles one find() at a time cost ~15,000 instructions per short memory.
// One pass records which adjacent byte pairs the text holds (case-folded, hashed into 256
// bits); a needle one of whose pairs is missing cannot occur, so its search is skipped.
// Each gate is a superset of its scan by construction: an occurrence of the needle, in any
// case, puts every one of its pairs in the set. Hash collisions only let a search run.
using Bits256 = std::array<std::uint64_t, 4>;

// Per byte: its case-folded value and whether it is an IsEntropyChar (a table, because the
// digest pass looks at every byte of every string screened).
struct ByteInfo {
  unsigned char folded = 0;
  bool entropy = false;
};
constexpr std::array<ByteInfo, 256> kByteInfo = [] {
  std::array<ByteInfo, 256> table{};
  for (std::size_t b = 0; b < table.size(); ++b) {
    const char c = static_cast<char>(b);
    table[b] = {static_cast<unsigned char>(Lower(c)), IsEntropyChar(c)};
  }
  return table;
}();

// The slot of a pair of case-folded bytes.
constexpr unsigned PairSlot(unsigned char a, unsigned char b) {
  const std::uint32_t pair = (std::uint32_t{a} << 8) | b;
  return (pair * 0x9E3779B1u) >> 24;  // Fibonacci hashing: the top 8 bits of the product
}

constexpr void SetBit(Bits256& bits, unsigned i) { bits[i >> 6] |= std::uint64_t{1} << (i & 63); }

/// A literal a scan looks for, with its pair slots computed at compile time.
struct Needle {
  std::string_view text;
  Bits256 pairs{};

  constexpr Needle(const char* s) : Needle(std::string_view(s)) {}
  constexpr Needle(std::string_view s) : text(s) {
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      SetBit(pairs, PairSlot(kByteInfo[static_cast<unsigned char>(s[i])].folded,
                             kByteInfo[static_cast<unsigned char>(s[i + 1])].folded));
    }
  }
};

/// What one pass over the text tells the gates.
class TextDigest {
 public:
  explicit TextDigest(std::string_view text) {
    std::size_t run = 0;
    unsigned char prev = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const ByteInfo& info = kByteInfo[static_cast<unsigned char>(text[i])];
      if (i > 0) SetBit(pairs_, PairSlot(prev, info.folded));
      prev = info.folded;
      run = info.entropy ? run + 1 : 0;
      longest_entropy_run_ = std::max(longest_entropy_run_, run);
    }
  }

  /// False only when `needle` occurs nowhere in the text, in any letter case.
  bool MayContain(const Needle& needle) const {
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      if ((needle.pairs[i] & pairs_[i]) != needle.pairs[i]) return false;
    }
    return true;
  }
  /// The longest run of IsEntropyChar characters.
  std::size_t LongestEntropyRun() const { return longest_entropy_run_; }

 private:
  Bits256 pairs_{};
  std::size_t longest_entropy_run_ = 0;
};

// Calls `on_match(pos)` for each occurrence of `needle` at a word start.
template <class F>
void ForEachAtWordStart(std::string_view text, const TextDigest& digest, const Needle& needle,
                        F on_match) {
  if (!digest.MayContain(needle)) return;
  for (std::size_t pos = text.find(needle.text); pos != std::string_view::npos;
       pos = text.find(needle.text, pos + 1)) {
    if (AtWordStart(text, pos)) on_match(pos);
  }
}

void ScanAws(std::string_view text, const TextDigest& digest, Findings& out) {
  // Access key ids: 4-letter type prefix + 16 upper-case base32 characters (AWS IAM
  // "Unique identifiers"). AKIA = long-term, ASIA = temporary (STS).
  static constexpr Needle kPrefixes[] = {"AKIA", "ASIA"};
  for (const Needle& prefix : kPrefixes) {
    ForEachAtWordStart(text, digest, prefix, [&](std::size_t pos) {
      const std::size_t tail = pos + 4;
      std::size_t n = 0;
      while (tail + n < text.size() && (IsUpper(text[tail + n]) || IsDigit(text[tail + n]))) ++n;
      if (n == 16 && (tail + n == text.size() || !IsAlnum(text[tail + n]))) {
        out.push_back({"aws-access-key", pos, 20});
      }
    });
  }
}

void ScanGithub(std::string_view text, const TextDigest& digest, Findings& out) {
  // Classic tokens: gh[pousr]_ + 36 base62 (GitHub "About authentication" token formats);
  // fine-grained: github_pat_ + 82 [A-Za-z0-9_]. We accept >= 30 / >= 22 to catch variants.
  static constexpr Needle kPrefixes[] = {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"};
  static constexpr Needle kFineGrained = "github_pat_";
  for (const Needle& prefix : kPrefixes) {
    ForEachAtWordStart(text, digest, prefix, [&](std::size_t pos) {
      const std::size_t n = SpanWhile(text, pos + 4, IsAlnum);
      if (n >= 30) out.push_back({"github-token", pos, 4 + n});
    });
  }
  ForEachAtWordStart(text, digest, kFineGrained, [&](std::size_t pos) {
    const std::size_t n =
        SpanWhile(text, pos + 11, [](char c) { return IsAlnum(c) || c == '_'; });
    if (n >= 22) out.push_back({"github-token", pos, 11 + n});
  });
}

void ScanSlack(std::string_view text, const TextDigest& digest, Findings& out) {
  static constexpr Needle kPrefixes[] = {"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"};
  for (const Needle& prefix : kPrefixes) {
    ForEachAtWordStart(text, digest, prefix, [&](std::size_t pos) {
      const std::size_t n =
          SpanWhile(text, pos + 5, [](char c) { return IsAlnum(c) || c == '-'; });
      std::size_t digits = 0;
      for (std::size_t i = pos + 5; i < pos + 5 + n; ++i) digits += IsDigit(text[i]);
      if (n >= 10 && digits >= 4) out.push_back({"slack-token", pos, 5 + n});
    });
  }
}

void ScanSkKeys(std::string_view text, const TextDigest& digest, Findings& out) {
  // OpenAI (sk-…, sk-proj-…) and Anthropic (sk-ant-…) keys. Requiring upper, lower and
  // digits in a >= 20 character tail keeps kebab-case words ("sk-learn-pipeline") out.
  static constexpr Needle kPrefix = "sk-";
  ForEachAtWordStart(text, digest, kPrefix, [&](std::size_t pos) {
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

void ScanGoogle(std::string_view text, const TextDigest& digest, Findings& out) {
  static constexpr Needle kPrefix = "AIza";
  ForEachAtWordStart(text, digest, kPrefix, [&](std::size_t pos) {
    const std::size_t n = SpanWhile(text, pos + 4, IsUrlSafe);
    if (n >= 35) out.push_back({"google-api-key", pos, 4 + n});
  });
}

void ScanJwt(std::string_view text, const TextDigest& digest, Findings& out) {
  // header.payload.signature, base64url; header and payload are JSON objects, so both
  // start with "eyJ" ('{"' encoded). RFC 7519.
  static constexpr Needle kPrefix = "eyJ";
  ForEachAtWordStart(text, digest, kPrefix, [&](std::size_t pos) {
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

void ScanPrivateKey(std::string_view text, const TextDigest& digest, Findings& out) {
  // PEM (RFC 7468) "-----BEGIN <label>PRIVATE KEY-----" … "-----END <label>PRIVATE KEY-----".
  static constexpr Needle kBegin = "-----BEGIN ";
  if (!digest.MayContain(kBegin)) return;
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

// Named formats "prefix + tail": the tail's alphabet and minimum length (and, for fixed-size
// formats, its exact length). Sources per rule in secrets.hpp.
enum class Tail { kAlnum, kUrlSafe, kHex, kBase64 };

struct PrefixRule {
  Needle prefix;
  std::string_view kind;
  Tail tail;
  std::size_t min_len;
  std::size_t max_len;      ///< 0 = unbounded
  bool span_tail_only;      ///< the prefix is a label (AccountKey=), not key material
};

constexpr PrefixRule kPrefixRules[] = {
    {"sk_live_", "stripe-key", Tail::kAlnum, 16, 0, false},
    {"rk_live_", "stripe-key", Tail::kAlnum, 16, 0, false},
    {"pk_live_", "stripe-key", Tail::kAlnum, 16, 0, false},
    {"sk_test_", "stripe-key", Tail::kAlnum, 16, 0, false},
    {"rk_test_", "stripe-key", Tail::kAlnum, 16, 0, false},
    {"whsec_", "stripe-webhook-secret", Tail::kAlnum, 24, 0, false},
    {"glpat-", "gitlab-token", Tail::kUrlSafe, 20, 0, false},
    {"glptt-", "gitlab-token", Tail::kUrlSafe, 20, 0, false},
    {"gldt-", "gitlab-token", Tail::kUrlSafe, 20, 0, false},
    {"glrt-", "gitlab-token", Tail::kUrlSafe, 20, 0, false},
    {"npm_", "npm-token", Tail::kAlnum, 36, 0, false},
    {"pypi-AgEIcHlwaS5vcmc", "pypi-token", Tail::kUrlSafe, 50, 0, false},
    {"hf_", "huggingface-token", Tail::kAlnum, 30, 0, false},
    {"dop_v1_", "digitalocean-token", Tail::kHex, 64, 64, false},
    {"doo_v1_", "digitalocean-token", Tail::kHex, 64, 64, false},
    {"dor_v1_", "digitalocean-token", Tail::kHex, 64, 64, false},
    {"shpat_", "shopify-token", Tail::kHex, 32, 32, false},
    {"shpss_", "shopify-token", Tail::kHex, 32, 32, false},
    {"shpca_", "shopify-token", Tail::kHex, 32, 32, false},
    {"shppa_", "shopify-token", Tail::kHex, 32, 32, false},
    {"sq0atp-", "square-token", Tail::kUrlSafe, 22, 0, false},
    {"sq0csp-", "square-token", Tail::kUrlSafe, 40, 0, false},
    {"dapi", "databricks-token", Tail::kHex, 32, 32, false},
    {"SK", "twilio-api-key", Tail::kHex, 32, 32, false},
    {"key-", "mailgun-key", Tail::kAlnum, 32, 32, false},
    {"GOCSPX-", "google-oauth-secret", Tail::kUrlSafe, 24, 0, false},
    {"AccountKey=", "azure-storage-key", Tail::kBase64, 40, 0, true},
    {"SharedAccessKey=", "azure-storage-key", Tail::kBase64, 40, 0, true},
    {"xapp-", "slack-token", Tail::kUrlSafe, 20, 0, false},
};

bool IsBase64Char(char c) { return IsAlnum(c) || c == '+' || c == '/' || c == '='; }

bool TailChar(Tail t, char c) {
  switch (t) {
    case Tail::kAlnum: return IsAlnum(c);
    case Tail::kUrlSafe: return IsUrlSafe(c);
    case Tail::kHex: return IsHex(c);
    case Tail::kBase64: return IsBase64Char(c);
  }
  return false;
}

void ScanPrefixRules(std::string_view text, const TextDigest& digest, Findings& out) {
  for (const PrefixRule& r : kPrefixRules) {
    ForEachAtWordStart(text, digest, r.prefix, [&](std::size_t pos) {
      const std::size_t tail = pos + r.prefix.text.size();
      std::size_t n = 0;
      while (tail + n < text.size() && TailChar(r.tail, text[tail + n])) ++n;
      if (n < r.min_len || (r.max_len != 0 && n != r.max_len)) return;
      // Fixed-size formats must end at a word boundary (not be a slice of a longer token).
      if (r.max_len != 0 && tail + n < text.size() && IsUrlSafe(text[tail + n])) return;
      bool digit = false;
      for (std::size_t i = tail; i < tail + n; ++i) digit |= IsDigit(text[i]);
      if (!digit) return;  // "key-managementsystemsforthewholecompany" is prose
      if (r.span_tail_only) {
        out.push_back({std::string(r.kind), tail, n});
      } else {
        out.push_back({std::string(r.kind), pos, r.prefix.text.size() + n});
      }
    });
  }
}

void ScanSendgrid(std::string_view text, const TextDigest& digest, Findings& out) {
  // SG.<22 base64url>.<43 base64url> (SendGrid API key format; gitleaks "sendgrid-api-token").
  static constexpr Needle kPrefix = "SG.";
  ForEachAtWordStart(text, digest, kPrefix, [&](std::size_t pos) {
    const std::size_t a = SpanWhile(text, pos + 3, IsUrlSafe);
    if (a < 16 || pos + 3 + a >= text.size() || text[pos + 3 + a] != '.') return;
    const std::size_t b = SpanWhile(text, pos + 4 + a, IsUrlSafe);
    if (b < 30) return;
    out.push_back({"sendgrid-key", pos, 4 + a + b});
  });
}

void ScanAzureClientSecret(std::string_view text, const TextDigest& digest, Findings& out) {
  // Entra ID client secrets: 3 chars, a digit, "Q~", then 31–34 chars of [A-Za-z0-9_~.-]
  // (gitleaks "azure-ad-client-secret").
  static constexpr Needle kMark = "Q~";
  if (!digest.MayContain(kMark)) return;
  const auto secret_char = [](char c) { return IsUrlSafe(c) || c == '~' || c == '.'; };
  for (std::size_t pos = text.find("Q~"); pos != std::string_view::npos;
       pos = text.find("Q~", pos + 1)) {
    if (pos < 4 || !IsDigit(text[pos - 1])) continue;
    const std::size_t start = pos - 4;
    if (!secret_char(text[start]) || !secret_char(text[start + 1]) ||
        !secret_char(text[start + 2]) || !AtWordStart(text, start)) {
      continue;
    }
    std::size_t n = 0;
    while (pos + 2 + n < text.size() && secret_char(text[pos + 2 + n])) ++n;
    if (n >= 31 && n <= 34) out.push_back({"azure-client-secret", start, 6 + n});
  }
}

void ScanGcpServiceAccount(std::string_view text, const TextDigest& digest, Findings& out) {
  // A service-account key file's "private_key_id": "<40 hex>" (the PEM itself is
  // "private-key").
  static constexpr Needle kKey = "private_key_id";
  if (!digest.MayContain(kKey)) return;
  for (std::size_t pos = text.find("private_key_id"); pos != std::string_view::npos;
       pos = text.find("private_key_id", pos + 1)) {
    std::size_t p = pos + 14;
    while (p < text.size() && (text[p] == '"' || text[p] == ' ' || text[p] == ':' ||
                               text[p] == '=' || text[p] == '\'')) {
      ++p;
    }
    const std::size_t n = SpanWhile(text, p, IsHex);
    if (n >= 32) out.push_back({"gcp-service-account-key", p, n});
  }
}

// Decodes standard or url-safe base64 (padding optional); nullopt when malformed.
std::optional<std::string> DecodeBase64(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v = -1;
    if (IsUpper(c)) v = c - 'A';
    else if (IsLower(c)) v = c - 'a' + 26;
    else if (IsDigit(c)) v = c - '0' + 52;
    else if (c == '+' || c == '-') v = 62;
    else if (c == '/' || c == '_') v = 63;
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

// Base64 of prose ("dGhlIHF1aWNr…" = "the quick…"): printable ASCII, several spaces,
// mostly letters. Random key material decodes to binary.
bool IsBase64OfProse(std::string_view tok) {
  const auto decoded = DecodeBase64(tok);
  if (!decoded || decoded->size() < 12) return false;
  std::size_t spaces = 0, letters = 0;
  for (unsigned char c : *decoded) {
    if (c < 0x20 || c > 0x7E) {
      if (c != '\n' && c != '\t') return false;
    }
    spaces += (c == ' ' || c == '\n');
    letters += IsUpper(static_cast<char>(c)) || IsLower(static_cast<char>(c));
  }
  return spaces >= 2 && (letters + spaces) * 100 >= decoded->size() * 85;
}

void ScanBasicAuth(std::string_view text, const TextDigest& digest, Findings& out) {
  // "Basic <base64(user:password)>" (RFC 7617).
  static constexpr Needle kScheme = "Basic ";
  if (!digest.MayContain(kScheme)) return;
  for (std::size_t pos = text.find("Basic "); pos != std::string_view::npos;
       pos = text.find("Basic ", pos + 1)) {
    const std::size_t start = pos + 6;
    const std::size_t n = SpanWhile(text, start, IsBase64Char);
    if (n < 8) continue;
    const auto decoded = DecodeBase64(text.substr(start, n));
    if (!decoded) continue;
    const std::size_t colon = decoded->find(':');
    if (colon == std::string::npos || colon == 0 || colon + 3 > decoded->size()) continue;
    out.push_back({"basic-auth", start, n});
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

void ScanAssignments(std::string_view text, const TextDigest& digest, Findings& out) {
  // key (case-insensitive) [quote] [spaces] (= | : | :=) [spaces] [quote] value
  static constexpr std::array<Needle, 12> kKeys = {
      "password", "passwd", "passphrase", "secret", "secret_key", "token", "api_key",
      "apikey", "api-key", "access_key", "private_key", "secret_access_key"};
  // Gates: some key must occur, and every assignment has '=' or ':' after its key.
  const auto may_occur = [&](const Needle& key) { return digest.MayContain(key); };
  if (std::none_of(kKeys.begin(), kKeys.end(), may_occur)) return;
  if (text.find('=') == std::string_view::npos && text.find(':') == std::string_view::npos) {
    return;
  }
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), Lower);
  for (const Needle& needle : kKeys) {
    if (!may_occur(needle)) continue;
    const std::string_view key = needle.text;
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
      if (IsTrivialValue(value)) continue;
      // The whole identifier the key word sits in names the rule when it is a known one.
      std::size_t id_start = pos;
      while (id_start > 0 && (IsAlnum(lower[id_start - 1]) || lower[id_start - 1] == '_')) {
        --id_start;
      }
      const std::string_view ident = std::string_view(lower).substr(id_start, pos + key.size() - id_start);
      const bool aws = ident.find("aws_secret") != std::string_view::npos ||
                       ident == "secret_access_key";
      out.push_back({aws ? "aws-secret-key" : "credential-assignment", p, value.size()});
    }
  }
}

bool IsWordChar(char c) { return IsAlnum(c) || c == '_' || c == '\'' || c == '-'; }

// "the DB password is hunter2hunter2 for staging": a password word, at most four words,
// a copula, then the value (kept only when it looks like a credential, not like prose).
void ScanPasswordProse(std::string_view text, const TextDigest& digest, Findings& out) {
  // Gate: every password word below contains "pw" or "pass".
  static constexpr Needle kPw = "pw", kPass = "pass";
  if (!digest.MayContain(kPw) && !digest.MayContain(kPass)) return;
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), Lower);
  // Words of the text with their offsets (ASCII words; other bytes separate).
  struct W {
    std::size_t pos, len;
  };
  std::vector<W> words;
  for (std::size_t i = 0; i < lower.size();) {
    if (!IsAlnum(lower[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < lower.size() && IsWordChar(lower[j])) ++j;
    words.push_back({i, j - i});
    i = j;
  }
  const auto word = [&](std::size_t k) { return std::string_view(lower).substr(words[k].pos, words[k].len); };
  static constexpr std::array<std::string_view, 8> kPasswordWords = {
      "password", "passwd", "passphrase", "passcode", "pwd", "pw", "passwords", "pass"};
  static constexpr std::array<std::string_view, 6> kCopulas = {"is", "was", "are", "be",
                                                               "becomes", "now"};
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (std::find(kPasswordWords.begin(), kPasswordWords.end(), word(k)) == kPasswordWords.end()) {
      continue;
    }
    // "pass" alone is a verb far more often than a noun: only "pass is"/"pass:".
    const std::size_t max_gap = word(k) == "pass" ? 0 : 4;
    for (std::size_t g = 0; g <= max_gap && k + 1 + g < words.size(); ++g) {
      const std::size_t c = k + 1 + g;
      // Text between the previous word and the copula must be plain spaces (one sentence).
      const std::size_t prev_end = words[c - 1].pos + words[c - 1].len;
      const std::string_view between = std::string_view(lower).substr(prev_end, words[c].pos - prev_end);
      if (between.find_first_not_of(" \t") != std::string_view::npos) break;
      std::size_t v = c + 1;
      const std::string_view w = word(c);
      bool copula = std::find(kCopulas.begin(), kCopulas.end(), w) != kCopulas.end();
      if ((w == "set" || w == "changed" || w == "reset") && v < words.size() && word(v) == "to") {
        copula = true;
        ++v;
      }
      if (!copula) continue;
      if (v < words.size() && (word(v) == "still" || word(v) == "now" || word(v) == "just")) ++v;
      if (v + 1 < words.size() && (word(v) == "set" || word(v) == "changed") && word(v + 1) == "to") {
        v += 2;
      }
      if (v >= words.size()) break;
      // The value runs from its first character to the next whitespace, in the original
      // text (symbols included), minus sentence punctuation at its end.
      std::size_t start = words[v].pos;
      const std::size_t gap_start = words[v - 1].pos + words[v - 1].len;
      // Opening quote or symbol right before the word belongs to the value ("is 'x1'").
      std::size_t q = start;
      while (q > gap_start && text[q - 1] != ' ' && text[q - 1] != '\t') --q;
      start = q;
      std::size_t end = start;
      while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n' &&
             text[end] != '\r') {
        ++end;
      }
      std::string_view value = text.substr(start, end - start);
      while (!value.empty() && (value.back() == '.' || value.back() == ',' || value.back() == ';' ||
                                value.back() == '!' || value.back() == '?' || value.back() == ')' ||
                                value.back() == '"' || value.back() == '\'' || value.back() == '`')) {
        value.remove_suffix(1);
      }
      while (!value.empty() && (value.front() == '"' || value.front() == '\'' || value.front() == '`' ||
                                value.front() == '(')) {
        value.remove_prefix(1);
        ++start;
      }
      if (value.size() < 6 || IsTrivialValue(value)) break;
      if (value.find('/') != std::string_view::npos || value.find("://") != std::string_view::npos) break;
      const bool digit = std::any_of(value.begin(), value.end(), IsDigit);
      const bool symbol = std::any_of(value.begin(), value.end(), [](char ch) {
        return !IsAlnum(ch) && ch != '-' && ch != '\'' && static_cast<unsigned char>(ch) < 0x80;
      });
      const bool letter = std::any_of(value.begin(), value.end(), [](char ch) { return IsUpper(ch) || IsLower(ch); });
      // "at least 12 characters", "is 2fa-protected": a digit-led word followed by letters
      // only is a quantity or an adjective; require letters and (digits or symbols) mixed.
      if (!((digit && letter) || symbol)) break;
      // "12-character", "2FA-protected": a quantity or an adjective, not a value.
      if (IsDigit(value.front())) {
        const std::size_t dash = value.find('-');
        if (dash != std::string_view::npos &&
            std::all_of(value.begin() + static_cast<std::ptrdiff_t>(dash), value.end(),
                        [](char ch) { return ch == '-' || IsUpper(ch) || IsLower(ch); })) {
          break;
        }
      }
      out.push_back({"password-in-prose", start, value.size()});
      break;
    }
  }
}

void ScanUrlCredentials(std::string_view text, const TextDigest& digest, Findings& out) {
  // scheme://user:password@host — the password part only.
  static constexpr Needle kSeparator = "://";
  if (!digest.MayContain(kSeparator)) return;
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
        password.front() == '{' || password == "***" || password == "xxx" ||
        password.rfind("[REDACTED:", 0) == 0) {  // already redacted: redaction is idempotent
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
  // Subresource-integrity digests (W3C SRI; npm lockfiles): sha256/384/512-<base64 digest>.
  for (const auto& [prefix, bytes] : {std::pair<std::string_view, std::size_t>{"sha256-", 32},
                                      {"sha384-", 48}, {"sha512-", 64}}) {
    if (tok.substr(0, prefix.size()) != prefix) continue;
    const auto digest = DecodeBase64(tok.substr(prefix.size()));
    if (digest && digest->size() == bytes) return true;
  }
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
// Word separators ('-', '_', '/', '.') end a run without being one, so kebab- and
// snake-case names and paths ("a-module-with-a-long-name-0/file-0") read as their words.
double MeanRunLength(std::string_view tok) {
  const auto cls = [](char c) { return IsLower(c) ? 0 : IsUpper(c) ? 1 : IsDigit(c) ? 2 : 3; };
  const auto separator = [](char c) { return c == '-' || c == '_' || c == '/' || c == '.'; };
  std::size_t runs = 0, chars = 0;
  for (std::size_t i = 0; i < tok.size(); ++i) {
    if (separator(tok[i])) continue;
    ++chars;
    if (i == 0 || separator(tok[i - 1])) {
      ++runs;
      continue;
    }
    const int prev = cls(tok[i - 1]), cur = cls(tok[i]);
    if (cur == prev) continue;
    if (prev == 1 && cur == 0) continue;  // "User", "HTTPServer": one word
    ++runs;
  }
  return runs == 0 ? 0.0 : static_cast<double>(chars) / static_cast<double>(runs);
}

void ScanEntropy(std::string_view text, const TextDigest& digest, Findings& out) {
  // detect-secrets / truffleHog style: long tokens from the base64(url) alphabet whose
  // Shannon entropy is >= 4.0 bits per character and which mix letters and digits.
  // Gate: a token is a slice of a run of IsEntropyChar characters and needs >= 32 of them.
  if (digest.LongestEntropyRun() < 32) return;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (!IsEntropyChar(text[pos])) {
      ++pos;
      continue;
    }
    // "NAME=value" is two tokens: '=' inside a token only pads base64 at its end.
    std::size_t n = 0;
    while (pos + n < text.size() && IsEntropyChar(text[pos + n])) {
      if (text[pos + n] == '=' && n > 0 && pos + n + 1 < text.size() &&
          IsAlnum(text[pos + n + 1])) {
        break;
      }
      ++n;
    }
    if (n == 0) n = 1;
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
    if (IsAllowlistedToken(tok) || IsBase64OfProse(tok)) continue;
    out.push_back({"high-entropy", off, tok.size()});
  }
}

// All findings, sorted by offset, overlaps resolved in favour of the earlier (then longer)
// span so redaction never double-replaces.
Findings AllFindings(std::string_view text) {
  const TextDigest digest(text);
  Findings found;
  ScanPrivateKey(text, digest, found);
  ScanAws(text, digest, found);
  ScanGithub(text, digest, found);
  ScanSlack(text, digest, found);
  ScanSkKeys(text, digest, found);
  ScanGoogle(text, digest, found);
  ScanJwt(text, digest, found);
  ScanPrefixRules(text, digest, found);
  ScanSendgrid(text, digest, found);
  ScanAzureClientSecret(text, digest, found);
  ScanGcpServiceAccount(text, digest, found);
  ScanBasicAuth(text, digest, found);
  ScanUrlCredentials(text, digest, found);
  ScanAssignments(text, digest, found);
  ScanPasswordProse(text, digest, found);
  ScanEntropy(text, digest, found);
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

std::string RedactSecrets(std::string_view text, RedactionCounts* counts) {
  const Findings found = AllFindings(text);
  if (found.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (const SecretFinding& f : found) {
    out.append(text.substr(pos, f.offset - pos));
    out += "[REDACTED:" + f.kind + "]";
    pos = f.offset + f.length;
    if (counts) ++(*counts)[f.kind];
  }
  out.append(text.substr(pos));
  return out;
}

namespace {

bool IsIdentifier(std::string_view key) {
  if (key.empty() || IsDigit(key.front())) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return IsAlnum(c) || c == '_'; });
}

std::string ChildPath(std::string_view base, std::string_view key) {
  std::string out(base);
  if (IsIdentifier(key)) {
    if (!out.empty()) out.push_back('.');
    out.append(key);
  } else {
    out += "[" + nlohmann::json(std::string(key)).dump(-1, ' ', false,
                                                       nlohmann::json::error_handler_t::replace) +
           "]";
  }
  return out;
}

// FindSecret through a per-thread memo of short strings found clean: the member names and
// enum values ("text", "kind", "fact") every item of a batch repeats cost a full scan each
// (~3,000 instructions, 2% of a batch write) and hash in ~50. FindSecret is a pure function
// of the string, and only clean answers are kept, so the memo never hides a finding.
std::optional<SecretFinding> FindSecretMemo(const std::string& s) {
  constexpr std::size_t kMaxLength = 32, kMaxKept = 1024;
  thread_local std::unordered_set<std::string> clean;
  if (s.size() > kMaxLength) return FindSecret(s);
  if (clean.count(s) > 0) return std::nullopt;
  std::optional<SecretFinding> f = FindSecret(s);
  if (!f) {
    if (clean.size() >= kMaxKept) clean.clear();
    clean.insert(s);
  }
  return f;
}

std::optional<JsonSecretFinding> FindIn(const nlohmann::json& v, const std::string& path) {
  if (v.is_string()) {
    if (auto f = FindSecretMemo(v.get_ref<const std::string&>())) return JsonSecretFinding{path, false, *f};
    return std::nullopt;
  }
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (auto f = FindIn(v[i], path + "[" + std::to_string(i) + "]")) return f;
    }
    return std::nullopt;
  }
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (auto f = FindSecretMemo(it.key())) return JsonSecretFinding{path, true, *f};
      if (auto f = FindIn(it.value(), ChildPath(path, it.key()))) return f;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<JsonSecretFinding> FindSecretInJson(const nlohmann::json& value,
                                                  std::string_view base_path) {
  return FindIn(value, std::string(base_path));
}

std::size_t RedactSecretsInJson(nlohmann::json& value, RedactionCounts* counts) {
  RedactionCounts local;
  RedactionCounts& c = counts ? *counts : local;
  std::size_t before = 0;
  for (const auto& [k, n] : c) before += n;
  const auto walk = [&c](auto& self, nlohmann::json& v) -> void {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (FindSecret(s)) v = RedactSecrets(s, &c);
    } else if (v.is_array()) {
      for (auto& e : v) self(self, e);
    } else if (v.is_object()) {
      bool key_secret = false;
      for (auto it = v.begin(); it != v.end() && !key_secret; ++it) {
        key_secret = FindSecret(it.key()).has_value();
      }
      if (key_secret) {
        nlohmann::json rebuilt = nlohmann::json::object();
        for (auto it = v.begin(); it != v.end(); ++it) {
          const std::string key = RedactSecrets(it.key(), &c);
          if (!rebuilt.contains(key)) rebuilt[key] = std::move(it.value());
        }
        v = std::move(rebuilt);
      }
      for (auto it = v.begin(); it != v.end(); ++it) self(self, *it);
    }
  };
  walk(walk, value);
  std::size_t after = 0;
  for (const auto& [k, n] : c) after += n;
  return after - before;
}

std::string DescribeSecret(const JsonSecretFinding& found) {
  const std::string where = found.path.empty() ? std::string("the value") : "`" + found.path + "`";
  return (found.in_key ? (found.path.empty() ? std::string("a key") : "a key of " + where)
                       : where) +
         " contains what looks like a secret (" + found.finding.kind + " at character " +
         std::to_string(found.finding.offset) + ")";
}

std::string DescribeRedactions(const RedactionCounts& counts) {
  std::size_t total = 0;
  std::string parts;
  for (const auto& [kind, n] : counts) {
    if (n == 0) continue;
    total += n;
    if (!parts.empty()) parts += ", ";
    parts += std::to_string(n) + " " + kind;
  }
  if (total == 0) return {};
  return std::to_string(total) + " redacted (" + parts + ")";
}

}  // namespace kioku::sdk
