#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

using IdentityTest = WorkingTest;

TEST_F(IdentityTest, TransportIdentityIsUsed) {
  auto r = Ok("presence_ping", Json::object(), "claude-code");
  EXPECT_EQ(r["agent_id"], "claude-code");
}

TEST_F(IdentityTest, ArgumentFillsInWhenTransportCannotTell) {
  for (const char* unknown : {"", "unknown"}) {
    sdk::Caller c = As(unknown);
    auto r = CallAs("presence_ping", {{"agent_id", "sub-agent-1"}}, c);
    ASSERT_FALSE(r.is_error) << r.text;
    EXPECT_EQ(r.structured["agent_id"], "sub-agent-1");
    auto missing = CallAs("presence_ping", Json::object(), c);
    ASSERT_TRUE(missing.is_error);
    EXPECT_NE(missing.text.find("send agent_id"), std::string::npos) << missing.text;
  }
}

TEST_F(IdentityTest, DifferentArgumentOnIdentifiedConnectionIsRefused) {
  auto text = Err("file_claim", {{"paths", {"a"}}, {"agent_id", "someone-else"}}, "agent-a");
  EXPECT_NE(text.find("already identified as agent 'agent-a'"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM working_file_claims"), 0);
  // The same id is fine.
  Ok("file_claim", {{"paths", {"a"}}, {"agent_id", "agent-a"}}, "agent-a");
  // Reserved and malformed ids.
  EXPECT_FALSE(Err("presence_ping", {{"agent_id", "unknown"}}, "").empty());
  EXPECT_FALSE(Err("presence_ping", {{"agent_id", "has space"}}, "").empty());
}

TEST_F(IdentityTest, OverrideModeLetsTheArgumentWin) {
  StartWith({{"agent_id_argument", "override"}});
  auto r = Ok("presence_ping", {{"agent_id", "sub-agent-2"}}, "claude-code");
  EXPECT_EQ(r["agent_id"], "sub-agent-2");
}

TEST_F(IdentityTest, ReadOnlyToolsWorkWithoutIdentity) {
  Ok("file_claim", {{"paths", {"a"}}}, "agent-a");
  auto r = CallAs("claim_list", Json::object(), As(""));
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["claims"].size(), 1u);
  EXPECT_FALSE(r.structured["claims"][0]["mine"].get<bool>());
  EXPECT_FALSE(CallAs("workspace_status", Json::object(), As("")).is_error);
}

TEST_F(IdentityTest, ProjectFallsBackToRootThenGlobal) {
  sdk::Caller c = As("agent-a");
  c.project_id.clear();  // root used as the project key
  ASSERT_FALSE(CallAs("question_add", {{"question", "q"}}, c).is_error);
  EXPECT_EQ(Text("SELECT project_id FROM working_questions"), "/tmp/project");
  sdk::Caller none = As("agent-a");
  none.project_id.clear();
  none.project_root.clear();
  auto r = CallAs("file_claim", {{"paths", {"/abs/a"}}}, none);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("names no project root"), std::string::npos) << r.text;
  EXPECT_FALSE(CallAs("file_claim", {{"paths", {"rel/a"}}}, none).is_error);
}

TEST(WorkingSettings, ContradictionsFailStartup) {
  kioku::testing::TestRuntime rt;
  rt.Add<WorkingPlugin>("working", {{"file_claim_default_ttl_seconds", 900},
                                    {"file_claim_max_ttl_seconds", 600}});
  try {
    rt.Start();
    ADD_FAILURE() << "contradictory settings accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("file_claim_default_ttl_seconds"), std::string::npos)
        << e.what();
  }
}

TEST(WorkingSettings, UnknownKeyFailsStartup) {
  kioku::testing::TestRuntime rt;
  rt.Add<WorkingPlugin>("working", {{"presence_ttl", 10}});
  EXPECT_THROW(rt.Start(), std::exception);
}

}  // namespace
}  // namespace kioku::working::testing
