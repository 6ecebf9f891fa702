// The OpenAI-compatible embedding client against the fake server (loopback, port 0).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config.hpp"
#include "fake_openai_server.hpp"
#include "kioku/sdk/clock.hpp"
#include "providers/http_client.hpp"
#include "providers/openai_embedder.hpp"
#include "providers/provider_call.hpp"

namespace kioku::host {
namespace {

using testing::FakeOpenAiServer;
using Mode = FakeOpenAiServer::Mode;

struct EmbedderTest : ::testing::Test {
  FakeOpenAiServer server{16};
  std::shared_ptr<sdk::ManualClock> clock = std::make_shared<sdk::ManualClock>();
  EmbeddingConfig config;
  void SetUp() override {
    config.url = server.Url();
    config.model = "fake-embed";
    config.timeout_ms = 2000;
    config.backoff_ms = 0;
    config.max_retries = 2;
    config.breaker_failures = 3;
    config.breaker_cooldown_ms = 10000;
  }
  std::unique_ptr<sdk::Embedder> Make() { return providers::MakeOpenAiEmbedder(config, clock); }
};

TEST_F(EmbedderTest, EmbedsABatchInInputOrderAndLearnsTheDimension) {
  auto e = Make();
  EXPECT_EQ(e->Dimension(), 0);
  const auto r = e->Embed({"alpha beta", "gamma", "alpha beta"});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.vectors.size(), 3u);
  EXPECT_EQ(r.vectors[0], FakeOpenAiServer::VectorFor("alpha beta", 16));
  EXPECT_EQ(r.vectors[1], FakeOpenAiServer::VectorFor("gamma", 16));
  EXPECT_EQ(e->Dimension(), 16);
  const auto body = nlohmann::json::parse(server.LastBody());
  EXPECT_EQ(body["model"], "fake-embed");
  EXPECT_EQ(body["input"].size(), 3u);
  EXPECT_FALSE(body.contains("dimensions"));
}

TEST_F(EmbedderTest, SplitsLargeBatchesAndSendsConfiguredDimensions) {
  config.batch_size = 2;
  config.dimensions = 16;
  auto e = Make();
  const auto r = e->Embed({"a", "b", "c", "d", "e"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.vectors.size(), 5u);
  EXPECT_EQ(server.Requests(), 3);
  EXPECT_EQ(nlohmann::json::parse(server.LastBody())["dimensions"], 16);
}

TEST_F(EmbedderTest, SendsTheKeyFromTheEnvironmentAndNeverReportsIt) {
  config.api_key_env = "KIOKU_TEST_EMBED_KEY";
  ::setenv("KIOKU_TEST_EMBED_KEY", "sk-test-secret-value", 1);
  auto e = Make();
  ASSERT_TRUE(e->Embed({"x"}).ok());
  EXPECT_EQ(server.LastAuthorization(), "Bearer sk-test-secret-value");
  server.SetMode(Mode::kHttp401);
  const auto r = e->Embed({"x"});
  EXPECT_NE(r.error.find("HTTP 401: bad key"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("sk-test"), std::string::npos);
  ::unsetenv("KIOKU_TEST_EMBED_KEY");
  const auto missing = e->Embed({"x"});
  EXPECT_NE(missing.error.find("KIOKU_TEST_EMBED_KEY"), std::string::npos);
}

TEST_F(EmbedderTest, RetriesTransientFailuresThenSucceeds) {
  server.FailNext(2, Mode::kHttp500);
  auto e = Make();
  EXPECT_TRUE(e->Embed({"x"}).ok());
  EXPECT_EQ(server.Requests(), 3);
  server.FailNext(1, Mode::kHttp429);
  EXPECT_TRUE(e->Embed({"x"}).ok());
  server.FailNext(1, Mode::kClose);
  EXPECT_TRUE(e->Embed({"x"}).ok());
}

TEST_F(EmbedderTest, GivesUpAfterBoundedRetries) {
  server.SetMode(Mode::kHttp500);
  auto e = Make();
  const auto r = e->Embed({"x"});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("HTTP 500 (after 3 attempts)"), std::string::npos) << r.error;
  EXPECT_EQ(server.Requests(), 3);
}

TEST_F(EmbedderTest, MalformedWrongCountWrongDimensionAndNanAreErrorsNotRetried) {
  auto e = Make();
  server.SetMode(Mode::kMalformed);
  EXPECT_NE(e->Embed({"x"}).error.find("malformed answer"), std::string::npos);
  server.SetMode(Mode::kWrongCount);
  EXPECT_NE(e->Embed({"x", "y"}).error.find("returned 1 embeddings for 2 inputs"), std::string::npos);
  server.SetMode(Mode::kNaN);
  EXPECT_NE(e->Embed({"x"}).error.find("non-finite"), std::string::npos);
  EXPECT_EQ(server.Requests(), 3);
  config.dimensions = 16;
  config.breaker_failures = 100;
  auto fixed = Make();
  server.SetMode(Mode::kWrongDim);
  const auto r = fixed->Embed({"x"});
  EXPECT_NE(r.error.find("returned 17-dimensional vectors, expected 16"), std::string::npos) << r.error;
}

TEST_F(EmbedderTest, ReadTimeoutIsReported) {
  config.timeout_ms = 100;
  config.max_retries = 0;
  server.SetDelayMs(400);
  auto e = Make();
  const auto r = e->Embed({"x"});
  EXPECT_NE(r.error.find("timed out after 100 ms"), std::string::npos) << r.error;
  server.SetDelayMs(0);
}

// A recall waits for its query's vector: one attempt within query_timeout_ms, then text
// search, instead of timeout_ms times (1 + max_retries).
TEST_F(EmbedderTest, AQueryMakesOneAttemptWithinTheQueryTimeout) {
  config.timeout_ms = 2000;
  config.query_timeout_ms = 100;
  server.SetDelayMs(400);
  auto e = Make();
  const auto q = e->EmbedQuery("which package manager");
  EXPECT_NE(q.error.find("timed out after 100 ms"), std::string::npos) << q.error;
  EXPECT_EQ(server.Requests(), 1);
  EXPECT_TRUE(e->Embed({"a document"}).ok());  // documents keep the full timeout
  server.SetDelayMs(0);
  server.FailNext(1, Mode::kHttp500);
  EXPECT_FALSE(e->EmbedQuery("x").ok());  // not retried
  const auto ok = e->EmbedQuery("x");
  ASSERT_TRUE(ok.ok()) << ok.error;
  EXPECT_EQ(ok.vectors.front(), FakeOpenAiServer::VectorFor("x", 16));
}

TEST_F(EmbedderTest, ConnectionRefusedIsReported) {
  config.url = "http://127.0.0.1:1";
  config.max_retries = 0;
  auto e = Make();
  const auto r = e->Embed({"x"});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("connect failed"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("embedding endpoint http://127.0.0.1:1"), std::string::npos) << r.error;
}

TEST_F(EmbedderTest, CircuitOpensAfterRepeatedFailuresAndClosesAfterCooldown) {
  config.max_retries = 0;
  server.SetMode(Mode::kHttp500);
  auto e = Make();
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(e->Embed({"x"}).ok());
  EXPECT_TRUE(e->Health().circuit_open);
  const int before = server.Requests();
  const auto refused = e->Embed({"x"});
  EXPECT_TRUE(refused.circuit_open);
  EXPECT_NE(refused.error.find("circuit open after 3 consecutive failures"), std::string::npos) << refused.error;
  EXPECT_EQ(server.Requests(), before);  // not even tried
  server.SetMode(Mode::kOk);
  clock->Advance(10001);
  EXPECT_TRUE(e->Embed({"x"}).ok());
  EXPECT_FALSE(e->Health().circuit_open);
  EXPECT_EQ(e->Health().consecutive_failures, 0);
}

// Every `kioku call`, `kioku context` and hook is a process of its own: the breaker's state
// lives in a file under KIOKU_HOME so a dead endpoint is not paid for by each of them.
struct SharedBreakerTest : EmbedderTest {
  std::filesystem::path state = std::filesystem::temp_directory_path() /
                                ("kioku-breaker-test-" + std::to_string(::getpid()) + ".breaker");
  void TearDown() override { std::filesystem::remove(state); }
  std::unique_ptr<sdk::Embedder> MakeShared() { return providers::MakeOpenAiEmbedder(config, clock, state); }
};

TEST_F(SharedBreakerTest, EveryProcessSeesTheOpenCircuitAndTheTrialMakesOneAttempt) {
  server.SetMode(Mode::kHttp500);
  auto first = MakeShared();
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(first->Embed({"x"}).ok());
  EXPECT_EQ(server.Requests(), 9);  // three calls of three attempts
  auto second = MakeShared();       // a later process
  EXPECT_TRUE(second->Health().circuit_open);
  const auto refused = second->Embed({"x"});
  EXPECT_TRUE(refused.circuit_open);
  EXPECT_NE(refused.error.find("circuit open after 3 consecutive failures (last: HTTP 500"), std::string::npos)
      << refused.error;
  EXPECT_EQ(server.Requests(), 9);  // not even tried

  clock->Advance(10001);
  const auto trial = second->Embed({"x"});  // the cooldown is over: one trial, no retries
  EXPECT_FALSE(trial.ok());
  EXPECT_EQ(trial.error.find("attempts"), std::string::npos) << trial.error;
  EXPECT_EQ(server.Requests(), 10);
  EXPECT_TRUE(first->Embed({"x"}).circuit_open);  // reopened for every process

  server.SetMode(Mode::kOk);
  clock->Advance(10001);
  EXPECT_TRUE(first->Embed({"x"}).ok());
  EXPECT_FALSE(second->Health().circuit_open);
  EXPECT_EQ(second->Health().consecutive_failures, 0);
}

TEST_F(SharedBreakerTest, AFileOfAnotherEndpointOrModelOrGarbledOrNotARegularFileLeavesTheOwnState) {
  const auto write = [&](const std::string& text) {
    std::filesystem::remove(state);
    std::ofstream(state) << text;
  };
  write("http://127.0.0.1:1/ fake-embed\n5 99999999999999\nconnect failed\n");  // another endpoint
  EXPECT_TRUE(MakeShared()->Embed({"x"}).ok());
  write(providers::BreakerKey(server.Url(), "other-model") + "\n5 99999999999999\nHTTP 500\n");
  EXPECT_TRUE(MakeShared()->Embed({"x"}).ok());
  write("garbage");
  EXPECT_TRUE(MakeShared()->Embed({"x"}).ok());
  std::filesystem::remove(state);
  ASSERT_EQ(::mkfifo(state.c_str(), 0600), 0);  // never blocks on a FIFO
  EXPECT_TRUE(MakeShared()->Embed({"x"}).ok());
  std::filesystem::remove(state);
}

TEST_F(SharedBreakerTest, AnOpenTimeFarInTheFutureCountsAsOneCooldown) {
  auto probe = MakeShared();
  const std::string key = providers::BreakerKey(probe->Endpoint(), config.model);
  std::ofstream(state) << key << "\n5 9223372036854775807\nHTTP 500\n";
  const auto h = MakeShared()->Health();
  EXPECT_TRUE(h.circuit_open);
  EXPECT_LE(h.retry_at_ms, clock->NowMs() + config.breaker_cooldown_ms);
}

TEST_F(SharedBreakerTest, AMissingKeyVariableIsNotTheEndpointsFailure) {
  config.api_key_env = "KIOKU_TEST_UNSET_EMBED_KEY";
  ::unsetenv("KIOKU_TEST_UNSET_EMBED_KEY");
  auto no_key = MakeShared();  // e.g. a shell without the key the server's config gives
  for (int i = 0; i < 5; ++i) EXPECT_NE(no_key->Embed({"x"}).error.find("KIOKU_TEST_UNSET_EMBED_KEY"), std::string::npos);
  EXPECT_EQ(server.Requests(), 0);
  ::setenv("KIOKU_TEST_UNSET_EMBED_KEY", "k", 1);
  EXPECT_TRUE(MakeShared()->Embed({"x"}).ok());
  ::unsetenv("KIOKU_TEST_UNSET_EMBED_KEY");
}

TEST_F(SharedBreakerTest, AfterAFailedWriteTheBreakerStaysInProcess) {
  config.max_retries = 0;
  server.SetMode(Mode::kHttp500);
  auto e = MakeShared();
  std::ofstream(state) << providers::BreakerKey(e->Endpoint(), config.model) << "\n0 0\n\n";  // stale
  const auto tmp = state.string() + ".tmp" + std::to_string(::getpid());
  std::filesystem::create_directory(tmp);  // the rename's source cannot be made
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(e->Embed({"x"}).ok());
  EXPECT_TRUE(e->Embed({"x"}).circuit_open);  // the stale file no longer resets it
  EXPECT_EQ(server.Requests(), 3);
  std::filesystem::remove(tmp);
}

TEST(SharedCircuit, AfterTheCooldownOnlyOneProcessGetsTheTrial) {
  const auto state = std::filesystem::temp_directory_path() /
                     ("kioku-breaker-trial-" + std::to_string(::getpid()) + ".breaker");
  auto clock = std::make_shared<sdk::ManualClock>();
  providers::CircuitBreaker a(2, 1000, clock, "k", state), b(2, 1000, clock, "k", state);
  a.RecordFailure("HTTP 500");
  b.RecordFailure("HTTP 500");
  EXPECT_TRUE(a.Admit().refusal);
  clock->Advance(1001);
  const auto first = b.Admit();
  EXPECT_FALSE(first.refusal);
  EXPECT_TRUE(first.trial);
  EXPECT_TRUE(a.Admit().refusal);  // open for the other process until the trial reports
  b.RecordSuccess();
  const auto after = a.Admit();
  EXPECT_FALSE(after.refusal);
  EXPECT_FALSE(after.trial);
  std::filesystem::remove(state);
}

TEST(ProviderUrl, ParsesAndRefuses) {
  std::string error;
  auto u = providers::ParseUrl("https://api.example.com/v1/", &error);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->path, "/v1");
  u = providers::ParseUrl("http://[::1]:8080", &error);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_FALSE(providers::ParseUrl("ftp://x", &error));
  EXPECT_FALSE(providers::ParseUrl("http://x:99999", &error));
  EXPECT_NE(error.find("out of range"), std::string::npos);
  EmbeddingConfig bad;
  bad.url = "nope";
  bad.model = "m";
  EXPECT_THROW(providers::MakeOpenAiEmbedder(bad, nullptr), std::runtime_error);
}

TEST(ProviderConfig, EmbeddingSectionIsValidated) {
  const std::string base = "plugins: {enabled: []}\n";
  const Config c = ParseConfig(base + "providers: {embedding: {url: 'http://127.0.0.1:11434', model: m, "
                                      "api_key_env: MY_KEY, dimensions: 384}}\n",
                               "test", {});
  EXPECT_EQ(c.embedding.url, "http://127.0.0.1:11434");
  EXPECT_EQ(c.embedding.dimensions, 384);
  EXPECT_EQ(c.embedding.api_key_env, "MY_KEY");
  EXPECT_EQ(c.embedding.query_timeout_ms, 3000);
  EXPECT_EQ(ParseConfig(base + "providers: {embedding: {url: 'http://x', model: m, query_timeout_ms: 800}}\n", "test", {})
                .embedding.query_timeout_ms,
            800);
  EXPECT_THROW(ParseConfig(base + "providers: {embedding: {url: 'http://x', model: m, query_timeout_ms: 0}}\n", "test", {}),
               std::runtime_error);
  EXPECT_THROW(ParseConfig(base + "providers: {embedding: {url: 'http://x'}}\n", "test", {}), std::runtime_error);
  EXPECT_THROW(ParseConfig(base + "providers: {embedding: {url: 'http://x', model: m, key: k}}\n", "test", {}),
               std::runtime_error);
  EXPECT_THROW(ParseConfig(base + "providers: {embedding: {url: 'gopher://x', model: m}}\n", "test", {}),
               std::runtime_error);
  EXPECT_THROW(ParseConfig(base + "providers: {embedding: {url: 'http://x', model: m, api_key_env: 'sk-abc'}}\n",
                           "test", {}),
               std::runtime_error);
}

}  // namespace
}  // namespace kioku::host
