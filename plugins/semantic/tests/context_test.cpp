// The semantic layer's context provider through the host's block assembly (BuildContext):
// budget with 10,000 memories, whole items, pinned first, withheld counts, prompt relevance.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "context/context_block.hpp"
#include "context_provider.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

using kioku::host::BuildContext;
using kioku::host::ContextOptions;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class SemanticContextTest : public SemanticTest {
 protected:
  std::string Block(const std::string& query = "", std::size_t tokens = 2000) {
    ContextOptions o;
    o.query = query;
    o.token_budget = tokens;
    return BuildContext(*rt_->runtime, kioku::testing::TestRuntime::DefaultCaller(), o).text;
  }
};

TEST_F(SemanticContextTest, TenThousandMemoriesStayUnderBudgetWithWholeItems) {
  std::set<std::string> texts;
  for (int batch = 0; batch < 100; ++batch) {
    Json memories = Json::array();
    for (int i = 0; i < 100; ++i) {
      const int n = batch * 100 + i;
      std::string text = "Module m" + std::to_string(n) + " keeps its cache in region r" + std::to_string(n % 37) +
                         " and flushes every " + std::to_string(n % 11 + 1) + " seconds, measured on build " +
                         std::to_string(n * 7);
      texts.insert(text);
      memories.push_back({{"text", text}, {"kind", n % 3 ? "fact" : "decision"}, {"importance", n % 10 + 1}});
    }
    Ok("memory_remember", {{"memories", memories}});
  }
  const std::string pinned_id = Remember("Always run the release build with -Werror", "decision");
  Ok("memory_pin", {{"id", pinned_id}});
  Ok("memory_suggest", {{"text", "Maybe the cache region should move to r40"}, {"kind", "fact"}});

  for (std::size_t tokens : {200u, 2000u, 100000u}) {
    const std::string block = Block("", tokens);
    ASSERT_FALSE(block.empty());
    EXPECT_LE(block.size(), std::min<std::size_t>(tokens * 4, 10'000)) << tokens;
    const auto lines = Lines(block);
    ASSERT_GE(lines.size(), 3u);
    EXPECT_NE(lines[1].find("[decision|pinned] Always run the release build with -Werror"), std::string::npos)
        << block;
    // Every item line is a whole memory: its text is one stored text, not a cut.
    for (std::size_t i = 2; i + 1 < lines.size(); ++i) {
      const std::string& line = lines[i];
      ASSERT_EQ(line.rfind("- [", 0), 0u) << line;
      const auto start = line.find("] ") + 2;
      const auto end = line.rfind(" · ");
      ASSERT_NE(end, std::string::npos) << line;
      EXPECT_TRUE(texts.count(line.substr(start, end - start))) << line;
    }
    EXPECT_NE(lines.back().find("1 pending review"), std::string::npos) << lines.back();
    // 10,000 active memories, the top ones offered: the rest are counted, not left unsaid
    // (the count stops at 10,000 rows, so it says "or more").
    EXPECT_NE(lines.back().find(" or more memories"), std::string::npos) << lines.back();
    if (tokens == 200) {
      EXPECT_NE(lines.back().find("cut by the budget"), std::string::npos) << lines.back();
    }
    EXPECT_LE(lines.size(), 2u + 6u + 30u) << "pinned + the top 30, header and footer";
  }
}

TEST_F(SemanticContextTest, SessionStartCountsTheMemoriesItLeftOut) {
  Json items = Json::array();
  for (int n = 0; n < 40; ++n) {
    items.push_back({{"text", "Service s" + std::to_string(n) + " listens on port " + std::to_string(9000 + n)}, {"kind", "fact"}});
  }
  Ok("memory_remember", {{"memories", items}});
  const auto lines = Lines(Block("", 100000));
  EXPECT_NE(lines.back().find("withheld: 10 more memories"), std::string::npos) << lines.back();
}

TEST_F(SemanticContextTest, PromptWithNoRelevantMemoryGivesNothing) {
  Remember("We deploy with Helm charts stored in ops/charts", "decision");
  EXPECT_EQ(Block("please make the weather widget blue"), "");
  EXPECT_EQ(Block("update the weather charts"), "") << "one shared word of several is not relevance";
  const std::string block = Block("how do we deploy the helm charts?");
  EXPECT_NE(block.find("[decision|confirmed] We deploy with Helm charts"), std::string::npos) << block;
  EXPECT_EQ(Block("?!"), "") << "no searchable word";
}

TEST_F(SemanticContextTest, UnconfirmedMatchesAreCountedNotShown) {
  Ok("memory_suggest", {{"text", "The staging database backup rotation runs nightly"}, {"kind", "fact"}});
  const std::string block = Block("staging database rotation");
  EXPECT_EQ(block, "") << "only withheld items: no block";
}

// Ids in the block name one memory each, also for memories written in one batch (one
// millisecond); recall's own held-back unconfirmed matches are not all called pending.
TEST_F(SemanticContextTest, IdsInTheBlockAreWholeAndHeldBackMatchesAreNotAllPending) {
  Json items = Json::array();
  for (int n = 0; n < 6; ++n) {
    items.push_back({{"text", "The staging deploy step " + std::to_string(n) + " runs helm upgrade"}, {"kind", "fact"}});
  }
  Ok("memory_remember", {{"memories", items}});
  const std::string block = Block("how does the staging deploy run helm upgrade?");
  std::size_t ids = 0;
  for (const std::string& line : Lines(block)) {
    const auto at = line.rfind(" · ");
    if (line.rfind("- [", 0) != 0 || at == std::string::npos) continue;
    const std::string id = line.substr(at + std::string(" · ").size());
    EXPECT_EQ(id.size(), 26u) << line;
    EXPECT_FALSE(Call("memory_get", {{"id", id}}).is_error) << line;
    ++ids;
  }
  EXPECT_GE(ids, 2u) << block;
  for (int n = 0; n < 6; ++n) {
    Ok("memory_suggest", {{"text", "The staging deploy step " + std::to_string(n) + " might need helm rollback"}, {"kind", "fact"}});
  }
  const std::string held = Block("how does the staging deploy run helm upgrade?");
  EXPECT_EQ(held.find("6 pending review"), std::string::npos) << held;
}

// A contest is shown as one line naming both sides and what settles it, at session start
// and for a prompt about it; neither side is injected as a fact.
TEST_F(SemanticContextTest, AContestIsOneLineNamingBothSides) {
  const std::string friday = Remember("Deploys go out on Fridays");
  const std::string monday = Ok("memory_remember", {{"text", "Deploys moved to Mondays"}, {"kind", "fact"}})["results"][0]["id"];
  for (const std::string& block : {Block(), Block("which day do deploys go out?")}) {
    std::size_t contest_lines = 0;
    for (const std::string& line : Lines(block)) {
      if (line.rfind("- [fact|contested] ", 0) != 0) {
        EXPECT_EQ(line.find("Deploys"), std::string::npos) << "a side shown as a fact: " << line;
        continue;
      }
      ++contest_lines;
      EXPECT_NE(line.find("\"Deploys moved to Mondays\" (" + monday + ", newer) vs \"Deploys go out on Fridays\" (" +
                          friday + ")"),
                std::string::npos)
          << line;
      EXPECT_NE(line.find("confirm one with memory_edit status \"active\", or ask"), std::string::npos) << line;
    }
    EXPECT_EQ(contest_lines, 1u) << block;
    EXPECT_EQ(block.find("contested 2"), std::string::npos) << "both sides named: not counted as withheld\n" << block;
  }
  Ok("memory_edit", {{"id", monday}, {"status", "active"}});
  EXPECT_EQ(Block().find("|contested]"), std::string::npos) << Block();
}

TEST(SemanticRelevance, NeedsTwoContentWordsOrTheOnlyOne) {
  EXPECT_TRUE(RelevantToPrompt("pnpm", "We use pnpm, not npm"));
  EXPECT_TRUE(RelevantToPrompt("run the tests please", "Tests run with ctest"));
  EXPECT_FALSE(RelevantToPrompt("fix the tests for the parser", "Tests run with ctest"));
  EXPECT_TRUE(RelevantToPrompt("fix the failing parser tests", "Parser tests need the fixtures"));
  EXPECT_FALSE(RelevantToPrompt("the and of", "anything"));
}

}  // namespace
}  // namespace kioku::semantic::testing
