// The term filter rival detection keeps per process (term_filter.hpp), the tokenizer that
// feeds it (index_terms.hpp), and the write path with rows another process added.
#include <algorithm>
#include <filesystem>
#include <set>

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Database.h>

#include "index_terms.hpp"
#include "semantic_test_util.hpp"
#include "term_filter.hpp"

namespace kioku::semantic {
namespace {

using testing::Rivals;
using testing::SemanticTest;
using Json = nlohmann::json;

// The tokenizer must split, fold and stem as the word index does, or the filter would miss
// terms the index holds: compared with the index's own vocabulary of one row.
TEST_F(SemanticTest, IndexTokenizerMakesTheTermsTheWordIndexHolds) {
  const std::string text =
      "Handles requests via src/auth/file5.ts; café Über-naïve CAFÉS auth_5 v1.2.3 running ran "
      "日本語テキスト e-mail O'Neil x86_64 ЁЖИК 42nd";
  Remember(text);
  std::vector<std::string> mine;
  IndexTokenizer tokenizer(rt_->Db().getHandle());
  tokenizer.Terms(text, mine);
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  rt_->Db().exec("CREATE VIRTUAL TABLE temp.terms_test USING fts5vocab(main, semantic_fts, row)");
  std::vector<std::string> indexed;
  SQLite::Statement q(rt_->Db(), "SELECT term FROM temp.terms_test ORDER BY term");
  while (q.executeStep()) indexed.push_back(q.getColumn(0).getString());
  EXPECT_EQ(mine, indexed);

  EXPECT_EQ(tokenizer.QueryTerm("Handles"), std::optional<std::string>("handl"));
  EXPECT_EQ(tokenizer.QueryTerm("CAFÉS"), tokenizer.QueryTerm("cafe"));
  EXPECT_EQ(tokenizer.QueryTerm("--"), std::nullopt) << "no term";
  EXPECT_EQ(tokenizer.QueryTerm("auth_5"), std::nullopt) << "two terms: a phrase";
}

TEST(TermFilter, AnswersOnlyForTheRowsItCovers) {
  TermFilter f;
  const auto h = [](const char* t) { return TermFilter::Hash(t); };
  f.Sync(0);
  EXPECT_FALSE(f.Lacks(h("redis"), 0)) << "built for nothing yet: no answer";
  f.Reset({h("redis"), h("cach")}, 10, "A10");
  EXPECT_TRUE(f.Covers(10, "A10"));
  EXPECT_FALSE(f.Covers(10, "B10")) << "another memory at seq 10: the store was replaced";
  EXPECT_FALSE(f.Lacks(h("redis"), 10));
  EXPECT_TRUE(f.Lacks(h("pnpm"), 10));
  EXPECT_FALSE(f.Lacks(h("pnpm"), 12)) << "rows 11 and 12 are not covered";

  f.Extend(10, 12, "A12", {h("pnpm")});
  EXPECT_TRUE(f.Covers(12, "A12"));
  EXPECT_FALSE(f.Lacks(h("pnpm"), 12));
  EXPECT_FALSE(f.Lacks(h("redis"), 12));
  EXPECT_TRUE(f.Lacks(h("yarn"), 12));

  f.Extend(13, 14, "A14", {h("yarn")});  // rows 13 came another way: a gap
  EXPECT_FALSE(f.Covers(14, "A14"));
  EXPECT_FALSE(f.Lacks(h("bun"), 14));
  EXPECT_EQ(f.Size(), 0u);

  f.Reset({h("redis")}, 3, "A3");
  f.Sync(0);
  EXPECT_TRUE(f.Covers(3, "A3"));
  f.Sync(1);  // a delete or an edit
  EXPECT_FALSE(f.Covers(3, "A3"));
  EXPECT_FALSE(f.Lacks(h("bun"), 3));
}

TEST(TermFilter, IsBuiltOnlyWhenTheWritesSinceTheLastBuildPayForIt) {
  EXPECT_TRUE(TermFilter::BuildDue(100, 0, 100)) << "a store this process fills";
  EXPECT_FALSE(TermFilter::BuildDue(100'000, 0, 1)) << "a one-shot write into a large store";
  EXPECT_FALSE(TermFilter::BuildDue(100'000, 12'000, 100));
  EXPECT_TRUE(TermFilter::BuildDue(100'000, 12'400, 100));
  // Just after a build (nothing written since), an edit that dropped it does not rebuild it.
  EXPECT_FALSE(TermFilter::BuildDue(100'000, 0, 100));
}

TEST(TermFilter, KeepsEveryTermAcrossManyExtensions) {
  TermFilter f;
  f.Sync(0);
  f.Reset({}, 0, "");
  std::int64_t through = 0;
  for (int batch = 0; batch < 200; ++batch) {
    std::vector<std::uint64_t> hashes;
    for (int i = 0; i < 50; ++i) hashes.push_back(TermFilter::Hash("t" + std::to_string(batch * 50 + i)));
    f.Extend(through, through + 50, "id" + std::to_string(through + 50), hashes);
    through += 50;
  }
  EXPECT_EQ(f.Size(), 10'000u);
  for (int i = 0; i < 10'000; i += 7) EXPECT_FALSE(f.Lacks(TermFilter::Hash("t" + std::to_string(i)), through)) << i;
  EXPECT_TRUE(f.Lacks(TermFilter::Hash("t10000"), through));
}

// Words new to the store, in two memories of one batch: no row before the write holds
// them, so their rows are the batch's own, which the later memory must still be paired
// with (the earlier write built the filter; the batch's words reach it only after commit).
TEST_F(SemanticTest, ABatchPairsMemoriesThroughWordsNewToTheStore) {
  Remember("Release notes are in the wiki");
  const Json r = Ok("memory_remember",
                    {{"memories", Json::array({{{"text", "The qwertz relay listens on port 4000"}, {"kind", "fact"}},
                                               {{"text", "Docs are built nightly"}, {"kind", "fact"}},
                                               {{"text", "The qwertz relay now listens on port 4100"}, {"kind", "fact"}}})}});
  EXPECT_EQ(Rivals(r.at("results").at(2)), Json::array({r.at("results").at(0).at("id")})) << r.dump();
  EXPECT_EQ(Rivals(r.at("results").at(1)), Json::array()) << r.dump();
}

// A second process writes a memory between two writes of this one. This process's filter
// ends before that row, so it must not answer for it: the rival found only through the
// other row's words is still found.
TEST_F(SemanticTest, RowsAnotherProcessAddedAreLookedUp) {
  for (int i = 0; i < 3; ++i) Remember("Release notes for sprint " + std::to_string(i) + " are in the wiki");
  host::RuntimeOptions o;
  o.data_dir = rt_->dir;
  o.clock = rt_->clock;
  auto other = std::make_unique<host::Runtime>(o);
  other->AddPlugin("semantic", [](sdk::HostServices& host) { return std::make_unique<SemanticPlugin>(host); },
                   Json::object());
  other->Start();
  const sdk::ToolResult written = other->CallTool(
      "memory_remember", {{"text", "The zorblax queue drains every 30 seconds"}, {"kind", "fact"}},
      kioku::testing::TestRuntime::DefaultCaller());
  ASSERT_FALSE(written.is_error) << written.text;
  const std::string zorblax = written.structured.at("results").at(0).at("id");
  other.reset();

  const Json r = Ok("memory_remember", {{"text", "The zorblax queue drains every 45 seconds"}, {"kind", "fact"}});
  EXPECT_EQ(Rivals(r.at("results").at(0)), Json::array({zorblax})) << r.dump();
}

// kioku.db replaced under the process by a store that reached the same newest seq another
// way (a restore with sqlite3: no trigger fires, the epochs stand still). The filter holds
// the terms of rows that are gone and not those of the rows now there, so it must not
// answer: the rival a fresh process finds through the new rows' words is found.
TEST_F(SemanticTest, AStoreRestoredToTheSameSeqIsNotAnsweredFromTheFilter) {
  for (int i = 0; i < 3; ++i) Remember("Release notes for sprint " + std::to_string(i) + " are in the wiki");
  const std::filesystem::path fork = rt_->dir / "fork";
  std::filesystem::create_directories(fork);
  rt_->Db().exec("VACUUM INTO '" + (fork / "kioku.db").string() + "'");
  Remember("Docs are built nightly");  // seq 4 here; its words reach this process's filter
  host::RuntimeOptions o;
  o.data_dir = fork;
  o.clock = rt_->clock;
  {
    host::Runtime other(o);  // the copy gets a seq 4 of its own
    other.AddPlugin("semantic", [](sdk::HostServices& host) { return std::make_unique<SemanticPlugin>(host); },
                    Json::object());
    other.Start();
    const sdk::ToolResult r = other.CallTool("memory_remember", {{"text", "The grommix pool holds 8 connections"}, {"kind", "fact"}},
                                             kioku::testing::TestRuntime::DefaultCaller());
    ASSERT_FALSE(r.is_error) << r.text;
  }
  {
    SQLite::Database from((fork / "kioku.db").string());
    SQLite::Backup restore(rt_->Db(), from);
    restore.executeStep();
  }
  const Json r = Ok("memory_remember", {{"text", "The grommix pool holds 16 connections"}, {"kind", "fact"}});
  EXPECT_EQ(Rivals(r.at("results").at(0)).size(), 1u) << r.dump();
}

}  // namespace
}  // namespace kioku::semantic
