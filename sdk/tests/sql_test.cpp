#include "kioku/sdk/sql.hpp"

#include <optional>

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

class SqlTest : public ::testing::Test {
 protected:
  SqlTest() {
    db.exec("CREATE TABLE t (tool TEXT, n INTEGER, x REAL, note TEXT)");
    db.exec("INSERT INTO t VALUES ('Bash', 1, 0.5, 'a'), ('BashOutput', 2, 1.5, NULL), "
            "('Edit', 3, 2.5, 'c'), ('mcp__kioku__x', 4, 3.5, 'd')");
  }
  std::vector<std::string> Tools(const SqlWhere& w) {
    SQLite::Statement q(db, "SELECT tool FROM t" + w.Sql() + " ORDER BY tool");
    BindAll(q, w.Values());
    std::vector<std::string> out;
    while (q.executeStep()) out.push_back(q.getColumn(0).getString());
    return out;
  }
  SQLite::Database db{":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
};

TEST_F(SqlTest, VariadicBindCoversOptionalViewAndBool) {
  SQLite::Statement ins(db, "INSERT INTO t VALUES (?, ?, ?, ?)");
  const std::string_view tool = "Grep";
  Bind(ins, tool, true, 2.0, std::optional<std::string>{});
  ins.exec();
  SQLite::Statement q(db, "SELECT n, x, note IS NULL FROM t WHERE tool = ?");
  Bind(q, std::string("Grep"));
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getInt64(), 1);
  EXPECT_EQ(q.getColumn(1).getDouble(), 2.0);
  EXPECT_EQ(q.getColumn(2).getInt(), 1);
}

TEST(PrefixUpperBound, IncrementsLastByteAndDropsFfBytes) {
  EXPECT_EQ(PrefixUpperBound("abc"), "abd");
  EXPECT_EQ(PrefixUpperBound(std::string("a\xff\xff")), "b");
  EXPECT_EQ(PrefixUpperBound(std::string("\xff")), "");
  EXPECT_EQ(PrefixUpperBound(""), "");
}

TEST_F(SqlTest, WhereComposesInPrefixAndEqual) {
  SqlWhere none;
  EXPECT_EQ(none.Sql(), "");
  EXPECT_EQ(Tools(none).size(), 4u);

  SqlWhere prefix;
  prefix.Prefix("tool", "Bash");
  EXPECT_EQ(Tools(prefix), (std::vector<std::string>{"Bash", "BashOutput"}));

  SqlWhere both;
  both.In("tool", {"Bash", "Edit", "Nope"}).Prefix("tool", "E").Equal("note", std::nullopt);
  EXPECT_EQ(both.Sql(), " WHERE tool IN (?, ?, ?) AND tool >= ? AND tool < ?");
  EXPECT_EQ(Tools(both), (std::vector<std::string>{"Edit"}));

  SqlWhere empty_in;
  empty_in.In("tool", {});
  EXPECT_TRUE(Tools(empty_in).empty());

  SqlWhere raw;
  raw.Raw("n >= ?", {std::int64_t{3}}).Equal("note", std::string("d"));
  EXPECT_EQ(raw.AndSql(), " AND n >= ? AND note = ?");
  EXPECT_EQ(Tools(raw), (std::vector<std::string>{"mcp__kioku__x"}));
  EXPECT_EQ(Placeholders(3), "?, ?, ?");
}

TEST_F(SqlTest, CacheReusesIdleStatementsResetAndUnbound) {
  StatementCache cache;
  const std::string sql = "SELECT count(*) FROM t WHERE n >= ?";
  SQLite::Statement* first = nullptr;
  {
    CachedStatement q = cache.Get(db, sql);
    first = &*q;
    Bind(*q, 2);
    ASSERT_TRUE(q->executeStep());
    EXPECT_EQ(q->getColumn(0).getInt(), 3);
  }
  EXPECT_EQ(cache.IdleCount(db), 1u);
  CachedStatement again = cache.Get(db, sql);
  EXPECT_EQ(&*again, first);
  ASSERT_TRUE(again->executeStep());  // bindings were cleared: n >= NULL matches nothing
  EXPECT_EQ(again->getColumn(0).getInt(), 0);
}

TEST_F(SqlTest, CacheHandsTwoStatementsToNestedUsersOfOneQuery) {
  StatementCache cache;
  const std::string sql = "SELECT tool FROM t WHERE n >= ? ORDER BY n";
  CachedStatement outer = cache.Get(db, sql);
  Bind(*outer, 1);
  ASSERT_TRUE(outer->executeStep());
  {
    CachedStatement inner = cache.Get(db, sql);  // the old cache reset `outer` here
    EXPECT_NE(&*inner, &*outer);
    Bind(*inner, 4);
    ASSERT_TRUE(inner->executeStep());
    EXPECT_EQ(inner->getColumn(0).getString(), "mcp__kioku__x");
  }
  ASSERT_TRUE(outer->executeStep());
  EXPECT_EQ(outer->getColumn(0).getString(), "BashOutput");
}

TEST_F(SqlTest, CacheEvictionNeverTouchesALease) {
  StatementCache cache(/*max_idle_per_connection=*/1);
  CachedStatement held = cache.Get(db, "SELECT tool FROM t ORDER BY n");
  ASSERT_TRUE(held->executeStep());
  { auto a = cache.Get(db, "SELECT 1"); }
  { auto b = cache.Get(db, "SELECT 2"); }  // idle set full: freed on return
  EXPECT_EQ(cache.IdleCount(db), 1u);
  ASSERT_TRUE(held->executeStep());
  EXPECT_EQ(held->getColumn(0).getString(), "BashOutput");
}

TEST_F(SqlTest, MovedLeaseReturnsOnce) {
  StatementCache cache;
  {
    CachedStatement a = cache.Get(db, "SELECT 1");
    CachedStatement b = std::move(a);
    ASSERT_TRUE(b->executeStep());
  }
  EXPECT_EQ(cache.IdleCount(db), 1u);
}

}  // namespace
}  // namespace kioku::sdk
