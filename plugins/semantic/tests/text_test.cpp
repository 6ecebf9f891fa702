// Pure-function tests: normalization keys, CJK index terms, entity extraction, ranking math.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "entities.hpp"
#include "normalize.hpp"
#include "query_terms.hpp"
#include "ranking.hpp"

namespace kioku::semantic {
namespace {

TEST(NormalizeText, FoldsCaseCollapsesWhitespaceDropsOneTrailingPeriod) {
  EXPECT_EQ(NormalizeText("  We   use\tPNPM, not npm.  "), "we use pnpm, not npm");
  EXPECT_EQ(NormalizeText("Ends with two.."), "ends with two.");
  EXPECT_EQ(NormalizeText("no period"), "no period");
  EXPECT_NE(NormalizeText("we use pnpm"), NormalizeText("we use npm"));
}

TEST(NormalizeSubject, SpacesBecomeDashes) {
  EXPECT_EQ(NormalizeSubject(" Package  Manager "), "package-manager");
  EXPECT_EQ(NormalizeSubject("package-manager"), "package-manager");
}

TEST(NormalizeTag, DropsHashAndLowers) {
  EXPECT_EQ(NormalizeTag("#Build System"), "build-system");
}

TEST(Cjk, IndexTermsAreBigramsPlusLastChar) {
  EXPECT_EQ(CjkIndexTerms("no cjk here"), "");
  EXPECT_EQ(CjkIndexTerms("東京都"), "東京 京都 都");
  EXPECT_EQ(CjkIndexTerms("設定 は config.yaml"), "設定 定 は");
  const auto runs = CjkRuns("abc 日本語 def 한국어");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0], "日本語");
  EXPECT_EQ(runs[1], "한국어");
  EXPECT_EQ(CjkBigrams("東京"), std::vector<std::string>{"東京"});
  EXPECT_EQ(CjkBigrams("東"), std::vector<std::string>{"東"});
}

std::vector<std::pair<std::string, std::string>> Pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : ExtractEntities(text)) out.emplace_back(e.type, e.norm);
  return out;
}

bool Has(std::string_view text, const std::string& type, const std::string& norm) {
  for (const auto& p : Pairs(text)) {
    if (p.first == type && p.second == norm) return true;
  }
  return false;
}

TEST(Entities, FilesUrlsFlagsPackagesVersionsEnvIdentifiers) {
  const std::string text =
      "Edit src/auth/session.ts:42 and ./README.md, see https://example.com/docs/ — run "
      "`pytest --maxfail=1 -q`, install pnpm@9.1.0 and @types/node@20.1.0, requests==2.31.0, "
      "bump to v1.2.3, set KIOKU_HOME, call parse_config() or loadSettings, HttpServer::Run.";
  EXPECT_TRUE(Has(text, "file", "src/auth/session.ts"));
  EXPECT_TRUE(Has(text, "file", "readme.md"));
  EXPECT_TRUE(Has(text, "url", "https://example.com/docs"));
  EXPECT_TRUE(Has(text, "flag", "--maxfail"));
  EXPECT_TRUE(Has(text, "package", "pnpm@9.1.0"));
  EXPECT_TRUE(Has(text, "package", "pnpm"));
  EXPECT_TRUE(Has(text, "package", "@types/node@20.1.0"));
  EXPECT_TRUE(Has(text, "package", "requests"));
  EXPECT_TRUE(Has(text, "version", "v1.2.3"));
  EXPECT_TRUE(Has(text, "env", "kioku_home"));
  EXPECT_TRUE(Has(text, "identifier", "parse_config"));
  EXPECT_TRUE(Has(text, "identifier", "loadsettings"));
  EXPECT_TRUE(Has(text, "identifier", "httpserver::run"));
}

TEST(Entities, PlainProseYieldsNothing) {
  EXPECT_TRUE(ExtractEntities("We decided to keep the read/write split and/or use it. e.g. "
                              "this is fine.")
                  .empty());
}

TEST(Entities, DeduplicatesAndCaps) {
  EXPECT_EQ(ExtractEntities("a.ts a.ts A.ts").size(), 1u);
  std::string many;
  for (int i = 0; i < 100; ++i) many += "f" + std::to_string(i) + ".ts ";
  EXPECT_EQ(ExtractEntities(many, 32).size(), 32u);
}

TEST(Entities, ClassifyUserNames) {
  EXPECT_EQ(ClassifyEntityName("src/main.cpp"), "file");
  EXPECT_EQ(ClassifyEntityName("postgres"), "concept");
  EXPECT_EQ(ClassifyEntityName("api service"), "concept");
  EXPECT_EQ(NormalizeEntityName(" ./Src/Dir/ "), "src/dir");
}

