#include <atomic>
#include <thread>

#include "test_util.hpp"

namespace kioku::episodic::testing {
namespace {

using nlohmann::json;

TEST_F(EpisodicTest, StartIsIdempotentForClientSuppliedId) {
  auto a = CallOk("session_start", {{"session_id", "2026-05-19-login"}, {"title", "login bug"}});
  EXPECT_TRUE(a.structured["created"].get<bool>());
  EXPECT_EQ(a.structured["session_id"], "2026-05-19-login");
  rt_.clock->Advance(60'000);
  auto b = CallOk("session_start", {{"session_id", "2026-05-19-login"}, {"title", "other"}});
  EXPECT_FALSE(b.structured["created"].get<bool>());
  EXPECT_EQ(b.structured["title"], "login bug");  // the first title stays
  EXPECT_EQ(b.structured["started_at"], a.structured["started_at"]);
  EXPECT_EQ(Count("episodic_sessions"), 1);
}

TEST_F(EpisodicTest, StartWithoutIdUsesTheCallersSession) {
  auto r = CallOk("session_start", json::object());
  EXPECT_EQ(r.structured["session_id"], "test-session");
  EXPECT_EQ(r.structured["project"], "/tmp/project");
}

TEST_F(EpisodicTest, StartWithoutAnyIdMakesOne) {
  sdk::Caller anon = kioku::testing::TestRuntime::DefaultCaller();
  anon.session_id.clear();
  auto r = rt_.Call("session_start", json::object(), anon);
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["session_id"].get<std::string>().size(), 26u);  // a ULID
}

TEST_F(EpisodicTest, StartRejectsIdWithSpaces) {
  auto r = Call("session_start", {{"session_id", "has space"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("printable ASCII"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_sessions"), 0);
}

TEST_F(EpisodicTest, LogDefaultsToCallersSessionAndCreatesItOnFirstUse) {
  auto r = CallOk("session_log", {{"entry", "root cause: race in session refresh"},
                                  {"type", "decision"},
                                  {"tags", {"auth"}}});
  EXPECT_EQ(r.structured["session_id"], "test-session");
  EXPECT_TRUE(r.structured["created_session"].get<bool>());
  EXPECT_EQ(r.structured["seq"], 1);
  auto r2 = CallOk("session_log", {{"entry", "wrote the test"}, {"type", "progress"}});
  EXPECT_EQ(r2.structured["seq"], 2);
  EXPECT_FALSE(r2.structured["created_session"].get<bool>());
  EXPECT_EQ(Count("episodic_log", "session_id = 'test-session'"), 2);
  EXPECT_EQ(Count("episodic_log", "tags = '[\"auth\"]' AND type = 'decision'"), 1);
}

TEST_F(EpisodicTest, ConcurrentWritersGetDistinctSequenceNumbers) {
  CallOk("session_start", {{"session_id", "shared"}});
  std::vector<std::thread> writers;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        auto r = Call("session_log", {{"session_id", "shared"},
                                      {"entry", "writer " + std::to_string(t) + " #" +
                                                    std::to_string(i)}});
        if (r.is_error) ++errors;
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(Count("episodic_log", "session_id = 'shared'"), 80);
  EXPECT_EQ(Count("episodic_log", "session_id = 'shared' AND seq BETWEEN 1 AND 80"), 80);
}

TEST_F(EpisodicTest, LogToUnknownExplicitSessionFailsAndStoresNothing) {
  auto r = Call("session_log", {{"session_id", "nope-1234"}, {"entry", "x"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("unknown session id 'nope-1234'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("session_start"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_log"), 0);
  EXPECT_EQ(Count("episodic_sessions"), 0);
}

TEST_F(EpisodicTest, LogAcceptsUniquePrefix) {
  CallOk("session_start", {{"session_id", "abcdef-123"}});
  auto r = CallOk("session_log", {{"session_id", "abcd"}, {"entry", "hello"}});
  EXPECT_EQ(r.structured["session_id"], "abcdef-123");
}

TEST_F(EpisodicTest, LogRefusesSecretsAndStoresNothing) {
  auto r = Call("session_log",
                {{"entry", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 works"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("secret"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_log"), 0);
  EXPECT_EQ(Count("episodic_sessions"), 0);
}

TEST_F(EpisodicTest, SessionIdsAreScreenedForSecrets) {
  const std::string stripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
  for (const auto& [tool, args] : {std::pair{"session_start", json{{"session_id", stripe}}},
                                    std::pair{"session_log", json{{"session_id", stripe}, {"entry", "hello"}}}}) {
    auto r = Call(tool, args);
    ASSERT_TRUE(r.is_error) << tool;
    EXPECT_NE(r.text.find("session_id"), std::string::npos) << r.text;
    EXPECT_EQ(r.text.find(stripe), std::string::npos) << r.text;
  }
  EXPECT_EQ(Count("episodic_sessions"), 0);
  EXPECT_EQ(Count("episodic_log"), 0);
}

TEST_F(EpisodicTest, LogRejectsHugeEntryBySchema) {
  auto r = Call("session_log", {{"entry", std::string(9000, 'a')}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(Count("episodic_log"), 0);
}

TEST_F(EpisodicTest, LogRejectsUnknownType) {
  auto r = Call("session_log", {{"entry", "x"}, {"type", "musing"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(Count("episodic_log"), 0);
}

TEST_F(EpisodicTest, EndStoresSummaryAndKeepsFirstEndTime) {
  CallOk("session_log", {{"entry", "started"}});
  rt_.clock->Advance(3'600'000);
  auto r = CallOk("session_end", {{"summary", "Fixed the race. TODO: regression test"}});
  EXPECT_FALSE(r.structured["already_ended"].get<bool>());
  ASSERT_TRUE(r.structured["summary_id"].is_string());
  EXPECT_EQ(Count("episodic_summaries", "kind = 'session_end' AND message_count = 1"), 1);
  rt_.clock->Advance(60'000);
  auto again = CallOk("session_end", json::object());
  EXPECT_TRUE(again.structured["already_ended"].get<bool>());
  EXPECT_EQ(again.structured["ended_at"], r.structured["ended_at"]);
}

TEST_F(EpisodicTest, SummaryAddRequiresAnExistingSession) {
  auto r = Call("session_summary_add", {{"session_id", "missing-session"}, {"summary", "x"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("missing-session"), std::string::npos);
  EXPECT_NE(r.text.find("session_start"), std::string::npos);
  EXPECT_EQ(Count("episodic_summaries"), 0);
}

TEST_F(EpisodicTest, SummaryAddRejectsNonRfc3339TimeAndStoresNothing) {
  CallOk("session_start", {{"session_id", "s-1"}});
  auto r = Call("session_summary_add",
                {{"session_id", "s-1"}, {"summary", "x"}, {"started_at", "yesterday"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("`started_at` is not an RFC 3339 time: 'yesterday'"), std::string::npos)
      << r.text;
  EXPECT_EQ(Count("episodic_summaries"), 0);
}

TEST_F(EpisodicTest, SummaryAddRejectsInvertedSpan) {
  CallOk("session_start", {{"session_id", "s-1"}});
  auto r = Call("session_summary_add", {{"session_id", "s-1"},
                                        {"summary", "x"},
                                        {"started_at", "2026-01-02T00:00:00Z"},
                                        {"ended_at", "2026-01-01T00:00:00Z"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("is after `ended_at`"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_summaries"), 0);
}

TEST_F(EpisodicTest, SummaryAddStoresFieldsAndEstimatesTokens) {
  CallOk("session_start", {{"session_id", "s-1"}, {"model", "m-1"}});
  auto r = CallOk("session_summary_add", {{"session_id", "s-1"},
                                          {"summary", std::string(400, 'x')},
                                          {"message_count", 42},
                                          {"started_at", "2025-12-31T10:00:00Z"},
                                          {"ended_at", "2025-12-31T11:00:00Z"}});
  EXPECT_EQ(r.structured["token_count"], 100);
  EXPECT_EQ(Count("episodic_summaries",
                  "message_count = 42 AND model = 'm-1' AND started_at = " +
                      std::to_string(Ms("2025-12-31T10:00:00Z"))),
            1);
}

}  // namespace
}  // namespace kioku::episodic::testing
