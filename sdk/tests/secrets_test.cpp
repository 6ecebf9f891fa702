#include "kioku/sdk/secrets.hpp"

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

// Fake credentials shaped like the real ones (AWS's and jwt.io's documented examples).
constexpr const char* kAws = "AKIAIOSFODNN7EXAMPLE";
constexpr const char* kGithub = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
constexpr const char* kGithubPat = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz";
constexpr const char* kSlack = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
constexpr const char* kOpenAi = "sk-proj-AbCdEf1234567890GhIjKlMnOp";
constexpr const char* kAnthropic = "sk-ant-api03-AbCdEfGh1234567890IjKlMnOp";
constexpr const char* kGoogle = "AIzaSyA1234567890abcdefghijklmnopqrstuv";
constexpr const char* kJwt =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
    "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
constexpr const char* kRandom = "q8Zr3kLm9PxT2vWn7YbC4dHj6FsA1gEu5RtK0oQi";

void ExpectFinding(const std::string& text, const std::string& kind, const std::string& span) {
  const auto f = FindSecret(text);
  ASSERT_TRUE(f.has_value()) << text;
  EXPECT_EQ(f->kind, kind) << text;
  EXPECT_EQ(text.substr(f->offset, f->length), span) << text;
}

TEST(FindSecret, DetectsKnownTokenFormats) {
  ExpectFinding(std::string("key ") + kAws + " here", "aws-access-key", kAws);
  ExpectFinding(std::string("use ") + kGithub, "github-token", kGithub);
  ExpectFinding(std::string("pat: ") + kGithubPat, "github-token", kGithubPat);
  ExpectFinding(std::string("slack ") + kSlack + ".", "slack-token", kSlack);
  ExpectFinding(std::string("OPENAI ") + kOpenAi, "openai-key", kOpenAi);
  ExpectFinding(std::string("claude ") + kAnthropic, "anthropic-key", kAnthropic);
  ExpectFinding(std::string("maps ") + kGoogle, "google-api-key", kGoogle);
  ExpectFinding(std::string("Authorization: Bearer ") + kJwt, "jwt", kJwt);
}

TEST(FindSecret, DetectsPemPrivateKeyBlocks) {
  const std::string pem =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\nabc\n-----END RSA PRIVATE KEY-----";
  ExpectFinding("before\n" + pem + "\nafter", "private-key", pem);
  const std::string truncated = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk";
  ExpectFinding("x " + truncated, "private-key", truncated);
  EXPECT_FALSE(FindSecret("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"));
  EXPECT_FALSE(FindSecret("-----BEGIN PUBLIC KEY-----"));
}

TEST(FindSecret, DetectsCredentialAssignmentsByValue) {
  ExpectFinding("password=hunter2hunter2", "credential-assignment", "hunter2hunter2");
  ExpectFinding("DB_PASSWORD: 'Tr0ub4dor&3'", "credential-assignment", "Tr0ub4dor&3");
  ExpectFinding("api_key = \"abc123def456\"", "credential-assignment", "abc123def456");
  ExpectFinding("client_secret:=Zq9-x8Lm", "credential-assignment", "Zq9-x8Lm");
  ExpectFinding("secret: correcthorsebatterystaple", "credential-assignment",
                "correcthorsebatterystaple");
  ExpectFinding("\"token\": \"a1b2c3d4e5\"", "credential-assignment", "a1b2c3d4e5");
}

TEST(FindSecret, IgnoresPlaceholderAndProseAssignments) {
  for (const char* text :
       {"password: ${DB_PASSWORD}", "token: <your-token>", "password=changeme123",
        "token: expires hourly", "max_tokens: 32", "the secret: is out", "if token == expected",
        "password = os.getenv(\"DB_PASSWORD\")", "api_key: process.env.API_KEY",
        "password: ********", "secret=", "tokenizer: unicode61", "password: null"}) {
    EXPECT_FALSE(FindSecret(text).has_value()) << text;
  }
}

TEST(FindSecret, DetectsUrlCredentials) {
  ExpectFinding("postgres://admin:s3cr3tP4ss@db.example.com:5432/app", "url-credentials",
                "s3cr3tP4ss");
  EXPECT_FALSE(FindSecret("https://user@host.example.com/path"));
  EXPECT_FALSE(FindSecret("https://example.com/api/v2/items?id=42&sort=desc#frag"));
}

TEST(FindSecret, EntropyRuleFlagsRandomTokens) {
  ExpectFinding(std::string("aws_secret_access_key ") + kRandom, "high-entropy", kRandom);
  // Short random text (< 32 chars) and letters-only text stay below the rule.
  EXPECT_FALSE(FindSecret("q8Zr3kLm9PxT2vWn7YbC4dHj"));
  EXPECT_FALSE(FindSecret("qZrkLmPxTvWnYbCdHjFsAgEuRtKoQiMnBv"));
}

