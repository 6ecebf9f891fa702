// Corpus test for secret screening: >= 100 secrets that must be found (with the named rule
// when one exists) and >= 100 ordinary strings that must not be. Prints the false-negative
// and false-positive counts (issue 9 reports them).
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kioku/sdk/secrets.hpp"

namespace kioku::sdk {
namespace {

// Deterministic generator (mt19937 output is specified by the standard; no distributions).
class Gen {
 public:
  explicit Gen(std::uint32_t seed) : rng_(seed) {}
  std::string From(std::string_view alphabet, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(alphabet[rng_() % alphabet.size()]);
    return out;
  }
  // Random but with at least one digit, one upper and one lower letter (real keys do).
  std::string Mixed(std::string_view alphabet, std::size_t n) {
    for (;;) {
      std::string s = From(alphabet, n);
      bool d = false, u = false, l = false;
      for (char c : s) {
        d |= c >= '0' && c <= '9';
        u |= c >= 'A' && c <= 'Z';
        l |= c >= 'a' && c <= 'z';
      }
      const bool needs_case = alphabet.find('A') != std::string_view::npos &&
                              alphabet.find('a') != std::string_view::npos;
      if (d && (!needs_case || (u && l))) return s;
    }
  }

 private:
  std::mt19937 rng_;
};

constexpr std::string_view kAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kHex = "0123456789abcdef";
constexpr std::string_view kUpperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

std::string Base64(std::string_view in) {
  static constexpr char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8) |
                            std::uint8_t(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out.push_back(kTable[(v >> s) & 63]);
  }
  if (i + 1 == in.size()) {
    const std::uint32_t v = std::uint8_t(in[i]) << 16;
    out += {kTable[(v >> 18) & 63], kTable[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const std::uint32_t v = (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8);
    out += {kTable[(v >> 18) & 63], kTable[(v >> 12) & 63], kTable[(v >> 6) & 63], '='};
  }
  return out;
}

struct Positive {
  std::string text;
  std::string kind;  // expected rule
};

std::vector<Positive> Positives() {
  Gen g(20261201);
  std::vector<Positive> p;
  for (int i = 0; i < 4; ++i) {
    p.push_back({"key id AKIA" + g.From(kUpperDigits, 16) + " in prod", "aws-access-key"});
    p.push_back({"export AWS_SECRET_ACCESS_KEY=" + g.Mixed(kB64, 40), "aws-secret-key"});
    p.push_back({"use ghp_" + g.Mixed(kAlnum, 36) + " for CI", "github-token"});
    p.push_back({"token github_pat_11" + g.Mixed(kAlnum, 20) + "_" + g.Mixed(kAlnum, 59),
                 "github-token"});
    p.push_back({"GITLAB glpat-" + g.Mixed(kUrl, 20), "gitlab-token"});
    p.push_back({"bot xoxb-" + g.From("0123456789", 12) + "-" + g.From("0123456789", 13) + "-" +
                     g.Mixed(kAlnum, 24),
                 "slack-token"});
    p.push_back({"openai sk-proj-" + g.Mixed(kAlnum, 48), "openai-key"});
    p.push_back({"claude sk-ant-api03-" + g.Mixed(kUrl, 93) + "AA", "anthropic-key"});
    p.push_back({"maps AIza" + g.Mixed(kUrl, 35), "google-api-key"});
    p.push_back({"client GOCSPX-" + g.Mixed(kUrl, 28), "google-oauth-secret"});
    p.push_back({R"({"type": "service_account", "private_key_id": ")" + g.From(kHex, 40) + "\"}",
                 "gcp-service-account-key"});
    p.push_back({"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" +
                     g.Mixed(kB64, 86) + "==;EndpointSuffix=core.windows.net",
                 "azure-storage-key"});
    p.push_back({"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;"
                 "SharedAccessKey=" + g.Mixed(kB64, 43) + "=",
                 "azure-storage-key"});
    p.push_back({"AZURE_CLIENT_SECRET " + g.Mixed(kAlnum, 3) + "8Q~" + g.Mixed(kUrl, 34),
                 "azure-client-secret"});
    p.push_back({"stripe sk_live_" + g.Mixed(kAlnum, 24), "stripe-key"});
    p.push_back({"restricted rk_live_" + g.Mixed(kAlnum, 24), "stripe-key"});
    p.push_back({"publishable pk_live_" + g.Mixed(kAlnum, 24), "stripe-key"});
    p.push_back({"webhook whsec_" + g.Mixed(kAlnum, 32), "stripe-webhook-secret"});
    p.push_back({"twilio SK" + g.Mixed(kHex, 32), "twilio-api-key"});
    p.push_back({"sendgrid SG." + g.Mixed(kUrl, 22) + "." + g.Mixed(kUrl, 43), "sendgrid-key"});
    p.push_back({"mailgun key-" + g.Mixed(kHex, 32), "mailgun-key"});
    p.push_back({"//registry.npmjs.org/:_authToken npm_" + g.Mixed(kAlnum, 36), "npm-token"});
    p.push_back({"pypi-AgEIcHlwaS5vcmc" + g.Mixed(kUrl, 70), "pypi-token"});
    p.push_back({"HF_TOKEN hf_" + g.Mixed(kAlnum, 34), "huggingface-token"});
    p.push_back({"doctl dop_v1_" + g.Mixed(kHex, 64), "digitalocean-token"});
    p.push_back({"shopify shpat_" + g.Mixed(kHex, 32), "shopify-token"});
    p.push_back({"square sq0atp-" + g.Mixed(kUrl, 22), "square-token"});
    p.push_back({"databricks dapi" + g.Mixed(kHex, 32), "databricks-token"});
    p.push_back({"Authorization: Basic " + Base64("deploy:" + g.Mixed(kAlnum, 12)),
                 "basic-auth"});
    p.push_back({"psql postgres://app:" + g.Mixed(kAlnum, 14) + "@db.internal:5432/app",
                 "url-credentials"});
  }
  // Passwords stated in plain words.
  for (const char* s : {
           "DB password is hunter2hunter2 for staging",
           "the staging database password is Tr0ub4dor&3",
           "Password for the admin user is s3cr3t-admin!",
           "our wifi passphrase is Correct-Horse-42",
           "FYI the passcode was 8812-ab77",
           "the root pwd is r00tAccess99",
           "prod password changed to Winter2026!",
           "the password for redis is now kZ9#qq81",
           "pw is letmein123 on the test box",
           "mysql password was set to 'Sup3rS3cret'",
       }) {
    p.push_back({s, "password-in-prose"});
  }
  // Assignments and PEM / JWT / entropy.
  p.push_back({"password=hunter2hunter2", "credential-assignment"});
  p.push_back({"api_key: \"abc123def456ghi\"", "credential-assignment"});
  p.push_back({"client_secret = Zq9-x8Lm-77", "credential-assignment"});
  p.push_back({"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----",
               "private-key"});
  p.push_back({"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
               "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
               "jwt"});
  for (int i = 0; i < 5; ++i) p.push_back({"blob " + g.Mixed(kB64, 40), "high-entropy"});
  return p;
}

std::vector<std::string> Negatives() {
  Gen g(77);
  std::vector<std::string> n;
  for (int i = 0; i < 15; ++i) {
    n.push_back("request " + g.From(kHex, 8) + "-" + g.From(kHex, 4) + "-4" + g.From(kHex, 3) +
                "-a" + g.From(kHex, 3) + "-" + g.From(kHex, 12) + " failed");
    n.push_back("commit " + g.From(kHex, 40) + " fixed the race");
  }
  for (int i = 0; i < 8; ++i) {
    n.push_back("sha256 " + g.From(kHex, 64));
    n.push_back("memory 01J" + g.From("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23));
  }
  for (const char* phrase : {
           "the quick brown fox jumps over the lazy dog",
           "remember to run the migrations before the release",
           "We decided to use pnpm instead of npm for the workspace",
           "Please review the pull request when you have a moment",
           "This is a test of the emergency broadcast system",
           "deploy the api service to the staging cluster first",
           "Hello world, this is kioku speaking from the memory layer",
           "password reset emails go out through the notification queue",
       }) {
    n.push_back("encoded " + Base64(phrase));
  }
  for (const char* s : {
           // paths and URLs without credentials
           "/home/user/projects/kioku2/build/sdk-asan/lib64/x86_64-linux-gnu/libkioku.so",
           "src/components/settings/PasswordResetForm.tsx",
           "C:\\Users\\alex\\AppData\\Roaming\\npm\\node_modules\\typescript\\lib\\tsc.js",
           "~/.config/kioku/kioku.yaml",
           "https://github.com/kioku-dev/kioku/blob/4ae9d76/sdk/src/secrets.cpp#L120",
           "https://example.com/api/v2/items?id=42&sort=desc#frag",
           "postgres://db.internal:5432/app?sslmode=require",
           "https://user@host.example.com/path",
           "redis://localhost:6379/0",
           "https://docs.stripe.com/keys#obtain-api-keys",
           // identifiers
           "getUserProfileByAccountIdentifier2024",
           "test_ReciprocalRankFusion_handles_ties_2",
           "FtsMatchTest_HostileQueriesFindTheExpectedRows1",
           "kioku-sdk-test-12345678901234567890",
           "task-management-system-2024-refactor-plan-v2",
           "sk-learn-pipeline-preprocessing-step",
           "risk_level_threshold_for_alerts",
           "disk_live_migration_enabled",
           "SKIP_PREFLIGHT_CHECK",
           "npm_config_registry",
           "hf_hub_download",
           "key-value-store-for-session-data",
           "whsec_ prefix marks Stripe webhook secrets",
           "AccountKey=<your-account-key>",
           "SharedAccessKey=${SB_KEY}",
           "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
           "version 1.4.0-rc.2+build.20261201",
           "2026-12-01T15:33:27.123Z",
           // prose mentioning passwords and tokens
           "We decided to use pnpm instead of npm because the workspace protocol is simpler.",
           "The password is required on every login.",
           "the password is stored in Vault, not in the repo",
           "Password is at least 12 characters and must contain a digit.",
           "the DB password is in 1Password under 'staging db'",
           "the admin password is too short for the new policy",
           "The token is expired; refresh it with kioku login.",
           "the API token is sent in the Authorization header",
           "The password field is 2FA-protected.",
           "Reset the password if the user forgets it.",
           "password hashing uses argon2id with default parameters",
           "Set the password via the PGPASSWORD environment variable.",
           "the password is $DB_PASSWORD from the environment",
           "the secret is out: we ship on Friday",
           "token: expires hourly",
           "max_tokens: 32",
           "password: ${DB_PASSWORD}",
           "password = os.getenv(\"DB_PASSWORD\")",
           "api_key: process.env.API_KEY",
           "the password is the same as the one for staging",
           "Passwords are rotated every 90 days by the ops team.",
           "pass the --verbose flag to see every query",
           "we pass is_admin=true in tests only",
           "the passphrase is whatever you chose at setup",
           "Use Basic authentication only over TLS.",
           "Basic usage: kioku serve --http 127.0.0.1:8080",
           "pk_test is what the docs call the publishable key",
           "the stripe key is in the CI secret STRIPE_KEY",
           "Add SKU ABCDEF1234 to the catalogue",
           "password changed to meet the policy yesterday",
       }) {
    n.push_back(s);
  }
  return n;
}

TEST(SecretCorpus, FindsEveryPositiveAndNoNegative) {
  const auto positives = Positives();
  const auto negatives = Negatives();
  ASSERT_GE(positives.size(), 100u);
  ASSERT_GE(negatives.size(), 100u);
  std::size_t false_negatives = 0, wrong_rule = 0, false_positives = 0;
  for (const auto& p : positives) {
    const auto f = FindSecret(p.text);
    if (!f) {
      ++false_negatives;
      ADD_FAILURE() << "missed (" << p.kind << "): " << p.text;
    } else if (f->kind != p.kind) {
      ++wrong_rule;
      ADD_FAILURE() << "found as " << f->kind << ", expected " << p.kind << ": " << p.text;
    }
    // Redaction removes every finding and keeps no part of the secret findable.
    EXPECT_FALSE(FindSecret(RedactSecrets(p.text))) << p.text;
  }
  for (const auto& n : negatives) {
    if (const auto f = FindSecret(n)) {
      ++false_positives;
      ADD_FAILURE() << "false positive (" << f->kind << "): " << n;
    }
  }
  std::cout << "secret corpus: " << positives.size() << " positives, " << negatives.size()
            << " negatives; false negatives " << false_negatives << ", wrong rule "
            << wrong_rule << ", false positives " << false_positives << "\n";
}

TEST(FindSecretInJson, ReportsThePathNeverTheSecret) {
  const std::string key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
  nlohmann::json args = {{"text", "fine"},
                         {"tags", {"ok", "also-ok", key}},
                         {"anchor", {{"path", "src/a.ts"}}}};
  auto f = FindSecretInJson(args);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->path, "tags[2]");
  EXPECT_FALSE(f->in_key);
  EXPECT_EQ(f->finding.kind, "stripe-key");
  const std::string msg = DescribeSecret(*f);
  EXPECT_EQ(msg, "`tags[2]` contains what looks like a secret (stripe-key at character 0)");
  EXPECT_EQ(msg.find(key), std::string::npos);

  nlohmann::json nested = {{"records", {{{"tool", "x"}}, {{"model", "m"}, {"error_class", key}}}}};
  f = FindSecretInJson(nested);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->path, "records[1].error_class");

  nlohmann::json in_key = {{"meta", {{key, 1}}}};
  f = FindSecretInJson(in_key);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->in_key);
  EXPECT_EQ(f->path, "meta");
  EXPECT_EQ(DescribeSecret(*f).find(key), std::string::npos);

