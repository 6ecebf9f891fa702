#pragma once
/// @file secrets.hpp
/// Secret screening before anything is stored (ARCHITECTURE.md "Security defaults"):
/// known credential patterns plus a Shannon-entropy rule for long random-looking tokens.

#include <optional>
#include <string>
#include <string_view>

namespace kioku::sdk {

struct SecretFinding {
  /// One of "aws-access-key", "github-token", "slack-token", "openai-key", "anthropic-key",
  /// "google-api-key", "jwt", "private-key", "url-credentials" (the password of
  /// scheme://user:pass@host), "credential-assignment" (the value only), "high-entropy".
  std::string kind;
  std::size_t offset = 0;  ///< Byte offset of the match in the text.
  std::size_t length = 0;
};

/// Returns the first secret-looking span in `text`, or nullopt.
/// Patterns: AWS access key ids (AKIA…), GitHub tokens (ghp_/gho_/ghu_/ghs_/ghr_,
/// github_pat_), Slack tokens (xox[abprs]-), OpenAI/Anthropic-style keys (sk-…, sk-ant-…),
/// Google API keys (AIza…), JWTs (eyJ….eyJ….…), PEM private key blocks, and
/// `password=`/`secret:`/`token=`/`api_key=` assignments with a non-trivial value (>= 6
/// chars, not a placeholder/reference like `$VAR`, `<...>`, `changeme`, `getenv(...)`, and
/// either mixing two character classes or >= 16 chars), URL userinfo passwords.
/// Entropy rule: a token of >= 32 chars from [A-Za-z0-9+/_=-] with Shannon entropy
/// >= 4.0 bits/char and both letters and digits (cf. truffleHog / detect-secrets defaults),
/// that does not read like an identifier: the mean length of its same-class character runs
/// (lower/upper/digit/other, a capitalised word counting as one run) must be < 3, which
/// keeps `getUserProfileByAccountIdentifier2024` out and random base64 in.
/// Allowlisted: UUIDs, hex git SHAs (40/64 hex chars), ULIDs, and paths/URLs without
/// credentials.
/// Linear-time hand-written scanners (no std::regex); overlapping findings keep the earliest.
std::optional<SecretFinding> FindSecret(std::string_view text);

/// Copy of `text` with every finding replaced by "[REDACTED:<kind>]".
std::string RedactSecrets(std::string_view text);

}  // namespace kioku::sdk
