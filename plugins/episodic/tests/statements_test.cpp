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

DurableStatement One(std::string_view human) {
  auto v = FindDurableStatements(human);
  EXPECT_EQ(v.size(), 1u) << human;
  return v.empty() ? DurableStatement{} : v.front();
}

TEST(Statements, CatchesLabelsPermissionClausesAndLowerCase) {
  EXPECT_EQ(One("Rule of thumb: every new script gets a --help flag.").kind, "preference");
  EXPECT_EQ(One("Note for future sessions: the CI runners are arm64.").kind, "fact");
  EXPECT_EQ(One("You don't need to ask before running the formatter; just run it.").kind,
            "preference");
  EXPECT_EQ(One("Default to small commits unless I say otherwise.").kind, "preference");
  EXPECT_EQ(One("Please stop adding emoji to commit messages.").kind, "preference");
  EXPECT_EQ(One("Each time you finish a refactor, run the full suite.").kind, "preference");
  EXPECT_EQ(One("Since the client is committed, always regenerate it after changing the spec.")
                .kind,
            "preference");
  EXPECT_EQ(One("No - so the rule is: integration tests only run nightly, never on PRs.").kind,
            "decision");
  EXPECT_EQ(One("We agreed with the mobile team that the v1 endpoints stay frozen.").kind, "fact");
  EXPECT_EQ(One("release branches are never rebased once they are pushed").kind, "decision");
  EXPECT_EQ(One("Actually, the config file lives in /etc/marlin, not in the repo.").kind,
            "correction");
  EXPECT_EQ(Texts("Here is the error:\nError: always set timeout-minutes\n    at run (a.js:1:2)\n"
                  "Going forward, cap every CI job at 20 minutes."),
            (std::vector<std::string>{"Going forward, cap every CI job at 20 minutes."}));
}

TEST(Statements, KeepsOutTemporaryHypotheticalReportedAndSelf) {
  for (const char* s : {"For now, skip the tests.", "don't push this branch yet",
                        "no callbacks for this one", "If we ever decide to drop v1, never do it on a Friday.",
                        "Sam keeps saying we should never use ORMs.", "I always forget the flag order.",
                        "What if we always rounded at the edge?", "We used to always deploy on Fridays.",
                        "Make sure the README mentions the flag.", "Don't do that."}) {
    EXPECT_TRUE(Texts(s).empty()) << s;
  }
  EXPECT_TRUE(FindDurableStatements("# AGENTS.md instructions for /x\n\nAlways run ruff.").empty());
  EXPECT_TRUE(FindDurableStatements("This session is being continued from a previous "
                                    "conversation. Always use pnpm.")
                  .empty());
}

TEST(Statements, RevisionKeepsTheNewValueAndSetsSubjectValue) {
  const auto st = One("We decided on npm workspaces last month, but scratch that: from now on "
                      "use pnpm workspaces.");
  EXPECT_EQ(st.text, "from now on use pnpm workspaces.");
  EXPECT_EQ(st.subject, "package-manager");
  EXPECT_EQ(st.value, "pnpm");
  const auto parser = One("the parser uses winnow, keep it that way");
  EXPECT_EQ(parser.subject, "parser");
  EXPECT_EQ(parser.value, "winnow");
  const auto orm = One("Going forward we use sqlx, not diesel, for new queries.");
  EXPECT_EQ(orm.subject, "orm");
  EXPECT_EQ(orm.value, "sqlx");
  EXPECT_TRUE(One("Never use npm here, ever.").subject.empty());  // a refused value sets nothing
  // Two values for one subject in one message: the later one stands.
  auto two = FindDurableStatements("We use npm in this repo. Scratch that: from now on use yarn.");
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].value, "yarn");
}

}  // namespace
}  // namespace kioku::episodic
