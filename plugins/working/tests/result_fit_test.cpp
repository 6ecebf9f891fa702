// Issue 9 "every result is bounded": the working layer's listings fit themselves under the
// host's byte cap (RuntimeOptions::max_result_bytes, 48 KiB in tests) with a cursor and an
// `omitted` count, and paging through them loses nothing. Before, each of these returned
// its whole list and the host refused the oversized result.

#include <set>

#include "kioku/sdk/json.hpp"
#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

constexpr std::size_t kCap = 48 * 1024;

std::string Words(int i, std::size_t bytes) {
  std::string t = "item " + std::to_string(i) + ":";
  while (t.size() < bytes) t += " alpha beta gamma delta " + std::to_string(i);
  return t.substr(0, bytes);
}

class ResultFitTest : public WorkingTest {
 protected:
  /// Pages through `tool` (args + cursor) as `agent`; every page under the cap. Returns the
  /// `key` of every row of `list`, checking none repeats.
  std::set<std::string> PageAll(const std::string& tool, Json args, const std::string& list,
                                const std::string& key, const std::string& agent = "agent-a") {
    std::set<std::string> seen;
    for (int pages = 0;; ++pages) {
      EXPECT_LT(pages, 100);
      if (pages >= 100) break;
      sdk::ToolResult r = Call(tool, args, agent);
      EXPECT_FALSE(r.is_error) << tool << ": " << r.text.substr(0, 300);
      if (r.is_error) break;
      EXPECT_LE(r.text.size() + sdk::DumpJson(r.structured).size(), kCap) << tool;
      for (const Json& row : r.structured[list]) EXPECT_TRUE(seen.insert(row[key].get<std::string>()).second);
      if (!r.structured.contains("next_cursor")) {
        EXPECT_EQ(r.structured["omitted"], 0);
        break;
      }
      ++pages_;
      EXPECT_GT(r.structured["omitted"].get<int>(), 0);
      EXPECT_NE(r.text.find("cursor"), std::string::npos);
      args["cursor"] = r.structured["next_cursor"];
    }
    return seen;
  }
  int pages_ = 0;
};

TEST_F(ResultFitTest, QuestionListPagesUnderTheCap) {
  for (int i = 0; i < 80; ++i) Ok("question_add", {{"question", Words(i, 1500)}});
  EXPECT_EQ(PageAll("question_list", {{"limit", 500}}, "questions", "question_id").size(), 80u);
  EXPECT_GT(pages_, 1);
}

TEST_F(ResultFitTest, HandoffInboxPagesUnderTheCap) {
  for (int i = 0; i < 80; ++i) Ok("handoff_write", {{"summary", Words(i, 1500)}}, "agent-b");
  EXPECT_EQ(PageAll("handoff_inbox", {{"limit", 200}}, "handoffs", "handoff_id").size(), 80u);
  EXPECT_GT(pages_, 1);
}

TEST_F(ResultFitTest, ClaimListPagesUnderTheCap) {
  for (int batch = 0; batch < 20; ++batch) {
    Json paths = Json::array();
    for (int i = 0; i < 20; ++i) {
      paths.push_back("src/mod" + std::to_string(batch) + "/f" + std::to_string(i) + ".cpp");
    }
    Ok("file_claim", {{"paths", paths}, {"intent", Words(batch, 400)}});
  }
  EXPECT_EQ(PageAll("claim_list", {{"limit", 1000}}, "claims", "path").size(), 400u);
  EXPECT_GT(pages_, 1);
}

TEST_F(ResultFitTest, PresenceListPagesUnderTheCap) {
  for (int i = 0; i < 120; ++i) Ok("presence_ping", {{"focus", Words(i, 900)}}, "agent-" + std::to_string(i));
  EXPECT_EQ(PageAll("presence_list", {{"limit", 500}}, "agents", "agent_id").size(), 120u);
  EXPECT_GT(pages_, 1);
}

