#include "kioku/sdk/fts_rank.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"

namespace kioku::sdk {
namespace {

class FtsRankTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.exec("CREATE VIRTUAL TABLE t USING fts5(a, b)");
    db_.exec("INSERT INTO t(a, b) VALUES ('redis cache ts', 'x'), ('cache ts', 'redis'), "
             "('ts only here ts', ''), ('nothing', 'ts'), ('redis', 'redis ts')");
  }
  std::vector<double> Scores(const std::string& rank, const std::string& match) {
    SQLite::Statement q(db_, "SELECT " + rank + " FROM t WHERE t MATCH ? ORDER BY rowid");
    q.bind(1, match);
    std::vector<double> out;
    while (q.executeStep()) out.push_back(q.getColumn(0).getDouble());
    return out;
  }
  SQLite::Database db_ = OpenDatabase(":memory:");
};

TEST_F(FtsRankTest, EqualsBuiltInBm25WithExactFrequencies) {
  // "redis" is in 3 rows, "ts" in 5: given those counts, kioku_bm25 is bm25.
  const auto builtin = Scores("bm25(t, 1.0, 2.0)", "\"redis\" OR \"ts\"");
  const auto given = Scores("kioku_bm25(t, 1.0, 2.0, 3, 5)", "\"redis\" OR \"ts\"");
  const auto counted = Scores("kioku_bm25(t, 1.0, 2.0)", "\"redis\" OR \"ts\"");
  ASSERT_EQ(builtin.size(), 5u);
  ASSERT_EQ(given.size(), builtin.size());
  ASSERT_EQ(counted.size(), builtin.size());
  for (std::size_t i = 0; i < builtin.size(); ++i) {
    EXPECT_DOUBLE_EQ(given[i], builtin[i]) << i;
    EXPECT_DOUBLE_EQ(counted[i], builtin[i]) << i;  // no df given: counted as bm25() does
  }
}

TEST_F(FtsRankTest, SuppliedFrequencyDecidesTheIdf) {
  // A rarer "redis" (df 1) weighs more than the real df 3 would; NULL or -1 means count it.
  const auto rare = Scores("kioku_bm25(t, 1.0, 1.0, 1)", "\"redis\"");
  const auto real = Scores("kioku_bm25(t, 1.0, 1.0, NULL)", "\"redis\"");
  const auto minus = Scores("kioku_bm25(t, 1.0, 1.0, -1)", "\"redis\"");
  ASSERT_EQ(rare.size(), 3u);
  for (std::size_t i = 0; i < rare.size(); ++i) {
    EXPECT_LT(rare[i], real[i]);  // lower is better
    EXPECT_DOUBLE_EQ(minus[i], real[i]);
  }
}

TEST_F(FtsRankTest, PhrasesSaysWhichPhrasesEachRowHolds) {
  // Phrases: 0 "redis", 1 "ts", 2 "only here" (a two-token phrase).
  SQLite::Statement q(db_, "SELECT rowid, kioku_phrases(t) FROM t WHERE t MATCH ? ORDER BY rowid");
  q.bind(1, "\"redis\" OR \"ts\" OR \"only here\"");
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  while (q.executeStep()) rows.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getInt64());
  const std::vector<std::pair<std::int64_t, std::int64_t>> want = {{1, 0b011}, {2, 0b011}, {3, 0b110}, {4, 0b010},
                                                                   {5, 0b011}};
  EXPECT_EQ(rows, want);
}

TEST_F(FtsRankTest, PhrasesIsNullPastSixtyThreePhrases) {
  std::string match = "\"ts\"";
  for (int i = 0; i < 63; ++i) match += " OR \"ts\"";
  SQLite::Statement q(db_, "SELECT kioku_phrases(t) FROM t WHERE t MATCH ? LIMIT 1");
  q.bind(1, match);
  ASSERT_TRUE(q.executeStep());
  EXPECT_TRUE(q.getColumn(0).isNull());
}

// A detail=none trigram table answers only "holds every trigram"; kioku_substrings says
// which needles are really substrings, folding case as the tokenizer does.
TEST(FtsSubstringsTest, SaysWhichTextsAreSubstringsOfTheRow) {
  SQLite::Database db = OpenDatabase(":memory:");
  db.exec("CREATE VIRTUAL TABLE g USING fts5(x, tokenize='trigram', detail=none, columnsize=0)");
  db.exec("INSERT INTO g(x) VALUES ('authentication'), ('the author authenticates'), ('thenauth'), "
          "('ÄRGER im Büro')");
  SQLite::Statement q(db, "SELECT rowid, kioku_substrings(g, 'authen', 'ärger', 'büro', 'ab') FROM g "
                          "WHERE g MATCH '(\"aut\" AND \"uth\" AND \"the\" AND \"hen\") OR \"ärg\"' "
                          "ORDER BY rowid");
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  while (q.executeStep()) rows.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getInt64());
  // Row 3 holds aut, uth, the, hen but not "authen"; "ab" has no trigram, so never occurs.
  const std::vector<std::pair<std::int64_t, std::int64_t>> want = {{1, 0b0001}, {2, 0b0001}, {3, 0}, {4, 0b0110}};
  EXPECT_EQ(rows, want);
}

TEST_F(FtsRankTest, SubstringsUnderWordTokensArePhrases) {
  SQLite::Statement q(db_, "SELECT rowid, kioku_substrings(t, 'cache ts', 'ts cache') FROM t WHERE t MATCH 'cache' "
                           "ORDER BY rowid");
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  while (q.executeStep()) rows.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getInt64());
  const std::vector<std::pair<std::int64_t, std::int64_t>> want = {{1, 0b01}, {2, 0b01}};
  EXPECT_EQ(rows, want);
}

TEST_F(FtsRankTest, RegisteringTwiceIsHarmless) {
  EXPECT_TRUE(RegisterFtsRank(db_.getHandle()));
  EXPECT_EQ(Scores("kioku_bm25(t)", "\"cache\"").size(), 2u);
}

}  // namespace
}  // namespace kioku::sdk
