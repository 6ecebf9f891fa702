#pragma once
/// @file secrets.hpp
/// Secret screening before anything is stored (ARCHITECTURE.md "Security defaults"):
/// named credential formats, credential assignments, passwords stated in plain words, and a
/// Shannon-entropy rule for long random-looking tokens, with an allowlist for ids.
///
/// One mechanism for every layer: a tool that stores what a caller sent screens the whole
/// argument object with FindSecretInJson (every string value and every object key, at any
/// depth) and refuses with DescribeSecret; a pipeline that stores what a file or transcript
/// holds (ingest) redacts instead, with RedactSecrets / RedactSecretsInJson, and reports the
/// per-kind counts. Neither the refusal nor the counts ever contain the secret.
///
/// Thread-safety: every function is pure (no shared state); call from any thread.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace kioku::sdk {

/// One secret-looking span of a string.
struct SecretFinding {
  /// The rule that matched (stable names, used in refusals and redaction counts):
  ///   named formats: "aws-access-key", "aws-secret-key" (an AWS_SECRET_ACCESS_KEY
  ///   assignment's value), "github-token", "gitlab-token", "slack-token", "openai-key",
  ///   "anthropic-key", "google-api-key", "google-oauth-secret" (GOCSPX-),
  ///   "gcp-service-account-key" (a service-account JSON's private_key_id),
  ///   "azure-storage-key" (AccountKey= / SharedAccessKey= of a connection string),
  ///   "azure-client-secret" (Entra ID "…8Q~…" client secrets), "stripe-key"
  ///   (sk_/rk_/pk_ live/test), "stripe-webhook-secret" (whsec_), "twilio-api-key" (SK + 32
  ///   hex), "sendgrid-key" (SG.x.y), "mailgun-key" (key- + 32), "npm-token" (npm_),
  ///   "pypi-token", "huggingface-token" (hf_), "digitalocean-token" (dop_v1_/doo_v1_/
  ///   dor_v1_), "shopify-token" (shpat_/shpss_/shpca_/shppa_), "square-token"
  ///   (sq0atp-/sq0csp-), "databricks-token" (dapi + 32 hex), "basic-auth" (an HTTP
  ///   `Basic` credential whose base64 decodes to user:password), "jwt", "private-key"
  ///   (PEM block), "url-credentials" (the password of scheme://user:pass@host);
  ///   generic: "credential-assignment" (`password=…`, `token: …`; the value only),
  ///   "password-in-prose" ("the DB password is hunter2hunter2"; the value only),
  ///   "high-entropy".
  std::string kind;
  std::size_t offset = 0;  ///< Byte offset of the match in the text.
  std::size_t length = 0;  ///< Byte length of the match.
};

/// Returns the first secret-looking span in `text`, or nullopt.
///
/// Named formats match only at a word start (so "task-…" never matches "sk-") and need the
/// documented tail length and alphabet (sources: GitHub "About authentication" token
/// formats, AWS IAM unique identifiers, Stripe "API keys", GitLab "Token overview", npm
/// "About access tokens", Hugging Face "User access tokens", DigitalOcean "API tokens",
/// Twilio "API keys", RFC 7519 (JWT), RFC 7468 (PEM), RFC 7617 (Basic), and the
/// gitleaks/detect-secrets rule sets for the rest).
///
/// Assignments: `password=`/`secret:`/`token=`/`api_key=`/… with a non-trivial value
/// (>= 6 chars, not a placeholder or reference like `$VAR`, `<...>`, `changeme`,
/// `getenv(...)`, and either mixing two character classes or >= 16 chars).
///
/// Plain words: a password word (password, passwd, passphrase, passcode, pwd, pw) followed
/// within four words by a copula ("is", "was", "=", "set to", "changed to", …) and a value
/// that has a digit or a symbol, is >= 6 characters, is no path or URL and no placeholder.
/// "The password is required" and "the password is stored in Vault" stay out.
///
/// Entropy rule: a token of >= 32 chars from [A-Za-z0-9+/_=-] with Shannon entropy
/// >= 4.0 bits/char and both letters and digits (cf. truffleHog / detect-secrets defaults),
/// that does not read like an identifier: the mean length of its same-class character runs
/// (lower/upper/digit/other, a capitalised word counting as one run) must be < 3, which
/// keeps `getUserProfileByAccountIdentifier2024` out and random base64 in.
/// Allowlisted: UUIDs, hex git SHAs and digests, ULIDs, paths/URLs without credentials,
/// and base64 that decodes to prose (printable ASCII with spaces, mostly letters).
///
/// Linear-time hand-written scanners (no std::regex); overlapping findings keep the earliest
/// (then the longest).
std::optional<SecretFinding> FindSecret(std::string_view text);

/// Number of redactions per SecretFinding::kind.
using RedactionCounts = std::map<std::string, std::size_t>;

/// Copy of `text` with every finding replaced by "[REDACTED:<kind>]". When `counts` is
/// given, adds one per replaced finding under its kind.
std::string RedactSecrets(std::string_view text, RedactionCounts* counts = nullptr);

/// Where in a JSON value a secret was found.
struct JsonSecretFinding {
  /// Path of the string in the value, JavaScript style: "" for the root itself,
  /// "subject", "anchor.path", "tags[2]", "records[0].error", `meta["a b"]` for keys that
  /// are not identifiers. When `in_key` is set the path names the object whose key holds
  /// the secret (the key itself is never written into a path).
  std::string path;
  bool in_key = false;      ///< The secret is in an object key, not in a string value.
  SecretFinding finding;    ///< Offset/length are within that one string.
};

/// Screens every string value and every object key of `value`, at any depth, in document
/// order (keys before their values). Returns the first finding or nullopt. Numbers,
/// booleans and null are not screened. `base_path` prefixes every reported path (pass the
/// argument name when screening one argument: FindSecretInJson(args["tags"], "tags")).
/// Recursion is bounded by the depth of `value` (already bounded by the request parser).
std::optional<JsonSecretFinding> FindSecretInJson(const nlohmann::json& value,
                                                  std::string_view base_path = {});

/// Replaces, in place, every finding in every string value and every object key of `value`
/// by "[REDACTED:<kind>]" (keys that collide after redaction keep the first value).
/// Adds to `counts` when given. Returns the number of redactions made.
std::size_t RedactSecretsInJson(nlohmann::json& value, RedactionCounts* counts = nullptr);

/// A refusal sentence that says what was found and where, never the secret, e.g.
/// "`tags[2]` contains what looks like a secret (stripe-key at character 4)" or
/// "a key of `meta` contains what looks like a secret (jwt at character 0)". The caller
/// appends what happens next ("nothing was stored; …").
std::string DescribeSecret(const JsonSecretFinding& found);

/// Formats redaction counts for an answer: "3 redacted (2 aws-secret-key, 1 url-credentials)",
/// or "" when nothing was redacted.
std::string DescribeRedactions(const RedactionCounts& counts);

}  // namespace kioku::sdk