TEST_F(ResultFitTest, BlockReadOfABlockOverTheCapReadsInWindows) {
  StartWith({{"max_block_bytes", 200'000}});
  std::string content = Words(0, 150'000) + " café ☕ end";  // multi-byte characters at the edge
  // The write's echo fits too (before: the host refused a result the write had committed).
  const sdk::ToolResult wrote = Call("block_write", {{"key", "big"}, {"content", content}});
  ASSERT_FALSE(wrote.is_error) << wrote.text.substr(0, 300);
  EXPECT_LE(wrote.text.size() + sdk::DumpJson(wrote.structured).size(), kCap);
  EXPECT_EQ(wrote.structured["bytes"], content.size());
  EXPECT_GT(wrote.structured["omitted_bytes"].get<std::size_t>(), 0u);
  std::string back;
  Json args = {{"key", "big"}};
  for (int reads = 0; reads < 20; ++reads) {
    sdk::ToolResult r = Call("block_read", args);
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
    EXPECT_LE(r.text.size() + sdk::DumpJson(r.structured).size(), kCap);
    back += r.structured["content"].get<std::string>();
    if (!r.structured.contains("next_offset")) break;
    EXPECT_GT(r.structured["omitted_bytes"].get<std::size_t>(), 0u);
    args["offset"] = r.structured["next_offset"];
  }
  EXPECT_EQ(back, content);
}

TEST_F(ResultFitTest, LimitStillAppliesAndABadCursorIsRefused) {
  for (int i = 0; i < 5; ++i) Ok("question_add", {{"question", "short question " + std::to_string(i)}});
  const Json first = Ok("question_list", {{"limit", 2}});
  EXPECT_EQ(first["questions"].size(), 2u);
  EXPECT_EQ(first["omitted"], 3);
  const Json rest = Ok("question_list", {{"limit", 10}, {"cursor", first["next_cursor"]}});
  EXPECT_EQ(rest["questions"].size(), 3u);
  EXPECT_EQ(rest["omitted"], 0);
  EXPECT_NE(Err("question_list", {{"cursor", "garbage"}}).find("send next_cursor"), std::string::npos);
}

// workspace_status is an overview: with every list and the focus document at their size
// caps it stays under the cap (it returned ~127 KB before), snipping texts and saying so.
TEST_F(ResultFitTest, WorkspaceStatusStaysAnOverviewUnderTheCap) {
  for (int i = 0; i < 25; ++i) Ok("question_add", {{"question", Words(i, 16000)}});
  for (int i = 0; i < 12; ++i) Ok("handoff_write", {{"summary", Words(i, 16000)}}, "agent-b");
  for (int batch = 0; batch < 4; ++batch) {
    Json paths = Json::array();
    for (int i = 0; i < 25; ++i) {
      paths.push_back("src/" + std::string(900, static_cast<char>('a' + batch)) + "/f" + std::to_string(i));
    }
    const sdk::ToolResult claimed = Call("file_claim", {{"paths", paths}, {"intent", Words(batch, 500)}});
    ASSERT_FALSE(claimed.is_error) << claimed.text.substr(0, 300);
    EXPECT_LE(claimed.text.size() + sdk::DumpJson(claimed.structured).size(), kCap);
    EXPECT_EQ(claimed.structured["claims"].size() + claimed.structured["omitted"].get<std::size_t>(), 25u);
  }
  for (const char* section : {"active_task", "in_progress", "next_steps", "notes"}) {
    Ok("focus_update", {{"section", section}, {"content", Words(1, 16000)}});
  }
  const sdk::ToolResult r = Call("workspace_status", Json::object(), "agent-a");
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  EXPECT_LE(r.text.size() + sdk::DumpJson(r.structured).size(), kCap);
  EXPECT_EQ(r.structured["my_file_claim_count"], 100);
  EXPECT_EQ(r.structured["my_file_claims"].size(), 10u);
  EXPECT_TRUE(r.structured["focus_truncated"].get<bool>());
  EXPECT_LE(r.structured["handoffs"][0]["summary"].get<std::string>().size(), 200u);
  EXPECT_NE(r.text.find("focus_get"), std::string::npos);
}

}  // namespace
}  // namespace kioku::working::testing
