// RenameColumnsMigration and UpgradeSectionColumns: one list renames columns in the database
// and in export sections written before the rename.
#include <gtest/gtest.h>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <nlohmann/json.hpp>

#include "kioku/sdk/column_renames.hpp"

namespace kioku::sdk {
namespace {

using nlohmann::json;

TEST(RenameColumnsMigration, RenamesKeepingRowsIndexesAndTriggers) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, done_ms INTEGER);"
          "CREATE INDEX t_open ON t(at_ms) WHERE done_ms IS NULL;"
          "CREATE TABLE log (n INTEGER);"
          "CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.at_ms); END;"
          "INSERT INTO t (at_ms) VALUES (5);");
  const Migration m = RenameColumnsMigration({7, {{"t", "at_ms", "at"}, {"t", "done_ms", "done_at"}}}, "names");
  EXPECT_EQ(m.version, 7);
  EXPECT_EQ(m.description, "names");
  db.exec(m.sql);
  db.exec("INSERT INTO t (at) VALUES (9)");
  SQLite::Statement q(db, "SELECT sum(at), count(done_at), (SELECT sum(n) FROM log) FROM t WHERE done_at IS NULL");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getInt(), 14);
  EXPECT_EQ(q.getColumn(1).getInt(), 0);
  EXPECT_EQ(q.getColumn(2).getInt(), 14);  // 5 before the rename, 9 through the rewritten trigger
  SQLite::Statement idx(db, "SELECT sql FROM sqlite_schema WHERE name = 't_open'");
  ASSERT_TRUE(idx.executeStep());
  const std::string sql = idx.getColumn(0).getString();
  EXPECT_NE(sql.find("done_at"), std::string::npos) << sql;
  EXPECT_EQ(sql.find("_ms"), std::string::npos) << sql;
}

TEST(UpgradeSectionColumns, AppliesOnlyRenamesNewerThanTheSectionInVersionOrder) {
  const std::vector<ColumnRenames> renames = {{5, {{"t", "b", "c"}}}, {3, {{"t", "a", "b"}, {"u", "x", "y"}}}};
  json section = {{"tables", {{"t", {{"columns", {"id", "a"}}, {"rows", json::array()}}},
                              {"u", {{"columns", {"x"}}, {"rows", json::array()}}}}}};
  json v2 = section;
  UpgradeSectionColumns(v2, 2, renames);
  EXPECT_EQ(v2["tables"]["t"]["columns"], json({"id", "c"}));
  EXPECT_EQ(v2["tables"]["u"]["columns"], json({"y"}));
  json v3 = section;
  UpgradeSectionColumns(v3, 3, renames);  // written after the first rename
  EXPECT_EQ(v3["tables"]["t"]["columns"], json({"id", "a"}));  // only b → c applies, and it has no b
  EXPECT_EQ(v3["tables"]["u"]["columns"], json({"x"}));
  json v5 = section;
  UpgradeSectionColumns(v5, 5, renames);
  EXPECT_EQ(v5, section);
}

TEST(UpgradeSectionColumns, LeavesOtherShapesAlone) {
  json not_tables = {{"items", {1, 2}}};
  UpgradeSectionColumns(not_tables, 0, {{1, {{"t", "a", "b"}}}});
  EXPECT_EQ(not_tables, json({{"items", {1, 2}}}));
  json missing_table = {{"tables", {{"v", {{"columns", {"a"}}}}}}};
  UpgradeSectionColumns(missing_table, 0, {{1, {{"t", "a", "b"}}}});
  EXPECT_EQ(missing_table["tables"]["v"]["columns"], json({"a"}));
}

}  // namespace
}  // namespace kioku::sdk
