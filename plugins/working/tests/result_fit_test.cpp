// Issue 9 "every result is bounded": the working layer's listings fit themselves under the
// host's byte cap (RuntimeOptions::max_result_bytes, 48 KiB in tests) with a cursor and an
// `omitted` count, and paging through them loses nothing. Before, each of these returned
// its whole list and the host refused the oversized result.

#include <set>

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/text.hpp"
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

// focus_get fits itself (before: four 16 KB sections went out three times, ~190 KB, and the
// host refused the result): each section is cut at a whole character to a fair share of the
// room with its full length and where to go on, and `section` + `offset` read it whole.
TEST_F(ResultFitTest, FocusGetCutsSectionsFairlyAndReadsOneWhole) {
  StartWith({{"max_focus_section_bytes", 100'000}});
  const std::string big = Words(1, 60'000) + " café ☕ \"quoted\"\n end";  // escapes and multi-byte
  for (const char* section : {"active_task", "in_progress", "next_steps"}) {
    Ok("focus_update", {{"section", section}, {"content", Words(2, 16000) + "☕☕☕"}});
  }
  // The echo of a write over the room is cut too.
  const sdk::ToolResult wrote = Call("focus_update", {{"section", "notes"}, {"content", big}});
  ASSERT_FALSE(wrote.is_error) << wrote.text.substr(0, 300);
  EXPECT_LE(wrote.text.size() + sdk::DumpJson(wrote.structured).size(), kCap);
  EXPECT_GT(wrote.structured["omitted_bytes"].get<std::size_t>(), 0u);

  const sdk::ToolResult all = Call("focus_get", Json::object());
  ASSERT_FALSE(all.is_error) << all.text.substr(0, 300);
  EXPECT_LE(all.text.size() + sdk::DumpJson(all.structured).size(), kCap);
  ASSERT_EQ(all.structured["sections"].size(), 4u);
  for (const Json& s : all.structured["sections"]) {
    const std::string& part = s["content"].get_ref<const std::string&>();
    EXPECT_TRUE(sdk::IsValidUtf8(part));
    EXPECT_GT(part.size(), 4000u) << s["section"];  // a fair share each, not all to one
    EXPECT_EQ(s["omitted_bytes"].get<std::size_t>() + part.size(), s["bytes"].get<std::size_t>());
    EXPECT_EQ(s["next_offset"], part.size());
  }
  EXPECT_NE(all.text.find("focus_get section \"notes\" offset"), std::string::npos);
  EXPECT_NE(all.text.find(" of " + std::to_string(big.size()) + " bytes"), std::string::npos);

  // A short section is not cut and leaves its share to the others.
  Ok("focus_update", {{"section", "active_task"}, {"content", "short"}, {"expected_version", 1}});
  const Json fair = Ok("focus_get", Json::object());
  EXPECT_EQ(fair["sections"][0]["content"], "short");
  EXPECT_FALSE(fair["sections"][0].contains("omitted_bytes"));
  EXPECT_GT(fair["sections"][1]["content"].get<std::string>().size(),
            all.structured["sections"][1]["content"].get<std::string>().size() + 1000);

  // One section read whole, window by window.
  std::string back;
  Json args = {{"section", "notes"}};
  for (int reads = 0; reads < 20; ++reads) {
    const sdk::ToolResult r = Call("focus_get", args);
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
    EXPECT_LE(r.text.size() + sdk::DumpJson(r.structured).size(), kCap);
    ASSERT_EQ(r.structured["sections"].size(), 1u);
    const Json& s = r.structured["sections"][0];
    back += s["content"].get<std::string>();
    if (!s.contains("next_offset")) break;
    args["offset"] = s["next_offset"];
  }
  EXPECT_EQ(back, big);
  EXPECT_NE(Err("focus_get", {{"offset", 10}}).find("send section"), std::string::npos);
}

// Writes whose answers echo stored text fit too (before, each of these was over the cap
// with the default limits and the host cut or refused the answer of a committed write).
TEST_F(ResultFitTest, AnswersOfWritesFitAtTheirLargestInputs) {
  Json items = Json::array();
  for (int i = 0; i < 50; ++i) items.push_back(Words(i, 1000));
  const Json wrote = Ok("handoff_write", {{"summary", Words(1, 16384)}, {"open_items", items}}, "agent-b");
  const Json inbox = Ok("handoff_inbox", Json::object());
  ASSERT_EQ(inbox["handoffs"].size(), 1u);
  const sdk::ToolResult claimed = Call("handoff_claim", {{"handoff_id", wrote["handoff_id"]}});
  ASSERT_FALSE(claimed.is_error) << claimed.text.substr(0, 300);
  EXPECT_LE(claimed.text.size() + sdk::DumpJson(claimed.structured).size(), kCap);
  const Json& h = claimed.structured;
  EXPECT_EQ(h["summary"].get<std::string>().size() + h.value("summary_omitted_bytes", std::size_t{0}), 16384u);
  EXPECT_EQ(h["open_items"].size() + h.value("open_items_omitted", std::size_t{0}), 50u);
  EXPECT_GT(h["open_items"].size(), 0u);
  EXPECT_NE(claimed.text.find("cut to the result size cap"), std::string::npos);

  const Json asked = Ok("question_add", {{"question", Words(2, 16384)}, {"context", Words(3, 16384)}});
  const sdk::ToolResult answered =
      Call("question_answer", {{"question_id", asked["question_id"]}, {"answer", Words(4, 16380) + "\"\n\"\n"}});
  ASSERT_FALSE(answered.is_error) << answered.text.substr(0, 300);
  EXPECT_LE(answered.text.size() + sdk::DumpJson(answered.structured).size(), kCap);
  for (int pages = 0; pages < 3; ++pages) {
    const sdk::ToolResult listed = Call("question_list", {{"status", "all"}});
    EXPECT_LE(listed.text.size() + sdk::DumpJson(listed.structured).size(), kCap);
  }

  for (int batch = 0; batch < 20; ++batch) {
    Json paths = Json::array();
    for (int i = 0; i < 20; ++i) {
      paths.push_back("src/" + std::string(300, static_cast<char>('a' + batch)) + "/f" + std::to_string(i));
    }
    Ok("file_claim", {{"paths", paths}});
  }
  const sdk::ToolResult released = Call("file_release", {{"all", true}});
  ASSERT_FALSE(released.is_error) << released.text.substr(0, 300);
  EXPECT_LE(released.text.size() + sdk::DumpJson(released.structured).size(), kCap);
  EXPECT_EQ(released.structured["released_count"], 400);
  EXPECT_EQ(released.structured["released"].size() + released.structured["omitted"].get<std::size_t>(), 400u);
  EXPECT_GT(released.structured["omitted"].get<std::size_t>(), 0u);
  EXPECT_EQ(Ok("claim_list", Json::object())["claims"].size(), 0u);  // every one released all the same
}

}  // namespace
}  // namespace kioku::working::testing