TEST(FindSecret, AllowlistsIdsPathsAndProse) {
  for (const char* text : {
           "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
           "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
           "id 123e4567-e89b-12d3-a456-426614174000",
           "memory 01ARZ3NDEKTSV4RRFFQ69G5FAV and 01BX5ZZKBKACTAV9WEVGEMMVRZ",
           "/home/user/projects/kioku2/build/sdk-asan/lib64/x86_64-linux-gnu/libkioku.so",
           "https://github.com/kioku-dev/kioku/blob/4ae9d76/sdk/src/secrets.cpp#L120",
           "We decided to use pnpm instead of npm because the workspace protocol is simpler.",
           "getUserProfileByAccountIdentifier2024 test_ReciprocalRankFusion_handles_ties_2",
           "FtsMatchTest_HostileQueriesFindTheExpectedRows1 kioku-sdk-test-12345678901234567890",
           "task-management-system-2024-refactor-plan-v2",
           // Kebab-case folders longer than a path segment's bound (a file_claim refusal).
           "src/a-module-with-a-rather-long-name-0/file-0.cpp",
           "packages/feature-flag-evaluation-service-v2/src/rollout_percentage_9.ts",
           "integrity sha512-AbCdEf0123456789abcdef0123456789abcdef0123456789",
       }) {
    const auto f = FindSecret(text);
    EXPECT_FALSE(f.has_value()) << text << " → " << (f ? f->kind : "");
  }
}

// Each scan runs only when a one-pass digest of the text says its trigger may occur. A gate
// must never hide a finding: one sample per scan (upper case where the scan ignores case),
// found wherever it sits — alone, at the start, at the end, and right after UTF-8.
TEST(FindSecret, GatesNeverHideAFinding) {
  struct Sample {
    std::string text, kind, span;
  };
  const std::string pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIK\n-----END EC PRIVATE KEY-----";
  const std::string hex40 = "8b0e7153bf7c3706d85c524e440066559a6656c9";
  const std::vector<Sample> samples = {
      {pem, "private-key", pem},
      {kAws, "aws-access-key", kAws},
      {kGithub, "github-token", kGithub},
      {kGithubPat, "github-token", kGithubPat},
      {kSlack, "slack-token", kSlack},
      {kOpenAi, "openai-key", kOpenAi},
      {kAnthropic, "anthropic-key", kAnthropic},
      {kGoogle, "google-api-key", kGoogle},
      {kJwt, "jwt", kJwt},
      {"glpat-AbCdEf1234567890GhIj", "gitlab-token", "glpat-AbCdEf1234567890GhIj"},
      {"SK" + hex40.substr(0, 32), "twilio-api-key", "SK" + hex40.substr(0, 32)},
      {"AccountKey=" + std::string(kRandom), "azure-storage-key", kRandom},
      {"SG.AbCdEf1234567890GhIjKl.MnOpQrStUv1234567890WxYzAbCdEf1234567890GhI", "sendgrid-key",
       "SG.AbCdEf1234567890GhIjKl.MnOpQrStUv1234567890WxYzAbCdEf1234567890GhI"},
      {"aB38Q~AbCdEf1234567890GhIjKlMnOpQrStUv", "azure-client-secret",
       "aB38Q~AbCdEf1234567890GhIjKlMnOpQrStUv"},
      {"\"private_key_id\": \"" + hex40 + "\"", "gcp-service-account-key", hex40},
      {"Basic ZGVwbG95OnMzY3IzdA==", "basic-auth", "ZGVwbG95OnMzY3IzdA=="},
      {"postgres://admin:s3cr3tP4ss@db", "url-credentials", "s3cr3tP4ss"},
      {"DB_PASSWORD=hunter2hunter2", "credential-assignment", "hunter2hunter2"},
      {"API-KEY: abc123def456", "credential-assignment", "abc123def456"},
      {"the DB PASSWORD is hunter2hunter2", "password-in-prose", "hunter2hunter2"},
      {"PW is letmein123", "password-in-prose", "letmein123"},
      {kRandom, "high-entropy", kRandom},
      {std::string(kRandom).substr(0, 32), "high-entropy", std::string(kRandom).substr(0, 32)},
  };
  for (const Sample& s : samples) {
    for (const std::string& text : {s.text, s.text + " and more", "and more " + s.text,
                                    "日本語 " + s.text + " ✓", "é" + s.text}) {
      ExpectFinding(text, s.kind, s.span);
    }
  }
}

TEST(FindSecret, ReturnsTheEarliestFinding) {
  const std::string text = std::string(kGithub) + " and " + kAws;
  const auto f = FindSecret(text);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->offset, 0u);
  EXPECT_EQ(f->kind, "github-token");
}

TEST(RedactSecrets, ReplacesEveryFinding) {
  const std::string text = std::string("aws ") + kAws + ", gh " + kGithub +
                           "\npassword=hunter2hunter2 ok";
  EXPECT_EQ(RedactSecrets(text),
            "aws [REDACTED:aws-access-key], gh [REDACTED:github-token]\n"
            "password=[REDACTED:credential-assignment] ok");
  EXPECT_EQ(RedactSecrets("nothing to hide"), "nothing to hide");
  EXPECT_EQ(RedactSecrets(""), "");
  EXPECT_FALSE(FindSecret(RedactSecrets(text)).has_value());
}

TEST(FindSecret, HandlesHostileInputQuickly) {
  std::mt19937 rng(3);
  std::string text;
  for (int i = 0; i < 64 * 1024; ++i) text.push_back(static_cast<char>(rng() % 256));
  text += std::string(10'000, 'A') + "password=" + std::string(10'000, '=');
  // Not a timing assertion: this only has to finish (a backtracking regex would not).
  EXPECT_NO_THROW((void)RedactSecrets(text));
}

}  // namespace
}  // namespace kioku::sdk