  nlohmann::json odd = {{"a b", "password=hunter2hunter2"}};
  f = FindSecretInJson(odd, "args");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->path, "args[\"a b\"]");
  EXPECT_FALSE(FindSecretInJson(nlohmann::json{{"n", 1}, {"s", "plain"}, {"z", nullptr}}));
}

// Short clean strings are memoized per thread (secrets.cpp FindSecretMemo); a short secret
// is still found however often it and the clean strings around it repeat.
TEST(FindSecretInJson, RepeatedShortStringsAreScreenedEveryTime) {
  const std::string key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";  // 32 bytes: within the memo's length
  for (int round = 0; round < 3; ++round) {
    const nlohmann::json batch = {{{"text", "fine"}, {"kind", "fact"}}, {{"text", key}, {"kind", "fact"}}};
    auto f = FindSecretInJson(batch);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->path, "[1].text");
    f = FindSecretInJson(nlohmann::json{{key, "fact"}});
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->in_key);
  }
  // More clean strings than the memo keeps: it starts over and answers the same.
  for (int i = 0; i < 3000; ++i) EXPECT_FALSE(FindSecretInJson(nlohmann::json{{"k", "plain " + std::to_string(i)}}));
  EXPECT_TRUE(FindSecretInJson(nlohmann::json{{"k", key}}));
}

TEST(RedactSecretsInJson, RedactsValuesAndKeysAndCounts) {
  nlohmann::json v = {{"cmd", "psql postgres://app:Zk81mmQ2xy@db/app"},
                      {"env", {{"AWS_SECRET_ACCESS_KEY=q8Zr3kLm9PxT2vWn7YbC4dHj6FsA1gEu5RtK0oQi", "x"}}},
                      {"list", {"ghp_1234567890abcdefghijABCDEFGHIJ123456", 3}}};
  RedactionCounts counts;
  EXPECT_EQ(RedactSecretsInJson(v, &counts), 3u);
  EXPECT_FALSE(FindSecretInJson(v));
  EXPECT_EQ(counts["url-credentials"], 1u);
  EXPECT_EQ(counts["github-token"], 1u);
  EXPECT_EQ(counts["aws-secret-key"], 1u);
  EXPECT_EQ(v["list"][1], 3);
  EXPECT_EQ(DescribeRedactions(counts),
            "3 redacted (1 aws-secret-key, 1 github-token, 1 url-credentials)");
  EXPECT_EQ(DescribeRedactions({}), "");
}

}  // namespace
}  // namespace kioku::sdk
