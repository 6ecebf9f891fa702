// RewriteProjectKeys: rows stored under old spellings of a project move to its current key.
#include <gtest/gtest.h>

#include <filesystem>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/project_keys.hpp"

namespace kioku::sdk {
namespace {

std::string Column(SQLite::Database& db, const std::string& sql) {
  SQLite::Statement q(db, sql);
  std::string out;
  while (q.executeStep()) out += (out.empty() ? "" : ",") + q.getColumn(0).getString();
  return out;
}

TEST(RewriteProjectKeysTest, SubfolderKeysMoveAndPathsGainThePrefix) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, project TEXT, path TEXT NOT NULL DEFAULT '')");
  db.exec("INSERT INTO t (project, path) VALUES ('github.com/acme/app//apps/api', 'src/a.ts'), "
          "('github.com/acme/app//apps/api', ''), ('github.com/acme/app', 'README.md'), (NULL, '')");
  EXPECT_EQ(RewriteProjectKeys(db, {"t", "project", "path"}, {}), 2);
  EXPECT_EQ(Column(db, "SELECT project || ':' || path FROM t WHERE project IS NOT NULL ORDER BY id"),
            "github.com/acme/app:apps/api/src/a.ts,github.com/acme/app:,github.com/acme/app:README.md");
}

TEST(RewriteProjectKeysTest, UniqueClashKeepsTheOldRowInsteadOfDestroyingIt) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE p (project TEXT, agent TEXT, PRIMARY KEY (project, agent))");
  db.exec("INSERT INTO p VALUES ('github.com/acme/app//x', 'a'), ('github.com/acme/app', 'a'), "
          "('github.com/acme/app//y', 'b')");
  EXPECT_EQ(RewriteProjectKeys(db, {"p", "project", ""}, {}), 1);
  EXPECT_EQ(Column(db, "SELECT count(*) FROM p"), "3");
  EXPECT_EQ(Column(db, "SELECT project FROM p WHERE agent = 'b'"), "github.com/acme/app");
}

TEST(RewriteProjectKeysTest, MigrationRunsEveryColumn) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE a (project TEXT); CREATE TABLE b (project_id TEXT);"
          "INSERT INTO a VALUES ('h.example/o/r//sub'); INSERT INTO b VALUES ('/nowhere/plain/');");
  const Migration m = ProjectKeysMigration(7, {{"a", "project", ""}, {"b", "project_id", ""}}, {});
  EXPECT_EQ(m.version, 7);
  ASSERT_TRUE(m.apply);
  m.apply(db);
  EXPECT_EQ(Column(db, "SELECT project FROM a"), "h.example/o/r");
  EXPECT_EQ(Column(db, "SELECT project_id FROM b"), "/nowhere/plain");
}

}  // namespace
}  // namespace kioku::sdk
