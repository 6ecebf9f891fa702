#include <gtest/gtest.h>

#include "statements.hpp"

namespace kioku::episodic {
namespace {

std::vector<std::string> Texts(std::string_view human) {
  std::vector<std::string> out;
  for (auto& s : FindDurableStatements(human)) out.push_back(s.text);
  return out;
}

std::string KindOf(std::string_view human) {
  auto v = FindDurableStatements(human);
  return v.empty() ? "" : v.front().kind;
}

TEST(Statements, FindsStandingRulesPreferencesAndDecisions) {
  EXPECT_EQ(Texts("Stop, this is a pnpm workspace. From now on use pnpm, not npm. Thanks."),
            (std::vector<std::string>{"From now on use pnpm, not npm."}));
  EXPECT_EQ(KindOf("From now on use pnpm, not npm."), "preference");
  EXPECT_EQ(KindOf("No. We decided to keep Postgres, including for tests."), "decision");
  EXPECT_EQ(KindOf("Hold on. Remember that the staging DB is read-only for us."), "fact");
  EXPECT_EQ(KindOf("Commit it. Never push to main directly, not even for a hotfix like this one; "
                   "everything goes through a PR."),
            "decision");
  EXPECT_EQ(Texts("Also, we decided that all timestamps are stored in UTC. Can you check?"),
            (std::vector<std::string>{"Also, we decided that all timestamps are stored in UTC."}));
  EXPECT_EQ(Texts("02:00 is fine. The rollup job must never delete raw readings; we keep raw "
                  "data for 13 months."),
            (std::vector<std::string>{"The rollup job must never delete raw readings; we keep "
                                      "raw data for 13 months."}));
  EXPECT_EQ(KindOf("Don't add new dependencies without asking."), "decision");
  EXPECT_EQ(Texts("Run the linter every time before you commit."),
            (std::vector<std::string>{"Run the linter every time before you commit."}));
}

TEST(Statements, IgnoresQuestionsMusingsPastAndTemporaryScope) {
  EXPECT_TRUE(Texts("Should we always run the full suite before pushing, or is the filtered "
                    "run fine?")
                  .empty());
  EXPECT_TRUE(Texts("should we always reject readings older than 30 days too").empty());
  EXPECT_TRUE(Texts("I never got the infinite scroll to work, so it still fetches everything.")
                  .empty());
  EXPECT_TRUE(Texts("thanks! I never remember the crontab field order anyway.").empty());
  EXPECT_TRUE(Texts("I'm not sure we should always run it at 02:00 when DST flips.").empty());
  EXPECT_TRUE(Texts("And I don't want to always have to pass REGISTRY by hand.").empty());
  EXPECT_TRUE(Texts("Never force-push this branch though, sam is reviewing it right now.").empty());
  EXPECT_TRUE(Texts("never mind, CI reports coverage anyway.").empty());
  EXPECT_TRUE(Texts("Is it worth making the check always-on in the app layer, or not?").empty());
  EXPECT_TRUE(Texts("Maybe we should never use ORMs.").empty());
}

TEST(Statements, IgnoresPastedLogsCodeAndQuotes) {
  EXPECT_TRUE(Texts("Here's the log:\n\n```\n2025-11-11T08:59:58Z WARN from now on X is "
                    "ignored\n```\n\nCan you find out why?")
                  .empty());
  EXPECT_TRUE(Texts("2025-11-11T08:59:58.131Z WARN config: from now on X is ignored").empty());
  EXPECT_TRUE(Texts("> Always squash-merge feature branches.\nWhat do you think").empty());
  EXPECT_TRUE(Texts("    never call exit() here\n").empty());
  EXPECT_EQ(Texts("```\nalways\n```\nFrom now on keep PRs small."),
            (std::vector<std::string>{"From now on keep PRs small."}));
}

}  // namespace
}  // namespace kioku::episodic
