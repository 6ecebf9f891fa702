#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

class BlockTest : public WorkingTest {
 protected:
  std::int64_t Version(const std::string& key) {
    return Count("SELECT coalesce(max(version), 0) FROM working_blocks WHERE key = '" + key +
                 "'");
  }
  std::string Content(const std::string& key) {
    return Text("SELECT content FROM working_blocks WHERE key = '" + key + "'");
  }
};

TEST_F(BlockTest, WriteReadListRoundTrip) {
  auto w = Ok("block_write", {{"key", "conventions"}, {"content", "use pnpm"}});
  EXPECT_EQ(w["version"], 1);
  EXPECT_EQ(w["previous_version"], 0);
  auto r = Ok("block_read", {{"key", "conventions"}}, "agent-b");
  EXPECT_EQ(r["content"], "use pnpm");
  EXPECT_EQ(r["version"], 1);
  EXPECT_EQ(r["updated_by"], "agent-a");
  Ok("block_write", {{"key", "arch/db"}, {"content", "sqlite wal"}});
  auto l = Ok("block_list", Json::object());
  ASSERT_EQ(l["blocks"].size(), 2u);
  EXPECT_EQ(l["blocks"][0]["key"], "arch/db");
  EXPECT_EQ(l["blocks"][1]["bytes"], 8);
  EXPECT_EQ(Ok("block_list", {{"key_prefix", "arch/"}})["blocks"].size(), 1u);
  EXPECT_NE(Err("block_read", {{"key", "missing"}}).find("block_list"), std::string::npos);
}

