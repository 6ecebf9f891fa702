// The OpenAI-compatible chat client against the fake server (loopback, port 0): structured
// answers, schema refusals, retries, the circuit breaker and the config section.
#include <cstdlib>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config.hpp"
#include "fake_openai_server.hpp"
#include "kioku/sdk/clock.hpp"
#include "providers/openai_chat.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;
using testing::FakeOpenAiServer;
using Mode = FakeOpenAiServer::Mode;

struct ChatTest : ::testing::Test {
  FakeOpenAiServer server;
  std::shared_ptr<sdk::ManualClock> clock = std::make_shared<sdk::ManualClock>();
  ChatConfig config;
  void SetUp() override {
    config.url = server.Url() + "/v1";
    config.model = "fake-chat";
    config.timeout_ms = 2000;
    config.backoff_ms = 0;
    config.max_retries = 2;
    config.breaker_failures = 3;
    config.breaker_cooldown_ms = 10000;
  }
  std::unique_ptr<sdk::ChatModel> Make() { return providers::MakeOpenAiChat(config, clock); }
  static sdk::ChatRequest Structured() {
    sdk::ChatRequest r;
    r.messages = {{"system", "be brief"}, {"user", "say ok"}};
    r.json_schema = json{{"type", "object"},
                         {"properties", {{"ok", {{"type", "boolean"}}}}},
                         {"required", {"ok"}},
                         {"additionalProperties", false}};
    r.schema_name = "probe";
    return r;
  }
};

TEST_F(ChatTest, FreeTextAnswerAndRequestShape) {
  server.PushChatReply("hello there");
  auto chat = Make();
  sdk::ChatRequest r;
  r.messages = {{"user", "hi"}};
  const auto a = chat->Complete(r);
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.text, "hello there");
  EXPECT_TRUE(a.json.is_null());
  const json body = json::parse(server.LastBody());
  EXPECT_EQ(body["model"], "fake-chat");
  EXPECT_EQ(body["messages"][0]["content"], "hi");
  EXPECT_EQ(body["max_tokens"], 1024);
  EXPECT_FALSE(body.contains("response_format"));
}

TEST_F(ChatTest, StructuredAnswerIsParsedValidatedAndFenceStripped) {
  server.PushChatReply("```json\n{\"ok\": true}\n```");
  auto chat = Make();
  const auto a = chat->Complete(Structured());
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.json, json({{"ok", true}}));
  const json body = json::parse(server.LastBody());
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "probe");
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"]["required"][0], "ok");
}

TEST_F(ChatTest, JsonObjectAndNoneResponseFormats) {
  config.response_format = "json_object";
  server.PushChatReply("{\"ok\": false}");
  EXPECT_TRUE(Make()->Complete(Structured()).ok());
  EXPECT_EQ(json::parse(server.LastBody())["response_format"], json({{"type", "json_object"}}));
  config.response_format = "none";
  server.PushChatReply("{\"ok\": false}");
  EXPECT_TRUE(Make()->Complete(Structured()).ok());
  EXPECT_FALSE(json::parse(server.LastBody()).contains("response_format"));
}

TEST_F(ChatTest, NonJsonAndSchemaViolationsAreInvalidAnswersNotEndpointFailures) {
  auto chat = Make();
  server.PushChatReply("Sure! Here is it: ok");
  const auto not_json = chat->Complete(Structured());
  EXPECT_EQ(not_json.kind, sdk::ChatError::kInvalidAnswer);
  EXPECT_NE(not_json.error.find("answer is not JSON"), std::string::npos) << not_json.error;
  server.PushChatReply("{\"ok\": \"yes\", \"extra\": 1}");
  const auto bad = chat->Complete(Structured());
  EXPECT_EQ(bad.kind, sdk::ChatError::kInvalidAnswer);
  EXPECT_NE(bad.error.find("does not match the schema"), std::string::npos) << bad.error;
  EXPECT_TRUE(bad.json.is_null());
  for (int i = 0; i < 5; ++i) {
    server.PushChatReply("nope");
    chat->Complete(Structured());
  }
  EXPECT_FALSE(chat->Health().circuit_open);
  EXPECT_EQ(server.ChatRequests(), 7);  // never retried
}

TEST_F(ChatTest, MalformedEnvelopeIsAnEndpointFailure) {
  server.SetMode(Mode::kMalformed);
  const auto a = Make()->Complete(Structured());
  EXPECT_EQ(a.kind, sdk::ChatError::kUnavailable);
  EXPECT_NE(a.error.find("malformed answer"), std::string::npos) << a.error;
  EXPECT_EQ(server.ChatRequests(), 1);
}

