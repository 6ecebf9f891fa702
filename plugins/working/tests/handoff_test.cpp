#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

class HandoffTest : public WorkingTest {
 protected:
  std::string ClaimedBy(const std::string& id) {
    return Text("SELECT claimed_by FROM working_handoffs WHERE id = '" + id + "'");
  }
};

TEST_F(HandoffTest, OpenHandoffIsClaimedOnce) {
  auto w = Ok("handoff_write", {{"summary", "login race half fixed"},
                                {"open_items", {"regression test", "update docs"}}});
  const std::string id = w["handoff_id"];
  EXPECT_EQ(id.size(), 26u);
  EXPECT_TRUE(w["to_agent"].is_null());

  auto inbox = Ok("handoff_inbox", Json::object(), "agent-b");
  ASSERT_EQ(inbox["handoffs"].size(), 1u);
  EXPECT_EQ(inbox["handoffs"][0]["summary"], "login race half fixed");
  EXPECT_EQ(inbox["handoffs"][0]["open_items"], Json({"regression test", "update docs"}));

  auto c = Ok("handoff_claim", {{"handoff_id", id}}, "agent-b");
  EXPECT_EQ(c["claimed_by"], "agent-b");
  EXPECT_EQ(c["from_agent"], "agent-a");
  EXPECT_EQ(ClaimedBy(id), "agent-b");

  auto text = Err("handoff_claim", {{"handoff_id", id}}, "agent-c");
  EXPECT_NE(text.find("already claimed by agent-b"), std::string::npos) << text;
  text = Err("handoff_claim", {{"handoff_id", id}}, "agent-b");
  EXPECT_NE(text.find("already claimed by agent-b (you)"), std::string::npos) << text;
  EXPECT_EQ(ClaimedBy(id), "agent-b");
  EXPECT_TRUE(Ok("handoff_inbox", Json::object(), "agent-c")["handoffs"].empty());
  EXPECT_EQ(Ok("handoff_inbox", {{"include_claimed", true}}, "agent-c")["handoffs"].size(), 1u);
}

TEST_F(HandoffTest, TargetedHandoffOnlyForItsRecipient) {
  const std::string id =
      Ok("handoff_write", {{"summary", "for b"}, {"to_agent", "agent-b"}})["handoff_id"];
  EXPECT_TRUE(Ok("handoff_inbox", Json::object(), "agent-c")["handoffs"].empty());
  EXPECT_EQ(Ok("handoff_inbox", Json::object(), "agent-b")["handoffs"].size(), 1u);
  auto text = Err("handoff_claim", {{"handoff_id", id}}, "agent-c");
  EXPECT_NE(text.find("addressed to agent-b"), std::string::npos) << text;
  EXPECT_EQ(ClaimedBy(id), "<none>");
  Ok("handoff_claim", {{"handoff_id", id}}, "agent-b");
  EXPECT_EQ(ClaimedBy(id), "agent-b");
}

TEST_F(HandoffTest, IdPrefixesAndUnknownIds) {
  const std::string id = Ok("handoff_write", {{"summary", "s"}})["handoff_id"];
  Ok("handoff_claim", {{"handoff_id", id.substr(0, 20)}}, "agent-b");
  EXPECT_EQ(ClaimedBy(id), "agent-b");
  EXPECT_NE(Err("handoff_claim", {{"handoff_id", "ZZZZZZZZZZ"}}).find("unknown handoff id"),
            std::string::npos);
  // Another project cannot see or claim it.
  const std::string id2 = Ok("handoff_write", {{"summary", "s2"}})["handoff_id"];
  auto r = CallAs("handoff_claim", {{"handoff_id", id2}}, As("agent-b", "/tmp/other"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(ClaimedBy(id2), "<none>");
}

TEST_F(HandoffTest, BadInput) {
  EXPECT_FALSE(Err("handoff_write", {{"summary", "   "}}).empty());
  Json many = Json::array();
  for (int i = 0; i < 51; ++i) many.push_back("item");
  EXPECT_FALSE(Err("handoff_write", {{"summary", "s"}, {"open_items", many}}).empty());
  EXPECT_EQ(Count("SELECT count(*) FROM working_handoffs"), 0);
}

}  // namespace
}  // namespace kioku::working::testing
