#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

using PresenceTest = WorkingTest;

TEST_F(PresenceTest, PingMakesAgentLiveUntilTtlPasses) {
  auto r = Ok("presence_ping", {{"status", "editing"}, {"focus", "auth refactor"}});
  EXPECT_EQ(r["agent_id"], "agent-a");
  EXPECT_EQ(r["live_until"], sdk::FormatRfc3339(rt_->clock->NowMs() + 900'000));
  auto list = Ok("presence_list", Json::object(), "agent-b");
  ASSERT_EQ(list["agents"].size(), 1u);
  EXPECT_EQ(list["agents"][0]["agent_id"], "agent-a");
  EXPECT_EQ(list["agents"][0]["status"], "editing");
  EXPECT_EQ(list["agents"][0]["focus"], "auth refactor");
  EXPECT_EQ(list["agents"][0]["liveness"], "live");

  AdvanceSeconds(900);  // exactly the TTL: still live
  EXPECT_EQ(Ok("presence_list", Json::object())["agents"].size(), 1u);
  AdvanceSeconds(1);
  auto stale = Ok("presence_list", Json::object());
  EXPECT_TRUE(stale["agents"].empty());
  EXPECT_EQ(stale["stale"], 1);
  auto with_stale = Ok("presence_list", {{"include_stale", true}});
  ASSERT_EQ(with_stale["agents"].size(), 1u);
  EXPECT_EQ(with_stale["agents"][0]["liveness"], "stale");
  EXPECT_EQ(with_stale["agents"][0]["seconds_since_seen"], 901);
  // A wider read-time window makes it live again: nothing stored changes.
  EXPECT_EQ(Ok("presence_list", {{"ttl_seconds", 1000}})["agents"].size(), 1u);
}

TEST_F(PresenceTest, OmittedFieldsKeepPreviousValues) {
  Ok("presence_ping", {{"status", "editing"}, {"focus", "auth"}});
  auto r = Ok("presence_ping", {{"status", "reviewing"}});
  EXPECT_EQ(r["status"], "reviewing");
  EXPECT_EQ(r["focus"], "auth");
  EXPECT_EQ(Count("SELECT count(*) FROM working_presence"), 1);
}

TEST_F(PresenceTest, AnyWriteCountsAsHeartbeat) {
  Ok("presence_ping", Json::object());
  AdvanceSeconds(800);
  Ok("question_add", {{"question", "which API version?"}});
  AdvanceSeconds(800);  // 1600 s after the ping, 800 s after the write
  auto list = Ok("presence_list", Json::object(), "agent-b");
  ASSERT_EQ(list["agents"].size(), 1u);
  EXPECT_EQ(list["agents"][0]["liveness"], "live");
}

TEST_F(PresenceTest, TtlSettingAndBadTtl) {
  StartWith({{"presence_ttl_seconds", 60}});
  Ok("presence_ping", Json::object());
  AdvanceSeconds(61);
  EXPECT_TRUE(Ok("presence_list", Json::object())["agents"].empty());
  EXPECT_FALSE(Err("presence_list", {{"ttl_seconds", 0}}).empty());
}

TEST_F(PresenceTest, StatusSizeCapAndSecretsAreRefused) {
  EXPECT_FALSE(Err("presence_ping", {{"status", std::string(201, 'x')}}).empty());
  auto text = Err("presence_ping", {{"focus", "using key AKIAQWERTYUIOPASDFGH now"}});
  EXPECT_NE(text.find("secret"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM working_presence"), 0);
}

}  // namespace
}  // namespace kioku::working::testing
