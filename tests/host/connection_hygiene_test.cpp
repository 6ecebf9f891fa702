// The runtime hands each thread's connection back clean after every tool call: a statement
// a plugin stepped and never reset (a leaked read transaction) must not make later reads
// stale or later writes fail, and a transaction left open is rolled back.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "kioku/sdk/db.hpp"
#include "test_runtime.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;

class LeakyPlugin final : public sdk::Plugin {
 public:
  explicit LeakyPlugin(sdk::HostServices& host) : host_(host) {}
  std::vector<sdk::Migration> Migrations() const override {
    return {{1, "rows", "CREATE TABLE leaky_rows (id INTEGER PRIMARY KEY)", {}}};
  }
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec leak;
    leak.name = "leaky_peek";
    leak.description = "Steps a cached statement once and keeps it (the bug under test).";
    r.AddTool(leak, [this](const json&, const sdk::CallContext&) {
      if (!cached_) cached_ = std::make_unique<SQLite::Statement>(host_.Db(), "SELECT id FROM leaky_rows");
      cached_->executeStep();  // never reset: a read transaction stays open
      return sdk::ToolResult::Ok("peeked");
    });
    sdk::ToolSpec open;
    open.name = "leaky_begin";
    open.description = "Begins a transaction and returns without ending it.";
    r.AddTool(open, [this](const json&, const sdk::CallContext&) {
      host_.Db().exec("BEGIN IMMEDIATE");
      return sdk::ToolResult::Ok("begun");
    });
    sdk::ToolSpec count;
    count.name = "leaky_count";
    count.description = "Counts rows with a fresh statement.";
    r.AddTool(count, [this](const json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok(std::to_string(host_.Db().execAndGet("SELECT count(*) FROM leaky_rows").getInt()));
    });
    sdk::ToolSpec add;
    add.name = "leaky_add";
    add.description = "Inserts a row.";
    r.AddTool(add, [this](const json&, const sdk::CallContext&) {
      sdk::WithWriteTransaction(host_.Db(), [&] { host_.Db().exec("INSERT INTO leaky_rows DEFAULT VALUES"); });
      return sdk::ToolResult::Ok("added");
    });
  }

 private:
  sdk::HostServices& host_;
  std::unique_ptr<SQLite::Statement> cached_;
};

class ConnectionHygieneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_.Add<LeakyPlugin>("leaky");
    rt_.Start();
    rt_.Call("leaky_add", json::object());
    rt_.Call("leaky_add", json::object());
  }
  kioku::testing::TestRuntime rt_;
};

TEST_F(ConnectionHygieneTest, ALeakedStatementDoesNotHideLaterWrites) {
  ASSERT_FALSE(rt_.Call("leaky_peek", json::object()).is_error);
  // Another thread (its own connection) writes after the leak.
  std::thread writer([&] { EXPECT_FALSE(rt_.Call("leaky_add", json::object()).is_error); });
  writer.join();
  auto count = rt_.Call("leaky_count", json::object());
  EXPECT_EQ(count.text, "3");  // a held snapshot would still say 2
  // And this thread can still write (a stale snapshot cannot upgrade: SQLITE_BUSY_SNAPSHOT).
  EXPECT_FALSE(rt_.Call("leaky_add", json::object()).is_error);
  EXPECT_EQ(rt_.Call("leaky_count", json::object()).text, "4");
}

TEST_F(ConnectionHygieneTest, ATransactionLeftOpenIsRolledBack) {
  ASSERT_FALSE(rt_.Call("leaky_begin", json::object()).is_error);
  std::thread writer([&] { EXPECT_FALSE(rt_.Call("leaky_add", json::object()).is_error); });
  writer.join();
  EXPECT_EQ(rt_.Call("leaky_count", json::object()).text, "3");
}

}  // namespace
}  // namespace kioku::host
