// Issue 9 (data side) for the working layer: one presence rule across layers (writes of
// any layer refresh the caller's heartbeat, reads do not), releasing an expired claim says
// so, and block keys / claimed paths are screened for secrets.

#include "kioku/sdk/plugin.hpp"
#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

// Stands in for another layer: one write tool and one read-only tool.
class OtherLayer : public sdk::Plugin {
 public:
  explicit OtherLayer(sdk::HostServices&) {}
  void Register(sdk::Registrar& r) override {
    for (const bool read_only : {false, true}) {
      sdk::ToolSpec s;
      s.name = read_only ? "other_read" : "other_write";
      s.title = "fake";
      s.description = "fake layer tool";
      s.annotations.read_only = read_only;
      r.AddTool(s, [](const Json&, const sdk::CallContext&) { return sdk::ToolResult::Ok("ok"); });
    }
    sdk::ToolSpec f;
    f.name = "other_fail";
    f.title = "fake";
    f.description = "fake failing write";
    r.AddTool(f, [](const Json&, const sdk::CallContext&) {
      return sdk::ToolResult::Error("refused");
    });
  }
};

class HardeningTest : public WorkingTest {
 protected:
  void BeforeStart(kioku::testing::TestRuntime& rt) override { rt.Add<OtherLayer>("other"); }
  std::string Liveness(const std::string& agent) {
    const Json list = Ok("presence_list", {{"include_stale", true}}, "observer");
    for (const Json& a : list["agents"]) {
      if (a["agent_id"] == agent) return a["liveness"];
    }
    return "absent";
  }
};

TEST_F(HardeningTest, WritesOfAnyLayerRefreshPresenceReadsDoNot) {
  Ok("presence_ping", Json::object());
  AdvanceSeconds(800);
  Ok("other_write", Json::object());
  AdvanceSeconds(800);  // 1600 s after the ping, 800 s after the other layer's write
  EXPECT_EQ(Liveness("agent-a"), "live");
  AdvanceSeconds(800);
  Ok("other_read", Json::object());
  (void)Call("other_fail", Json::object());
  AdvanceSeconds(200);  // 1000 s after the last successful write
  EXPECT_EQ(Liveness("agent-a"), "stale");
  // A write by an agent that never showed up here creates no presence.
  Ok("other_write", Json::object(), "ghost");
  EXPECT_EQ(Liveness("ghost"), "absent");
}

TEST_F(HardeningTest, ClaimsStayHeldWhileTheHolderWritesElsewhere) {
  Ok("file_claim", {{"paths", {"a.cc"}}, {"ttl_seconds", 3600}});
  for (int i = 0; i < 3; ++i) {
    AdvanceSeconds(600);
    Ok("other_write", Json::object());
  }
  // 1800 s since the claim's own heartbeat, but the holder kept writing: not takeable.
  const auto r = Call("file_claim", {{"paths", {"a.cc"}}}, "agent-b");
  EXPECT_NE(r.text.find("nothing was claimed"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("agent-a until"), std::string::npos) << r.text;
  EXPECT_EQ(Text("SELECT holder FROM working_file_claims WHERE path = 'a.cc'"), "agent-a");
}

TEST_F(HardeningTest, ReleasingAnExpiredClaimSaysItHadExpired) {
  Ok("file_claim", {{"paths", {"a.cc", "b.cc"}}, {"ttl_seconds", 60}});
  AdvanceSeconds(120);
  const auto r = Call("file_release", {{"paths", {"a.cc"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("had already expired"), std::string::npos) << r.text;
  EXPECT_TRUE(r.structured["expired"].contains("a.cc")) << r.structured.dump();
  const auto all = Call("file_release", {{"all", true}});
  EXPECT_NE(all.text.find("1 had already expired"), std::string::npos) << all.text;
  Ok("file_claim", {{"paths", {"c.cc"}}, {"ttl_seconds", 600}});
  const auto fresh = Call("file_release", {{"paths", {"c.cc"}}});
  EXPECT_EQ(fresh.text.find("expired"), std::string::npos) << fresh.text;
}

TEST_F(HardeningTest, BlockKeysAndClaimedPathsAreScreened) {
  const std::string token = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
  std::string msg = Err("block_write", {{"key", token}, {"content", "x"}});
  EXPECT_NE(msg.find("github-token"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(token), std::string::npos) << msg;
  msg = Err("file_claim", {{"paths", {"ok.cc", "src/" + token}}});
  EXPECT_NE(msg.find("paths[1]"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(token), std::string::npos) << msg;
  EXPECT_EQ(Count("SELECT count(*) FROM working_blocks"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM working_file_claims"), 0);
  const std::string stripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
  msg = Err("handoff_write", {{"summary", "ok"}, {"to_agent", stripe}});
  EXPECT_NE(msg.find("to_agent"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(stripe), std::string::npos) << msg;
  EXPECT_EQ(Count("SELECT count(*) FROM working_handoffs"), 0);
}

}  // namespace
}  // namespace kioku::working::testing
