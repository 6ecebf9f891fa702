#include "kioku/sdk/fts.hpp"

#include <random>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

using Tokens = std::vector<std::string>;

TEST(FtsTokens, SplitsCompoundsAndKeepsPieces) {
  EXPECT_EQ(FtsTokens("Pre-Commit hooks"), (Tokens{"pre-commit", "pre", "commit", "hooks"}));
  EXPECT_EQ(FtsTokens("snake_case"), (Tokens{"snake_case", "snake", "case"}));
  EXPECT_EQ(FtsTokens("src/fts.cpp"), (Tokens{"src/fts.cpp", "src", "fts", "cpp"}));
}

TEST(FtsTokens, DropsOperatorsAndPunctuation) {
  EXPECT_EQ(FtsTokens("C++"), (Tokens{"c"}));
  EXPECT_EQ(FtsTokens("C#"), (Tokens{"c"}));
  EXPECT_EQ(FtsTokens("it's"), (Tokens{"it", "s"}));
  EXPECT_EQ(FtsTokens("-foo"), (Tokens{"foo"}));
  EXPECT_EQ(FtsTokens("NEAR(a b)"), (Tokens{"near", "a", "b"}));
  EXPECT_EQ(FtsTokens("col:term ^start"), (Tokens{"col", "term", "start"}));
  EXPECT_EQ(FtsTokens("AND OR NOT"), (Tokens{"and", "or", "not"}));
  EXPECT_TRUE(FtsTokens("\"").empty());
  EXPECT_TRUE(FtsTokens("* - + ( ) : ^ \" '").empty());
  EXPECT_TRUE(FtsTokens("").empty());
  EXPECT_TRUE(FtsTokens(" \t\n ").empty());
}

TEST(FtsTokens, KeepsUnicodeWordsAndSplitsOnUnicodePunctuation) {
  EXPECT_EQ(FtsTokens("東京タワー"), (Tokens{"東京タワー"}));
  EXPECT_EQ(FtsTokens("東京、タワー"), (Tokens{"東京", "タワー"}));
  EXPECT_EQ(FtsTokens("Café “quoted”"), (Tokens{"café", "quoted"}));
}

TEST(FtsTokens, DropsInvalidUtf8) {
  EXPECT_EQ(FtsTokens("pre\xFF" "commit"), (Tokens{"pre", "commit"}));
  EXPECT_TRUE(FtsTokens("\xFF\xFE\xC0\xAF").empty());
}

TEST(FtsTokens, DeduplicatesCaseInsensitively) {
  EXPECT_EQ(FtsTokens("foo Foo FOO bar foo"), (Tokens{"foo", "bar"}));
}

TEST(FtsTokens, RespectsLimits) {
  FtsQueryOptions few;
  few.max_tokens = 2;
  EXPECT_EQ(FtsTokens("one two three", few), (Tokens{"one", "two"}));

  FtsQueryOptions trigram;
  trigram.min_token_chars = 3;  // counted in code points, not bytes
  EXPECT_EQ(FtsTokens("ab abc 東京 東京タ", trigram), (Tokens{"abc", "東京タ"}));

  FtsQueryOptions prefix_only;
  prefix_only.max_input_bytes = 5;
  EXPECT_EQ(FtsTokens("hello world", prefix_only), (Tokens{"hello"}));
  prefix_only.max_input_bytes = 4;  // cuts "京" in half: the partial character is dropped
  EXPECT_EQ(FtsTokens("東京", prefix_only), (Tokens{"東"}));

  FtsQueryOptions none;
  none.max_tokens = 0;
  EXPECT_TRUE(FtsTokens("anything", none).empty());
}

