#pragma once
// Shared fixture for the semantic plugin's unit tests: a hermetic TestRuntime with the
// plugin loaded, plus small helpers over Runtime::Call (schema-validated arguments).

#include <gtest/gtest.h>

#include <string>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "schema.hpp"
#include "semantic_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku::semantic::testing {

using Json = nlohmann::json;

/// A WHERE condition on semantic_memories for the memory with id `id` (ids are computed:
/// the view semantic_memory_ids shows them).
inline std::string IdIs(const std::string& id) {
  return "seq IN (SELECT seq FROM semantic_memory_ids WHERE id = '" + id + "')";
}

/// The integer a one-value query gives.
inline std::int64_t Int(SQLite::Database& db, const std::string& sql) { return db.execAndGet(sql).getInt64(); }

/// A database the first `version` migrations made, foreign keys on as a server has them.
inline SQLite::Database MigratedTo(std::size_t version) {
  SQLite::Database db = sdk::OpenDatabase(":memory:");
  const auto migrations = Migrations();
  for (std::size_t i = 0; i < version && i < migrations.size(); ++i) {
    const sdk::MigrationForeignKeys keys(db, migrations[i]);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[i]); });
  }
  return db;
}

/// The ids a memory_remember result says the memory may replace ([] when it names none).
/// Read with value(): operator[] of a const json on a missing key is undefined behaviour,
/// which let `r["results"][0]["rivals"].size()` pass with no rivals at all.
inline Json Rivals(const Json& result) { return result.value("rivals", Json::array()); }

class SemanticTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(Json::object()); }

  void Start(const Json& settings, int busy_timeout_ms = 5000) {
    rt_ = std::make_unique<kioku::testing::TestRuntime>(busy_timeout_ms);
    rt_->Add<SemanticPlugin>("semantic", settings);
    rt_->Start();
  }

  sdk::ToolResult Call(std::string_view tool, const Json& args,
                       sdk::Caller caller = kioku::testing::TestRuntime::DefaultCaller()) {
    return rt_->Call(tool, args, caller);
  }

  /// Calls and asserts success; returns structuredContent.
  Json Ok(std::string_view tool, const Json& args,
          sdk::Caller caller = kioku::testing::TestRuntime::DefaultCaller()) {
    sdk::ToolResult r = Call(tool, args, caller);
    EXPECT_FALSE(r.is_error) << tool << " failed: " << r.text;
    return r.structured;
  }

  /// Calls and asserts an isError result; returns the message.
  std::string Err(std::string_view tool, const Json& args,
                  sdk::Caller caller = kioku::testing::TestRuntime::DefaultCaller()) {
    sdk::ToolResult r = Call(tool, args, caller);
    EXPECT_TRUE(r.is_error) << tool << " unexpectedly succeeded: " << r.text;
    return r.text;
  }

  /// memory_remember of one memory; returns its id.
  std::string Remember(const std::string& text, const std::string& kind = "fact",
                       Json extra = Json::object()) {
    extra["text"] = text;
    extra["kind"] = kind;
    Json s = Ok("memory_remember", extra);
    if (!s.contains("results")) return "";
    return s["results"][0]["id"].get<std::string>();
  }

  /// Ids returned by memory_recall, best first.
  std::vector<std::string> RecallIds(Json args) {
    Json s = Ok("memory_recall", args);
    std::vector<std::string> ids;
    if (!s.contains("memories")) return ids;
    for (const Json& m : s["memories"]) ids.push_back(m["id"].get<std::string>());
    return ids;
  }

  /// Row count of a table (for "nothing changed" assertions).
  int Count(const std::string& table, const std::string& where = "1") {
    SQLite::Statement q(rt_->Db(), "SELECT COUNT(*) FROM " + table + " WHERE " + where);
    q.executeStep();
    return q.getColumn(0).getInt();
  }

  /// A fingerprint of every semantic table, to prove bad input changed nothing.
  std::string Snapshot() {
    std::string out;
    for (const char* t : {"semantic_memories", "semantic_memory_history", "semantic_memory_tags",
                          "semantic_entities", "semantic_memory_entities", "semantic_relations"}) {
      SQLite::Statement q(rt_->Db(), std::string("SELECT * FROM ") + t + " ORDER BY 1");
      while (q.executeStep()) {
        for (int i = 0; i < q.getColumnCount(); ++i) out += q.getColumn(i).getString() + "|";
        out += "\n";
      }
    }
    return out;
  }

  void AdvanceDays(double days) {
    rt_->clock->Advance(static_cast<std::int64_t>(days * sdk::kMsPerDay));
  }

  std::unique_ptr<kioku::testing::TestRuntime> rt_;
};

inline bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace kioku::semantic::testing
