// The working layer's context provider through the host's block assembly: claims by
// others (never the caller's own), handoffs for the caller, open questions, and the
// prompt mode that names only claims on files the prompt mentions.

#include "context/context_block.hpp"
#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

class WorkingContextTest : public WorkingTest {
 protected:
  std::string Block(const std::string& agent, const std::string& query = "") {
    host::ContextOptions o;
    o.query = query;
    return host::BuildContext(*rt_->runtime, As(agent), o).text;
  }
};

TEST_F(WorkingContextTest, SessionStartShowsOthersClaimsHandoffsAndQuestions) {
  Ok("file_claim", {{"paths", {"src/parser.cpp"}}, {"intent", "rewriting the tokenizer"}}, "agent-b");
  Ok("file_claim", {{"paths", {"src/mine.cpp"}}}, "agent-a");
  Ok("handoff_write", {{"summary", "Finish the CSV importer"}, {"to_agent", "agent-a"}}, "agent-b");
  Ok("handoff_write", {{"summary", "Note to myself"}}, "agent-a");
  Ok("question_add", {{"question", "Should dates be stored as UTC?"}}, "agent-b");

  const std::string block = Block("agent-a");
  EXPECT_NE(block.find("[claim|live] src/parser.cpp is claimed by agent-b (rewriting the tokenizer)"), std::string::npos)
      << block;
  EXPECT_EQ(block.find("src/mine.cpp"), std::string::npos) << "own claims are not news";
  EXPECT_NE(block.find("[handoff|for you] from agent-b"), std::string::npos) << block;
  EXPECT_EQ(block.find("Note to myself"), std::string::npos) << "own handoffs are not shown";
  EXPECT_NE(block.find("[question|open] Should dates be stored as UTC?"), std::string::npos) << block;
  // Highest priority first: the handoff addressed to agent-a leads.
  EXPECT_LT(block.find("[handoff|for you]"), block.find("[claim|live]"));
  EXPECT_LT(block.find("[claim|live]"), block.find("[question|open]"));
}

TEST_F(WorkingContextTest, PromptShowsOnlyClaimsOnFilesItNames) {
  Ok("file_claim", {{"paths", {"src/parser.cpp", "docs/guide.md"}}}, "agent-b");
  Ok("question_add", {{"question", "Which parser library?"}}, "agent-b");
  EXPECT_EQ(Block("agent-a", "rename the config loader"), "");
  const std::string block = Block("agent-a", "fix the crash in parser.cpp");
  EXPECT_NE(block.find("src/parser.cpp is claimed by agent-b"), std::string::npos) << block;
  EXPECT_EQ(block.find("guide.md"), std::string::npos) << block;
  EXPECT_EQ(block.find("question"), std::string::npos) << block;
}

TEST_F(WorkingContextTest, OtherProjectsStayOut) {
  rt_->Call("file_claim", {{"paths", {"a.txt"}}}, As("agent-b", "/tmp/other"));
  EXPECT_EQ(Block("agent-a"), "");
}

}  // namespace
}  // namespace kioku::working::testing