TEST(QuoteFtsToken, WrapsAndDoublesQuotes) {
  EXPECT_EQ(QuoteFtsToken("abc"), "\"abc\"");
  EXPECT_EQ(QuoteFtsToken("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteFtsToken(""), "\"\"");
}

TEST(BuildFtsQuery, JoinsQuotedTokens) {
  EXPECT_EQ(BuildFtsQuery("pre-commit hook"),
            "\"pre-commit\" OR \"pre\" OR \"commit\" OR \"hook\"");
  FtsQueryOptions all;
  all.join = FtsJoin::kAll;
  EXPECT_EQ(BuildFtsQuery("AND OR", all), "\"and\" AND \"or\"");
  FtsQueryOptions prefix;
  prefix.prefix_last = true;
  EXPECT_EQ(BuildFtsQuery("memory rec", prefix), "\"memory\" OR \"rec\"*");
  EXPECT_EQ(BuildFtsQuery("pre-com", prefix), "\"pre-com\"* OR \"pre\" OR \"com\"*");
  // The last word's token is marked even when it appeared earlier (deduplicated).
  EXPECT_EQ(BuildFtsQuery("com x-com", prefix), "\"com\"* OR \"x-com\"* OR \"x\"");
}

TEST(BuildFtsQuery, NothingSearchableGivesNullopt) {
  for (const char* text : {"", "   ", "\"", "*", "-", "()", "+++", "\xFF\xFE"}) {
    EXPECT_EQ(BuildFtsQuery(text), std::nullopt) << text;
  }
  FtsQueryOptions trigram;
  trigram.min_token_chars = 3;
  EXPECT_EQ(BuildFtsQuery("東京 ab", trigram), std::nullopt);
}

TEST(BuildFtsQuery, HugeInputIsBounded) {
  std::mt19937 rng(42);
  std::string text;
  for (int i = 0; i < 100'000; ++i) text.push_back(static_cast<char>(rng() % 256));
  FtsQueryOptions options;
  const auto q = BuildFtsQuery(text, options);
  if (q) {
    // At most max_tokens quoted tokens drawn from at most max_input_bytes of input.
    EXPECT_LE(q->size(), options.max_input_bytes * 2 + options.max_tokens * 6);
  }
  EXPECT_LE(FtsTokens(text).size(), options.max_tokens);
}

// Runs BuildFtsQuery output against real FTS5 tables (Debian's SQLite has FTS5 + trigram).
class FtsMatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.exec("CREATE VIRTUAL TABLE words USING fts5(body, tokenize='porter unicode61')");
    db_.exec("CREATE VIRTUAL TABLE tri USING fts5(body, tokenize='trigram')");
    const char* rows[] = {
        "I write C++ and C code",                 // 1
        "run the pre-commit hook before pushing",  // 2
        "it's a trap",                             // 3
        "operators AND OR NOT are words here",     // 4
        "東京タワーは高い",                        // 5
        "snake_case identifiers like user_id",     // 6
        "NEAR the river bank",                     // 7
        "col:term appears literally",              // 8
        "^start anchors the line",                 // 9
        "foo bar baz",                             // 10
    };
    int rowid = 0;
    for (const char* body : rows) {
      ++rowid;
      for (const char* table : {"words", "tri"}) {
        SQLite::Statement q(db_, std::string("INSERT INTO ") + table +
                                     " (rowid, body) VALUES (?, ?)");
        q.bind(1, rowid);
        q.bind(2, body);
        q.exec();
      }
    }
  }

  // Rowids matching `text`; empty when BuildFtsQuery declines. Throws only on a bug.
  std::set<int> Search(const std::string& table, std::string_view text,
                       FtsQueryOptions options = {}) {
    if (table == "tri") options.min_token_chars = 3;
    const auto query = BuildFtsQuery(text, options);
    std::set<int> hits;
    if (!query) return hits;
    SQLite::Statement q(db_, "SELECT rowid FROM " + table + " WHERE " + table +
                                 " MATCH ? ORDER BY bm25(" + table + ")");
    q.bind(1, *query);
    while (q.executeStep()) hits.insert(q.getColumn(0).getInt());
    return hits;
  }

  SQLite::Database db_{":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
};

TEST_F(FtsMatchTest, RawHostileQueriesWouldFail) {
  // Guard for the premise: these raise FTS5 syntax errors when passed raw.
  for (const char* raw : {"C++", "\"", "pre-commit", "it's", "*", "col:term", "AND OR NOT"}) {
    SQLite::Statement q(db_, "SELECT rowid FROM words WHERE words MATCH ?");
    q.bind(1, raw);
    EXPECT_THROW(q.executeStep(), SQLite::Exception) << raw;
  }
}

TEST_F(FtsMatchTest, HostileQueriesFindTheExpectedRows) {
  FtsQueryOptions all;
  all.join = FtsJoin::kAll;
  EXPECT_TRUE(Search("words", "C++").count(1));
  EXPECT_EQ(Search("words", "pre-commit", all), (std::set<int>{2}));
  EXPECT_EQ(Search("words", "it's", all), (std::set<int>{3}));
  EXPECT_EQ(Search("words", "AND OR NOT", all), (std::set<int>{4}));
  EXPECT_TRUE(Search("words", "AND OR NOT").count(4));
  EXPECT_EQ(Search("words", "-foo"), (std::set<int>{10}));
  EXPECT_EQ(Search("words", "NEAR(river bank)", all), (std::set<int>{7}));
  EXPECT_EQ(Search("words", "col:term", all), (std::set<int>{8}));
  EXPECT_EQ(Search("words", "^start", all), (std::set<int>{9}));
  EXPECT_EQ(Search("words", "snake_case", all), (std::set<int>{6}));
  EXPECT_EQ(Search("words", "user_id"), (std::set<int>{6}));
  EXPECT_EQ(Search("words", "hooks", all), (std::set<int>{2}));  // porter stemming
  EXPECT_EQ(Search("words", "pre\xFF" "commit", all), (std::set<int>{2}));
  EXPECT_TRUE(Search("words", "\"").empty());
  EXPECT_TRUE(Search("words", "*").empty());
  EXPECT_TRUE(Search("words", "").empty());
  EXPECT_TRUE(Search("words", " \n\t").empty());
}

TEST_F(FtsMatchTest, PrefixLastCompletesThePartialWord) {
  FtsQueryOptions prefix;
  prefix.prefix_last = true;
  prefix.join = FtsJoin::kAll;
  EXPECT_EQ(Search("words", "river ba", prefix), (std::set<int>{7}));
  EXPECT_EQ(Search("words", "pre-com", prefix), (std::set<int>{2}));
}

TEST_F(FtsMatchTest, TrigramFindsSubstringsAndCjk) {
  FtsQueryOptions all;
  all.join = FtsJoin::kAll;
  EXPECT_EQ(Search("tri", "東京タワー"), (std::set<int>{5}));
  EXPECT_EQ(Search("tri", "タワー"), (std::set<int>{5}));
  EXPECT_TRUE(Search("tri", "東京").empty());  // 2 chars: below the trigram minimum
  EXPECT_EQ(Search("tri", "pre-commit", all), (std::set<int>{2}));
  EXPECT_EQ(Search("tri", "ommi"), (std::set<int>{2}));  // substring inside a word
  EXPECT_EQ(Search("tri", "C++ code", all), (std::set<int>{1}));
  EXPECT_EQ(Search("tri", "user_id"), (std::set<int>{6}));
  FtsQueryOptions prefix;
  prefix.prefix_last = true;
  EXPECT_NO_THROW(Search("tri", "rive", prefix));
}

TEST(TrigramMatch, AndsEachThreeCodePointWindowOnce) {
  EXPECT_EQ(TrigramMatch("ommit"), "\"omm\" AND \"mmi\" AND \"mit\"");
  EXPECT_EQ(TrigramMatch("東京タワー"), "\"東京タ\" AND \"京タワ\" AND \"タワー\"");
  EXPECT_EQ(TrigramMatch("aaaa"), "\"aaa\"");
  EXPECT_EQ(TrigramMatch("a\"b c"), "\"a\"\"b\" AND \"\"\"b \" AND \"b c\"");
  EXPECT_EQ(TrigramMatch("abcdef", 2), "\"abc\" AND \"bcd\"");
  EXPECT_EQ(TrigramMatch("東京"), std::nullopt);
  EXPECT_EQ(TrigramMatch(""), std::nullopt);
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE VIRTUAL TABLE g USING fts5(x, tokenize='trigram', detail=none)");
  db.exec("INSERT INTO g(x) VALUES ('pre-commit hook'), ('commit'), ('東京タワー'), ('x\xFF\xFEy')");
  for (const auto& [text, row] : std::vector<std::pair<std::string, int>>{
           {"ommit h", 1}, {"COMMIT", 2}, {"京タワ", 3}, {"\xFF\xFEy", 4}}) {
    SQLite::Statement q(db, "SELECT rowid FROM g WHERE g MATCH ? ORDER BY rowid DESC LIMIT 1");
    q.bind(1, *TrigramMatch(text));
    ASSERT_TRUE(q.executeStep()) << text;
    EXPECT_EQ(q.getColumn(0).getInt(), row) << text;
  }
}

TEST_F(FtsMatchTest, RandomAndHugeInputsNeverThrow) {
  std::mt19937 rng(7);
  const std::string alphabet = "abcAND OR NOT\"*-+^:()'{}[]._/#\\\xE6\x9D\xB1\xFF\x80 ";
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const int len = static_cast<int>(rng() % 64);
    for (int i = 0; i < len; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
    for (const char* table : {"words", "tri"}) {
      for (FtsJoin join : {FtsJoin::kAny, FtsJoin::kAll}) {
        for (bool prefix_last : {false, true}) {
          FtsQueryOptions options;
          options.join = join;
          options.prefix_last = prefix_last;
          EXPECT_NO_THROW(Search(table, text, options)) << table << " " << text;
        }
      }
    }
  }
  std::string huge;
  for (int i = 0; i < 100'000; ++i) huge.push_back(static_cast<char>(rng() % 256));
  EXPECT_NO_THROW(Search("words", huge));
  EXPECT_NO_THROW(Search("tri", huge));
}

TEST(UnsearchableQuery, OneRuleForPunctuationAndOperatorOnlyText) {
  EXPECT_FALSE(UnsearchableQuery(""));
  EXPECT_FALSE(UnsearchableQuery("  \t "));  // empty: list by recency, not an error
  for (const char* q : {"AND OR NOT", "?!", "\"*-()", "near", "Not", "- + ( ) ^ :", "AND ?"}) {
    const auto why = UnsearchableQuery(q);
    ASSERT_TRUE(why) << q;
    EXPECT_NE(why->find("no searchable words"), std::string::npos);
  }
  for (const char* q : {"do NOT commit", "C++", "and-or", "NOTE", "pre-commit", "東京"}) {
    EXPECT_FALSE(UnsearchableQuery(q)) << q;
  }
  EXPECT_TRUE(IsFtsOperatorWord("NEAR"));
  EXPECT_FALSE(IsFtsOperatorWord("nearby"));
}

}  // namespace
}  // namespace kioku::sdk
