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

// kioku_trigram_substrings gives, for a text outside any index, what kioku_substrings gives
// for that text in a trigram table: every needle against every row, ASCII or not, with the
// tokenizer's case folding (the Kelvin sign folds to "k", "Ä" to "ä", "Σ" to "σ").
TEST(FtsSubstringsTest, TrigramSubstringsOfATextEqualTheIndexedRows) {
  SQLite::Database db = OpenDatabase(":memory:");
  db.exec("CREATE VIRTUAL TABLE g USING fts5(x, tokenize='trigram', detail=none, columnsize=0)");
  const std::vector<std::string> rows = {
      "authentication",  "The AUTHOR authenticates", "thenauth", "ÄRGER im Büro", "\u212Aey rotation", "KEY rotation",
      "ΣΟΦΙΑ σοφία",     "東京都の設定ファイル",     "ab",       "",              "x\u0130stanbul İSTANBUL",
      "src/Auth/File12.TS handles auth", "emoji 😀😀 auth", "aut hen tic", std::string("nul ahead\0 hidden auth", 22),
      std::string("NÜL ahead\0 hidden auth", 23)};
  const std::vector<std::string> needles = {"authen", "ärger", "büro", "ab", "key", "KEY", "\u212Aey", "σοφ",
                                            "ΣΟΦ",    "京都の", "istanbul", "file12.ts", "😀😀 a", "hen tic", "Auth", "hidden"};
  SQLite::Statement add(db, "INSERT INTO g(rowid, x) VALUES (?, ?)");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    add.reset();
    add.bind(1, static_cast<std::int64_t>(i + 1));
    add.bind(2, rows[i]);
    add.exec();
  }
  std::string args;
  for (std::size_t i = 0; i < needles.size(); ++i) args += ", ?";
  int rows_holding_any = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    SQLite::Statement one(db, "SELECT kioku_substrings(g" + args + "), kioku_trigram_substrings(x" + args +
                                  ") FROM g WHERE rowid = ?");
    int i = 1;
    for (const std::string& n : needles) one.bind(i++, n);
    for (const std::string& n : needles) one.bind(i++, n);
    one.bind(i, static_cast<std::int64_t>(r + 1));
    ASSERT_TRUE(one.executeStep()) << r;
    EXPECT_EQ(one.getColumn(1).getInt64(), one.getColumn(0).getInt64()) << "row " << rows[r];
    if (one.getColumn(0).getInt64() != 0) ++rows_holding_any;
  }
  EXPECT_EQ(rows_holding_any, 11);  // of 16: the rows compared hold needles, not only none
  SQLite::Statement spot(db, "SELECT kioku_trigram_substrings('The AUTHOR authenticates', 'authen', 'tho', 'xyz'), "
                             "kioku_trigram_substrings(NULL, 'abc'), kioku_trigram_substrings('\u212Aey', 'KEY')");
  ASSERT_TRUE(spot.executeStep());
  EXPECT_EQ(spot.getColumn(0).getInt64(), 0b011);
  EXPECT_EQ(spot.getColumn(1).getInt64(), 0);
  EXPECT_EQ(spot.getColumn(2).getInt64(), 1);
}

TEST(FtsSubstringsTest, TrigramSubstringsIsNullPastSixtyThreeNeedles) {
  SQLite::Database db = OpenDatabase(":memory:");
  std::string sql = "SELECT kioku_trigram_substrings('abcdef'";
  for (int i = 0; i < 64; ++i) sql += ", 'abc'";
  SQLite::Statement q(db, sql + ")");
  ASSERT_TRUE(q.executeStep());
  EXPECT_TRUE(q.getColumn(0).isNull());
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
