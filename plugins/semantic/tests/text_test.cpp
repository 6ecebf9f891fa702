// Pure-function tests: normalization keys, CJK index terms, entity extraction, ranking math.

#include <gtest/gtest.h>

#include <cmath>

#include "entities.hpp"
#include "normalize.hpp"
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

}  // namespace
}  // namespace kioku::semantic
