// RunMigrations on a store without the plugin's tables: the chain's result is created in one
// transaction, and it must be the schema the steps one by one would have left.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <string>
#include <vector>

#include "host_test_util.hpp"
#include "kioku/sdk/db.hpp"
#include "migrations.hpp"

namespace kioku::host {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;
using testing::TempDir;

// Every step the host supports: tables (one AUTOINCREMENT), an index, a renamed column, FTS5
// with its trigger, an added column, and a code step. `files` records the database each code step ran on.
std::vector<sdk::Migration> Chain(std::vector<std::string>& files) {
  return {{1, "items",
           "CREATE TABLE m_items (id INTEGER PRIMARY KEY, txt TEXT NOT NULL, kind TEXT);"
           "CREATE TABLE m_log (id INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL)",
           {}},
          {2, "index", "CREATE INDEX m_items_kind ON m_items(kind)", {}},
          {3, "rename", "ALTER TABLE m_items RENAME COLUMN txt TO text", {}},
          {4, "fts",
           "CREATE VIRTUAL TABLE m_fts USING fts5(text, tokenize = 'porter unicode61');"
           "CREATE TRIGGER m_items_ai AFTER INSERT ON m_items BEGIN "
           "INSERT INTO m_fts(rowid, text) VALUES (new.id, new.text); END;",
           {}},
          {5, "code", "", [&files](SQLite::Database& db) {
             files.push_back(db.getFilename());
             db.exec("ALTER TABLE m_items ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0");
           }}};
}

std::vector<std::string> Schema(SQLite::Database& db) {
  std::vector<std::string> out;
  SQLite::Statement q(db, "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema "
                          "WHERE name NOT LIKE 'kioku_%' ORDER BY name");
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

class MigrationsTest : public ::testing::Test {
 protected:
  SQLite::Database Open(const std::string& name) { return sdk::OpenDatabase((dir_.path() / name).string()); }
  TempDir dir_;
};

TEST_F(MigrationsTest, FreshStoreGetsTheSchemaTheStepsLeave) {
  std::vector<std::string> stepwise_files, fresh_files;
  auto stepwise = Open("stepwise.db");
  auto chain = Chain(stepwise_files);
  // A store at version 2 upgraded step by step ...
  RunMigrations(stepwise, "m", {chain[0], chain[1]});
  RunMigrations(stepwise, "m", chain);
  // ... and a store that never had the plugin.
  auto fresh = Open("fresh.db");
  RunMigrations(fresh, "m", Chain(fresh_files));

  EXPECT_EQ(Schema(fresh), Schema(stepwise));
  EXPECT_EQ(AppliedVersion(fresh, "m"), 5);
  EXPECT_THAT(stepwise_files, ElementsAre(stepwise.getFilename()));
  // On the fresh store the code step ran only on the scratch database.
  ASSERT_EQ(fresh_files.size(), 1u);
  EXPECT_NE(fresh_files[0], fresh.getFilename());

  // The trigger and the FTS table work on the created schema.
  fresh.exec("INSERT INTO m_items(text, kind) VALUES ('ports are configured in vite.config.ts', 'fact')");
  EXPECT_EQ(fresh.execAndGet("SELECT count(*) FROM m_fts WHERE m_fts MATCH 'configure'").getInt(), 1);
}

TEST_F(MigrationsTest, RowsAndFtsSettingsAStepWritesAreKept) {
  const std::vector<sdk::Migration> chain = {
      {1, "kinds", "CREATE TABLE m_kinds (name TEXT PRIMARY KEY); INSERT INTO m_kinds VALUES ('fact'), ('rule')", {}},
      {2, "fts", "CREATE VIRTUAL TABLE m_fts USING fts5(text)", {}},
      {3, "weights", "INSERT INTO m_fts(m_fts, rank) VALUES ('rank', 'bm25(2.0)')", {}}};
  auto db = Open("kioku.db");
  RunMigrations(db, "m", {chain[0]});
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM m_kinds").getInt(), 2);

  auto other = Open("other.db");
  RunMigrations(other, "m", {{1, "fts", chain[1].sql, {}}, {2, "weights", chain[2].sql, {}}});
  EXPECT_EQ(other.execAndGet("SELECT v FROM m_fts_config WHERE k = 'rank'").getString(), "bm25(2.0)");
  EXPECT_EQ(AppliedVersion(other, "m"), 2);

  // Rows of an FTS5 table, and an AUTOINCREMENT counter.
  auto third = Open("third.db");
  RunMigrations(third, "m",
                {{1, "seeded", "CREATE VIRTUAL TABLE m_words USING fts5(w); INSERT INTO m_words VALUES ('pnpm')", {}},
                 {2, "counter",
                  "CREATE TABLE m_log (id INTEGER PRIMARY KEY AUTOINCREMENT, e TEXT);"
                  "INSERT INTO m_log(e) VALUES ('a'); DELETE FROM m_log",
                  {}}});
  EXPECT_EQ(third.execAndGet("SELECT count(*) FROM m_words WHERE m_words MATCH 'pnpm'").getInt(), 1);
  third.exec("INSERT INTO m_log(e) VALUES ('b')");
  EXPECT_EQ(third.execAndGet("SELECT max(id) FROM m_log").getInt(), 2);  // the counter went on
}

// A table rebuilt by INSERT … SELECT from an empty one leaves an AUTOINCREMENT counter at 0
// (SQLite writes it at every INSERT into such a table): no data, so the fresh store still
// gets the chain's result in one step, and the counter starts as it would.
TEST_F(MigrationsTest, AnEmptyRebuildOfAnAutoincrementTableKeepsTheOneStepCreate) {
  std::vector<std::string> files;
  const std::vector<sdk::Migration> chain = {
      {1, "log", "CREATE TABLE m_log (id INTEGER PRIMARY KEY AUTOINCREMENT, e TEXT)", {}},
      {2, "rebuild", "", [&files](SQLite::Database& db) {
         files.push_back(db.getFilename());
         db.exec("CREATE TABLE m_log_v2 (id INTEGER PRIMARY KEY AUTOINCREMENT, e TEXT NOT NULL DEFAULT '');"
                 "INSERT INTO m_log_v2(id, e) SELECT id, coalesce(e, '') FROM m_log;"
                 "DROP TABLE m_log; ALTER TABLE m_log_v2 RENAME TO m_log");
       }}};
  auto fresh = Open("fresh.db");
  RunMigrations(fresh, "m", chain);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0], fresh.getFilename()) << "the rebuild ran on the store itself: the chain was not used";
  EXPECT_EQ(AppliedVersion(fresh, "m"), 2);
  fresh.exec("INSERT INTO m_log(e) VALUES ('a')");
  EXPECT_EQ(fresh.execAndGet("SELECT id FROM m_log").getInt(), 1);
}

TEST_F(MigrationsTest, AStepThatFailsOnAFreshStoreIsNamedAndTheOnesBeforeItStay) {
  auto db = Open("kioku.db");
  try {
    RunMigrations(db, "m", {{1, "ok", "CREATE TABLE m_a (x)", {}}, {2, "bad", "CREATE TABLE m_a (y)", {}}});
    FAIL() << "migration 2 should have failed";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), StartsWith("plugin 'm': migration 2 (bad) failed: "));
  }
  EXPECT_EQ(AppliedVersion(db, "m"), 1);
}

}  // namespace
}  // namespace kioku::host