TEST(Ranking, RetrievabilityIsOneAtZeroHalfAtHalfLifeAndPowerLaw) {
  EXPECT_DOUBLE_EQ(Retrievability(0, 30), 1.0);
  EXPECT_NEAR(Retrievability(30, 30), 0.5, 1e-12);
  EXPECT_NEAR(Retrievability(180, 180), 0.5, 1e-12);
  // Power law: slower than exponential in the tail (exp would give 0.5^4 = 0.0625).
  EXPECT_GT(Retrievability(120, 30), 0.0625 * 2);
  EXPECT_GT(Retrievability(10, 30), Retrievability(20, 30));
  // FSRS anchor: R(S) = 0.9 where S = F·h/3.
  const double stability = kFsrsFactor * 30 / 3.0;
  EXPECT_NEAR(Retrievability(stability, 30), 0.9, 1e-12);
}

TEST(Ranking, EachMultiplierMovesTheScoreTheRightWay) {
  MultiplierSettings s;
  const std::int64_t day = 86'400'000;
  const std::int64_t now = 1000 * day;
  Memory base;
  base.kind = "fact";
  base.updated_at = now;
  base.importance = 5;
  base.confidence = 1.0;
  const double b = ScoreMemory(base, "active", 1.0, now, s).total;

  Memory old = base;
  old.updated_at = now - 60 * day;
  EXPECT_LT(ScoreMemory(old, "active", 1.0, now, s).total, b);
  EXPECT_DOUBLE_EQ(ScoreMemory(old, "pinned", 1.0, now, s).decay, 1.0);

  Memory decision = old;
  decision.kind = "decision";
  Memory event = old;
  event.kind = "event";
  EXPECT_GT(ScoreMemory(decision, "active", 1.0, now, s).decay,
            ScoreMemory(event, "active", 1.0, now, s).decay);

  Memory important = base;
  important.importance = 9;
  EXPECT_GT(ScoreMemory(important, "active", 1.0, now, s).total, b);

  Memory used = base;
  used.recall_count = 10;
  const double s10 = ScoreMemory(used, "active", 1.0, now, s).strength;
  used.recall_count = 100;
  const double s100 = ScoreMemory(used, "active", 1.0, now, s).strength;
  EXPECT_GT(s10, 1.0);
  EXPECT_GT(s100, s10);
  EXPECT_LT(s100 - s10, s10 - 1.0);  // diminishing returns

  EXPECT_LT(ScoreMemory(base, "pending", 1.0, now, s).total, b);
  EXPECT_LT(ScoreMemory(base, "contested", 1.0, now, s).total, b);
  Memory unsure = base;
  unsure.confidence = 0.2;
  EXPECT_LT(ScoreMemory(unsure, "active", 1.0, now, s).total, b);
}

TEST(QueryTerms, CuratedExpansionBridgesCategoryWordsToTools) {
  const auto js = CuratedExpansions({"which", "js", "dependency", "tool"});
  EXPECT_NE(std::find(js.begin(), js.end(), "pnpm"), js.end());
  EXPECT_TRUE(CuratedExpansions({"which", "dependency"}).empty());  // needs both triggers
  const auto pm = CuratedExpansions({"package", "manager", "npm"});
  EXPECT_EQ(std::count(pm.begin(), pm.end(), "npm"), 0);  // already in the query
  EXPECT_LE(pm.size(), 12u);
}

TEST(QueryTerms, FillerAnswerTypesDatesAndNames) {
  EXPECT_TRUE(IsQueryFiller("happened"));
  EXPECT_FALSE(IsQueryFiller("deploy"));
  EXPECT_EQ(QueryAnswerType({"when", "is", "the", "release"}), AnswerType::kDate);
  EXPECT_EQ(QueryAnswerType({"who", "owns", "billing"}), AnswerType::kPerson);
  EXPECT_EQ(QueryAnswerType({"which", "formatter"}), AnswerType::kAny);
  EXPECT_TRUE(HasDateExpression("We moved it to the weekend of July 25th."));
  EXPECT_TRUE(HasDateExpression("daily at 02:30 UTC"));
  EXPECT_TRUE(HasDateExpression("ships on 2026-03-31"));
  EXPECT_FALSE(HasDateExpression("I prefer tabs over spaces"));
  EXPECT_TRUE(HasPersonName("Marta: My husband Iker offered to bring his guitar."));
  EXPECT_FALSE(HasPersonName("Tom: I want a retired greyhound. They are lazy."));
  EXPECT_FALSE(HasPersonName("Elena: See you on Monday in March."));
}

TEST(QueryTerms, FeedbackPrefersDistinctiveTermsSeenElsewhere) {
  const std::vector<FeedbackDoc> docs = {{"Tom: I signed up for the marathon in October", 1.0},
                                         {"Tom: the marathon training plan", 0.5}};
  const auto cands = FeedbackCandidates(docs, {"race", "tom"}, 24);
  EXPECT_EQ(std::count(cands.begin(), cands.end(), "tom"), 0);
  EXPECT_EQ(std::count(cands.begin(), cands.end(), "the"), 0);
  const std::map<std::string, int> dfs = {{"signed", 1}, {"marathon", 3}, {"october", 40},
                                          {"training", 2}, {"plan", 30}};
  const auto picked = SelectFeedbackTerms(docs, cands, dfs, 100, 2);
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0], "marathon");  // in both top docs, rare; "signed" has df 1: skipped
}

}  // namespace
}  // namespace kioku::semantic