TEST_F(BlockTest, StaleExpectedVersionIsRefusedWithCurrentVersionAndContent) {
  Ok("block_write", {{"key", "k"}, {"content", "v1"}});
  Ok("block_write", {{"key", "k"}, {"content", "v2"}, {"expected_version", 1}}, "agent-b");
  auto r = Call("block_write", {{"key", "k"}, {"content", "mine"}, {"expected_version", 1}},
                "agent-c");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("stale expected_version 1"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("version 2"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("v2"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["current"]["version"], 2);
  EXPECT_EQ(r.structured["current"]["content"], "v2");
  EXPECT_EQ(Version("k"), 2);
  EXPECT_EQ(Content("k"), "v2");
  EXPECT_EQ(Count("SELECT count(*) FROM working_block_history WHERE key = 'k'"), 2);
  // expected_version 0 means "create only".
  EXPECT_NE(Err("block_write", {{"key", "k"}, {"content", "x"}, {"expected_version", 0}})
                .find("version 2"),
            std::string::npos);
  auto ok = Ok("block_write", {{"key", "k"}, {"content", "merged"}, {"expected_version", 2}},
               "agent-c");
  EXPECT_EQ(ok["version"], 3);
}

TEST_F(BlockTest, ReplacingAnotherAgentsTextNeedsTheVersion) {
  Ok("block_write", {{"key", "k"}, {"content", "a's text"}});
  EXPECT_EQ(Ok("block_write", {{"key", "k"}, {"content", "a again"}})["version"], 2);
  auto text = Err("block_write", {{"key", "k"}, {"content", "b's"}}, "agent-b");
  EXPECT_NE(text.find("expected_version 2"), std::string::npos) << text;
  EXPECT_EQ(Content("k"), "a again");
  auto appended = Ok("block_write", {{"key", "k"}, {"content", "b adds"}, {"mode", "append"}},
                     "agent-b");
  EXPECT_EQ(appended["content"], "a again\nb adds");
  EXPECT_EQ(appended["version"], 3);
}

TEST_F(BlockTest, OldVersionsStayReadable) {
  Ok("block_write", {{"key", "k"}, {"content", "first"}});
  Ok("block_write", {{"key", "k"}, {"content", "second"}});
  auto r = Ok("block_read", {{"key", "k"}, {"version", 1}});
  EXPECT_EQ(r["content"], "first");
  EXPECT_EQ(r["current_version"], 2);
  EXPECT_NE(Err("block_read", {{"key", "k"}, {"version", 9}}).find("1 to 2"), std::string::npos);
}

TEST_F(BlockTest, SizeCapKeyRulesAndSecrets) {
  StartWith({{"max_block_bytes", 64}});
  auto text = Err("block_write", {{"key", "k"}, {"content", std::string(65, 'x')}});
  EXPECT_FALSE(text.empty());
  Ok("block_write", {{"key", "k"}, {"content", std::string(60, 'x')}});
  text = Err("block_write", {{"key", "k"}, {"content", "0123456789"}, {"mode", "append"}});
  EXPECT_NE(text.find("limit is 64 bytes"), std::string::npos) << text;
  EXPECT_EQ(Version("k"), 1);
  EXPECT_NE(Err("block_write", {{"key", "bad key!"}, {"content", "x"}}).find("not valid"),
            std::string::npos);
  EXPECT_NE(Err("block_write", {{"key", "-x"}, {"content", "x"}}).find("not valid"),
            std::string::npos);
  text = Err("block_write",
             {{"key", "creds"}, {"content", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}});
  EXPECT_NE(text.find("secret"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM working_blocks"), 1);
}

TEST_F(BlockTest, BlocksAreScopedToTheProject) {
  CallAs("block_write", {{"key", "k"}, {"content", "one"}}, As("agent-a", "/tmp/one"));
  auto r = CallAs("block_read", {{"key", "k"}}, As("agent-a", "/tmp/two"));
  EXPECT_TRUE(r.is_error);
}

using FocusTest = WorkingTest;

TEST_F(FocusTest, EmptyDocumentHasFourSections) {
  auto r = Ok("focus_get", Json::object());
  ASSERT_EQ(r["sections"].size(), 4u);
  EXPECT_EQ(r["sections"][0]["section"], "active_task");
  EXPECT_EQ(r["sections"][0]["version"], 0);
  EXPECT_TRUE(r["sections"][0]["updated_by"].is_null());
  EXPECT_EQ(r["sections"][0]["content"], "");
}

TEST_F(FocusTest, SectionsVersionIndependently) {
  Ok("focus_update", {{"section", "active_task"}, {"content", "fix login race"}});
  Ok("focus_update", {{"section", "notes"}, {"content", "see auth/session.ts"}});
  // Another agent edits a different section without any version: no conflict.
  auto n = Ok("focus_update", {{"section", "next_steps"}, {"content", "- regression test"}},
              "agent-b");
  EXPECT_EQ(n["version"], 1);
  const sdk::ToolResult got = Call("focus_get", Json::object());
  const Json& doc = got.structured;
  const std::string& text = got.text;
  EXPECT_EQ(doc["sections"][0]["content"], "fix login race");
  EXPECT_EQ(doc["sections"][1]["content"], "");
  EXPECT_EQ(doc["sections"][2]["content"], "- regression test");
  EXPECT_EQ(doc["sections"][2]["updated_by"], "agent-b");
  EXPECT_EQ(doc["sections"][3]["updated_by"], "agent-a");
  EXPECT_NE(text.find("## Next steps (next_steps, v1, agent-b"), std::string::npos) << text;
  EXPECT_NE(text.find("\n- regression test\n"), std::string::npos) << text;
}

// One configured agent (KIOKU_AGENT_ID) in two sessions, a server window (instance) and a
// `kioku call` (no instance), owns its text: no version needed; another agent still is.
TEST_F(FocusTest, TheSameAgentInAnotherSessionReplacesItsOwnText) {
  sdk::Caller window = As("tester");
  window.instance_id = "3f2a9c01";
  sdk::Caller cli = As("tester");
  cli.instance_id.clear();
  sdk::Caller other_window = As("tester");
  other_window.instance_id = "77aa0b12";
  auto first = CallAs("focus_update", {{"section", "active_task"}, {"content", "from the window"}}, window);
  ASSERT_FALSE(first.is_error) << first.text;
  auto second = CallAs("focus_update", {{"section", "active_task"}, {"content", "from kioku call"}}, cli);
  ASSERT_FALSE(second.is_error) << second.text;
  auto third = CallAs("focus_update", {{"section", "active_task"}, {"content", "another window"}}, other_window);
  ASSERT_FALSE(third.is_error) << third.text;
  EXPECT_EQ(third.structured["version"], 3);
  auto block = CallAs("block_write", {{"key", "k"}, {"content", "mine"}}, window);
  ASSERT_FALSE(block.is_error) << block.text;
  auto again = CallAs("block_write", {{"key", "k"}, {"content", "still mine"}}, cli);
  ASSERT_FALSE(again.is_error) << again.text;
  EXPECT_NE(Err("focus_update", {{"section", "active_task"}, {"content", "b's"}}, "agent-b").find("expected_version 3"),
            std::string::npos);
}

TEST_F(FocusTest, ConcurrentEditsOfOneSectionNeverOverwriteSilently) {
  Ok("focus_update", {{"section", "in_progress"}, {"content", "a: step 1"}});
  // B read version 1 and writes; A, also holding version 1, then tries to replace.
  Ok("focus_update", {{"section", "in_progress"}, {"content", "b: step 2"}, {"expected_version", 1}},
     "agent-b");
  auto r = Call("focus_update",
                {{"section", "in_progress"}, {"content", "a: step 3"}, {"expected_version", 1}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("b: step 2"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["current"]["version"], 2);
  // Without a version, replacing B's text is refused too; appending is fine.
  EXPECT_NE(Err("focus_update", {{"section", "in_progress"}, {"content", "a"}})
                .find("expected_version 2"),
            std::string::npos);
  auto a = Ok("focus_update",
              {{"section", "in_progress"}, {"content", "a: step 3"}, {"mode", "append"}});
  EXPECT_EQ(a["content"], "b: step 2\na: step 3");
  EXPECT_EQ(a["version"], 3);
  EXPECT_EQ(Count("SELECT count(*) FROM working_events WHERE kind = 'focus.update'"), 3);
}

TEST_F(FocusTest, BadSectionAndEmptyReplaceClears) {
  EXPECT_FALSE(Err("focus_update", {{"section", "Active task"}, {"content", "x"}}).empty());
  Ok("focus_update", {{"section", "notes"}, {"content", "x"}});
  auto r = Ok("focus_update", {{"section", "notes"}, {"content", ""}});
  EXPECT_EQ(r["content"], "");
  EXPECT_EQ(Ok("focus_get", Json::object())["sections"][3]["content"], "");
  EXPECT_FALSE(Err("focus_update", {{"section", "notes"}, {"content", ""}, {"mode", "append"}})
                   .empty());
}

}  // namespace
}  // namespace kioku::working::testing