TEST_F(ChatTest, RetriesTransientFailuresThenSucceeds) {
  auto chat = Make();
  server.FailNext(2, Mode::kHttp500);
  server.PushChatReply("{\"ok\": true}");
  const auto a = chat->Complete(Structured());
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(server.ChatRequests(), 3);
  server.FailNext(1, Mode::kHttp429);
  server.PushChatReply("{\"ok\": true}");
  EXPECT_TRUE(chat->Complete(Structured()).ok());
  server.FailNext(1, Mode::kClose);
  server.PushChatReply("{\"ok\": true}");
  EXPECT_TRUE(chat->Complete(Structured()).ok());
}

TEST_F(ChatTest, GivesUpAfterBoundedRetriesAndDoesNotRetryAuthErrors) {
  server.SetMode(Mode::kHttp500);
  auto chat = Make();
  const auto a = chat->Complete(Structured());
  EXPECT_EQ(a.kind, sdk::ChatError::kUnavailable);
  EXPECT_NE(a.error.find("chat endpoint http://127.0.0.1:"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("HTTP 500 (after 3 attempts)"), std::string::npos) << a.error;
  EXPECT_EQ(server.ChatRequests(), 3);
  server.SetMode(Mode::kHttp401);
  const auto b = chat->Complete(Structured());
  EXPECT_NE(b.error.find("HTTP 401: bad key"), std::string::npos) << b.error;
  EXPECT_EQ(server.ChatRequests(), 4);
}

TEST_F(ChatTest, SlowEndpointTimesOut) {
  config.timeout_ms = 100;
  config.max_retries = 0;
  server.SetDelayMs(400);
  const auto a = Make()->Complete(Structured());
  EXPECT_NE(a.error.find("timed out after 100 ms"), std::string::npos) << a.error;
  server.SetDelayMs(0);
}

TEST_F(ChatTest, KeyComesFromTheEnvironmentAndIsNeverReported) {
  config.api_key_env = "KIOKU_TEST_CHAT_KEY";
  ::unsetenv("KIOKU_TEST_CHAT_KEY");
  auto chat = Make();
  const auto missing = chat->Complete(Structured());
  EXPECT_NE(missing.error.find("KIOKU_TEST_CHAT_KEY (providers.chat.api_key_env) is not set"), std::string::npos)
      << missing.error;
  EXPECT_EQ(server.ChatRequests(), 0);
  ::setenv("KIOKU_TEST_CHAT_KEY", "sk-chat-secret", 1);
  server.SetMode(Mode::kHttp401);
  const auto a = chat->Complete(Structured());
  EXPECT_EQ(server.LastAuthorization(), "Bearer sk-chat-secret");
  EXPECT_EQ(a.error.find("sk-chat"), std::string::npos);
  ::unsetenv("KIOKU_TEST_CHAT_KEY");
}

TEST_F(ChatTest, CircuitOpensAfterRepeatedFailuresAndClosesAfterCooldown) {
  config.max_retries = 0;
  server.SetMode(Mode::kHttp500);
  auto chat = Make();
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(chat->Complete(Structured()).ok());
  EXPECT_TRUE(chat->Health().circuit_open);
  const auto refused = chat->Complete(Structured());
  EXPECT_TRUE(refused.circuit_open);
  EXPECT_NE(refused.error.find("circuit open after 3 consecutive failures"), std::string::npos) << refused.error;
  EXPECT_EQ(server.ChatRequests(), 3);
  server.SetMode(Mode::kOk);
  server.PushChatReply("{\"ok\": true}");
  clock->Advance(10001);
  EXPECT_TRUE(chat->Complete(Structured()).ok());
  EXPECT_EQ(chat->Health().consecutive_failures, 0);
}

TEST(ProviderConfig, ChatSectionIsValidated) {
  const std::string base = "plugins: {enabled: []}\n";
  const Config c = ParseConfig(base + "providers: {chat: {url: 'http://127.0.0.1:11434', model: m, "
                                      "api_key_env: MY_KEY, max_tokens: 512, temperature: 0.2, "
                                      "response_format: json_object}}\n",
                               "test", {});
  EXPECT_EQ(c.chat.url, "http://127.0.0.1:11434");
  EXPECT_EQ(c.chat.max_tokens, 512);
  EXPECT_DOUBLE_EQ(c.chat.temperature, 0.2);
  EXPECT_EQ(c.chat.response_format, "json_object");
  EXPECT_EQ(c.chat.timeout_ms, 60000);
  EXPECT_TRUE(c.embedding.url.empty());
  EXPECT_THROW(ParseConfig(base + "providers: {chat: {url: 'http://x'}}\n", "test", {}), std::runtime_error);
  EXPECT_THROW(ParseConfig(base + "providers: {chat: {url: 'http://x', model: m, dimensions: 3}}\n", "test", {}),
               std::runtime_error);
  EXPECT_THROW(ParseConfig(base + "providers: {chat: {url: 'http://x', model: m, response_format: xml}}\n", "test",
                           {}),
               std::runtime_error);
  ChatConfig bad;
  bad.url = "nope";
  bad.model = "m";
  EXPECT_THROW(providers::MakeOpenAiChat(bad, nullptr), std::runtime_error);
}

}  // namespace
}  // namespace kioku::host
