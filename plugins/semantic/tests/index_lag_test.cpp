// The substring and entity-name indexes lag their rows (index_lag.hpp): readers still find
// every row, every change to a row the index does not hold yet leaves it exact, and the
// lag is bounded.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index_lag.hpp"
#include "kioku/sdk/fts.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

class IndexLagTest : public SemanticTest {
 protected:
  // A tool call without TestRuntime::Call's flush of the host's writer thread: the catch-up
  // a write queues stays queued (the test clock does not move, so nothing ages it out).
  Json Lagging(std::string_view tool, const Json& args) {
    const sdk::ToolResult r = rt_->runtime->CallTool(tool, args, kioku::testing::TestRuntime::DefaultCaller());
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    return r.structured;
  }
  std::int64_t Mark(const std::string& name) {
    return Int(rt_->Db(), "SELECT " + MarkSql(name));
  }
  std::int64_t Newest(const std::string& table) { return Int(rt_->Db(), "SELECT coalesce(max(seq), 0) FROM " + table); }
  // Rows the substring index holds with `needle`'s trigrams.
  std::int64_t Indexed(const std::string& needle) {
    SQLite::Statement q(rt_->Db(), "SELECT count(*) FROM semantic_fts_trigram WHERE semantic_fts_trigram MATCH ?");
    q.bind(1, *sdk::TrigramMatch(needle));
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  std::vector<std::string> Recalled(const std::string& query) {
    std::vector<std::string> ids;
    for (const Json& m : Lagging("memory_recall", {{"query", query}}).value("memories", Json::array())) {
      ids.push_back(m["id"].get<std::string>());
    }
    return ids;
  }
  // FTS5's integrity check against the content table (rank 1): the index holds exactly
  // the rows, with their current text. (Not the CJK index, which holds only rows with CJK
  // text, so its row count is not the table's.)
  void ExpectIndexesMatchTheirRows() {
    for (const char* t : {"semantic_fts", "semantic_fts_trigram", "semantic_entities_fts"}) {
      try {
        rt_->Db().exec(std::string("INSERT INTO ") + t + "(" + t + ", rank) VALUES ('integrity-check', 1)");
      } catch (const std::exception& e) {
        ADD_FAILURE() << t << ": " << e.what();
      }
    }
  }
};

TEST_F(IndexLagTest, RecallAndEntitySearchFindRowsTheIndexesDoNotHoldYet) {
  const Json r = Lagging("memory_remember", {{"memories", Json::array({
      {{"text", "Authentication uses PKCE in src/auth/session_manager.ts"}, {"kind", "fact"}},
      {{"text", "Releases go out through the deploy-orchestrator service"}, {"kind", "decision"}}})}});
  const std::string auth = r["results"][0]["id"], deploy = r["results"][1]["id"];
  EXPECT_EQ(Mark("substring"), 0);
  EXPECT_EQ(Mark("entity_name"), 0);
  EXPECT_EQ(Indexed("thentic"), 0);
  // Partial words are the substring list's ("thentic", "orchestr" are no words of the index).
  EXPECT_EQ(Recalled("thentic"), std::vector<std::string>{auth});
  EXPECT_EQ(Recalled("orchestr"), std::vector<std::string>{deploy});
  const Json graph = Lagging("entity_graph", {{"query", "session_mana"}});
  ASSERT_EQ(graph["entities"].size(), 1u) << graph.dump();
  EXPECT_EQ(graph["entities"][0]["name"], "src/auth/session_manager.ts");

  rt_->runtime->FlushDeferredWrites();  // the queued catch-up
  EXPECT_EQ(Mark("substring"), Newest("semantic_memories"));
  EXPECT_EQ(Mark("entity_name"), Newest("semantic_entities"));
  EXPECT_EQ(Indexed("thentic"), 1);
  EXPECT_EQ(Recalled("thentic"), std::vector<std::string>{auth});
  EXPECT_EQ(Lagging("entity_graph", {{"query", "session_mana"}})["entities"].size(), 1u);
  ExpectIndexesMatchTheirRows();
}

// Delete and text-change triggers touch a lagging index only for rows it holds: a row
// edited or purged before its catch-up is indexed with its new text, or not at all.
TEST_F(IndexLagTest, EditsAndPurgesBeforeAndAfterTheCatchUpKeepTheIndexesExact) {
  Json r = Lagging("memory_remember", {{"memories", Json::array({
      {{"text", "The scheduler retries webhooks with backoff"}, {"kind", "fact"}},
      {{"text", "Billing exports run nightly from src/billing/export_job.ts"}, {"kind", "fact"}},
      {{"text", "Caching layer sits in front of the inventory API"}, {"kind", "fact"}}})}});
  const std::string a = r["results"][0]["id"], b = r["results"][1]["id"], c = r["results"][2]["id"];
  Lagging("memory_edit", {{"id", a}, {"text", "The scheduler retries webhooks with jitter"}});
  Lagging("memory_forget", {{"id", b}, {"purge", true}});
  EXPECT_EQ(Mark("substring"), 0);
  rt_->runtime->FlushDeferredWrites();
  ExpectIndexesMatchTheirRows();
  EXPECT_EQ(Recalled("jitte"), std::vector<std::string>{a});
  EXPECT_TRUE(Recalled("ackof").empty());
  EXPECT_EQ(Indexed("export_jo"), 0);

  // Now held by the index: the triggers keep it exact.
  Lagging("memory_edit", {{"id", c}, {"text", "Caching layer sits in front of the catalogue API"}});
  Lagging("memory_forget", {{"id", a}, {"purge", true}});
  r = Lagging("memory_remember", {{"text", "Queue workers drain the outbox table"}, {"kind", "fact"}});
  EXPECT_EQ(Recalled("atalogu"), std::vector<std::string>{c});
  EXPECT_TRUE(Recalled("nventor").empty());
  EXPECT_EQ(Recalled("utbo"), std::vector<std::string>{r["results"][0]["id"].get<std::string>()});
  rt_->runtime->FlushDeferredWrites();
  ExpectIndexesMatchTheirRows();
}

// Past kMaxLagRows rows the write catches up itself, with no writer thread's help.
TEST_F(IndexLagTest, AWriteCatchesUpItselfPastTheBound) {
  const int batches = static_cast<int>(kMaxLagRows / 100) + 1;
  for (int b = 0; b < batches; ++b) {
    Json items = Json::array();
    for (int i = 0; i < 100; ++i) {
      items.push_back({{"text", "service number " + std::to_string(b * 100 + i) + " owns its own queue"}, {"kind", "fact"}});
    }
    Lagging("memory_remember", {{"memories", items}});
    if (b + 1 < batches) {
      EXPECT_EQ(Mark("substring"), 0) << b;
    }
  }
  EXPECT_GT(Newest("semantic_memories"), kMaxLagRows);
  EXPECT_EQ(Mark("substring"), Newest("semantic_memories"));
  ExpectIndexesMatchTheirRows();
}

// Long texts cost the lagging scan by their length: past kMaxLagBytes of text a write
// catches up itself, however few rows lag.
TEST_F(IndexLagTest, AWriteCatchesUpItselfPastTheByteBound) {
  const std::string long_text(3'900, 'x');
  Json items = Json::array();
  const int rows = static_cast<int>(kMaxLagBytes / 3'900) + 2;
  ASSERT_LT(rows, kMaxLagRows);
  for (int i = 0; i < rows && i < 100; ++i) {
    items.push_back({{"text", "note " + std::to_string(i) + " " + long_text}, {"kind", "fact"}});
  }
  Lagging("memory_remember", {{"memories", Json::array({items[0]})}});
  EXPECT_EQ(Mark("substring"), 0);  // one long row lags
  items.erase(items.begin());
  Lagging("memory_remember", {{"memories", items}});
  EXPECT_EQ(Mark("substring"), Newest("semantic_memories"));
  ExpectIndexesMatchTheirRows();
}

// A process that starts on a store another left lagging (killed before its catch-up)
// queues the catch-up itself once the lag is kStaleLagMs old; a fresher lag is left to
// its live writer, so a one-shot reader writes nothing.
TEST_F(IndexLagTest, AProcessStartingOnAStaleLagCatchesUp) {
  Lagging("memory_remember", {{"text", "Webhooks retry with exponential backoff"}, {"kind", "fact"}});
  ASSERT_EQ(Mark("substring"), 0);
  const auto start_at = [&](std::int64_t now_ms) {
    host::RuntimeOptions options;
    options.data_dir = rt_->dir;
    options.clock = std::make_shared<sdk::ManualClock>(now_ms);  // rt_'s writer thread keeps its own
    host::Runtime other(options);
    other.AddPlugin("semantic", [](sdk::HostServices& host) { return std::make_unique<SemanticPlugin>(host); },
                    Json::object());
    other.Start();
    other.FlushDeferredWrites();
  };
  start_at(rt_->clock->NowMs() + kStaleLagMs - 1);
  EXPECT_EQ(Mark("substring"), 0);
  start_at(rt_->clock->NowMs() + kStaleLagMs);
  EXPECT_EQ(Mark("substring"), Newest("semantic_memories"));
  ExpectIndexesMatchTheirRows();
}

// Migration 20 marks the indexes whole, and its triggers keep them exact for rows on either
// side of the mark.
TEST(IndexLagMigration, MarksTheIndexesWholeAndGuardsTheTriggers) {
  const auto migrations = Migrations();
  ASSERT_EQ(migrations[19].version, 20);
  SQLite::Database db = MigratedTo(19);
  db.exec("INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash) VALUES "
          "('fact', 'Authentication uses PKCE', 'active', 'global', 0, 0, 1), "
          "('fact', 'Payments settle daily', 'active', 'global', 0, 0, 2)");
  db.exec("INSERT INTO semantic_fts(rowid, text) SELECT seq, text FROM semantic_memories");
  db.exec("INSERT INTO semantic_fts_trigram(rowid, text) SELECT seq, text FROM semantic_memories");
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'src/pay.ts', 0)");
  db.exec("INSERT INTO semantic_entities_fts(rowid, norm_name) SELECT seq, norm_name FROM semantic_entities");
  db.exec(migrations[19].sql);
  EXPECT_EQ(Int(db, "SELECT seq FROM semantic_index_marks WHERE name = 'substring'"), 2);
  EXPECT_EQ(Int(db, "SELECT seq FROM semantic_index_marks WHERE name = 'entity_name'"), 1);
  // A row above the mark (not indexed) edited and deleted; rows below it edited and deleted.
  db.exec("INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash) VALUES "
          "('fact', 'Search uses trigrams', 'active', 'global', 0, 0, 3)");
  db.exec("INSERT INTO semantic_fts(rowid, text) SELECT seq, text FROM semantic_memories WHERE seq = 3");
  db.exec("UPDATE semantic_memories SET text = 'Search uses words' WHERE seq = 3");
  db.exec("UPDATE semantic_memories SET text = 'Authentication uses OAuth' WHERE seq = 1");
  db.exec("DELETE FROM semantic_memories WHERE seq IN (2, 3)");
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'src/new.ts', 0)");
  db.exec("DELETE FROM semantic_entities");
  for (const char* t : {"semantic_fts", "semantic_fts_trigram", "semantic_entities_fts"}) {
    EXPECT_NO_THROW(db.exec(std::string("INSERT INTO ") + t + "(" + t + ", rank) VALUES ('integrity-check', 1)")) << t;
  }
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_fts_trigram WHERE semantic_fts_trigram MATCH '\"oau\"'"), 1);
}

// A store without the plugin's tables gets the whole chain's schema replayed in one step
// only when the chain leaves no row (host/src/migrations.cpp ChainResult); a mark row
// written for an empty store made every first start run the 20 steps one by one (+17 ms).
TEST(IndexLagMigration, AnEmptyStoreGetsNoMarkRowsSoItsChainIsReplayed) {
  SQLite::Database db = MigratedTo(Migrations().size());
  SQLite::Statement tables(db, "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND "
                               "name NOT LIKE 'sqlite_%'");
  while (tables.executeStep()) {
    const std::string name = tables.getColumn(0).getString();
    EXPECT_EQ(Int(db, "SELECT count(*) FROM \"" + name + "\""), 0) << name;
  }
  EXPECT_EQ(Int(db, "SELECT " + MarkSql("substring")), 0);
}

}  // namespace
}  // namespace kioku::semantic::testing
