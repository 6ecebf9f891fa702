// Issue 10: outbox rows queued under an old project spelling are delivered under the
// project's current key (migration 4 on a database made by kioku 0.1.0).
#include <gtest/gtest.h>

#include <filesystem>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <nlohmann/json.hpp>

#include "episodic_plugin.hpp"
#include "outbox_keys.hpp"
#include "test_runtime.hpp"

namespace kioku::episodic::testing {
namespace {

using nlohmann::json;

std::string One(SQLite::Database& db, const std::string& sql) {
  SQLite::Statement q(db, sql);
  return q.executeStep() ? q.getColumn(0).getString() : "<none>";
}

TEST(OutboxKeysTest, QueuedRowsOfAReleaseDatabaseMoveToTheCurrentKey) {
  kioku::testing::TestRuntime rt;
  std::filesystem::copy_file(KIOKU_RELEASE_DB, rt.dir / "kioku.db");
  {
    SQLite::Database db((rt.dir / "kioku.db").string(), SQLite::OPEN_READWRITE);
    // What 0.1.0 queued for an agent started in apps/api and not yet delivered.
    db.exec(
        "INSERT INTO episodic_outbox (dedupe_key, tool, payload, caller, status, attempts, "
        "created_at) VALUES ('suggest:github.com/acme/webapp//apps/api:we deploy on fridays', "
        "'memory_suggest', '{\"text\":\"We deploy on Fridays\",\"kind\":\"decision\"}', "
        "'{\"agent_id\":\"old-agent\",\"project_id\":\"github.com/acme/webapp//apps/api\"}', "
        "'pending', 0, 1796141076000), (NULL, 'feedback_record', "
        "'{\"records\":[{\"tool\":\"Bash\",\"outcome\":\"success\",\"project_id\":"
        "\"github.com/acme/webapp//apps/api\"},{\"tool\":\"Read\",\"outcome\":\"failure\"}]}', "
        "'{\"agent_id\":\"\",\"project_id\":\"github.com/acme/webapp//apps/api\"}', 'pending', 0, "
        "1796141076001)");
  }
  rt.Add<EpisodicPlugin>("episodic");
  rt.Start();
  auto& db = rt.Db();
  EXPECT_EQ(One(db,
                "SELECT json_extract(caller, '$.project_id') FROM episodic_outbox WHERE tool = "
                "'memory_suggest' AND status = 'pending'"),
            "github.com/acme/webapp");
  EXPECT_EQ(One(db,
                "SELECT dedupe_key FROM episodic_outbox WHERE tool = 'memory_suggest' AND status = "
                "'pending'"),
            "suggest:github.com/acme/webapp:we deploy on fridays");
  EXPECT_EQ(One(db,
                "SELECT json_extract(payload, '$.text') FROM episodic_outbox WHERE tool = "
                "'memory_suggest' AND status = 'pending'"),
            "We deploy on Fridays");
  EXPECT_EQ(One(db,
                "SELECT json_extract(caller, '$.project_id') FROM episodic_outbox WHERE tool = "
                "'feedback_record'"),
            "github.com/acme/webapp");
  EXPECT_EQ(One(db,
                "SELECT json_extract(payload, '$.records[0].project_id') FROM episodic_outbox "
                "WHERE tool = 'feedback_record'"),
            "github.com/acme/webapp");
  EXPECT_EQ(One(db,
                "SELECT json_type(payload, '$.records[1].project_id') FROM episodic_outbox WHERE "
                "tool = 'feedback_record'"),
            "");  // a record without a project gets none
  EXPECT_EQ(One(db,
                "SELECT count(*) FROM episodic_outbox WHERE caller LIKE '%//apps/api%' OR payload "
                "LIKE '%//apps/api%'"),
            "0");
}

TEST(OutboxKeysTest, CurrentKeysAndUnparsableRowsAreLeftAlone) {
  json payload = {
      {"records", json::array({{{"tool", "Bash"}, {"project_id", "github.com/acme/webapp"}}})}};
  json caller = {{"project_id", "github.com/acme/webapp"}};
  EXPECT_FALSE(CanonicalizeOutboxProjects(payload, caller, {}));
  json bad = json::parse("{", nullptr, false);
  json no_project = json::object();
  EXPECT_FALSE(CanonicalizeOutboxProjects(bad, no_project, {}));
}

}  // namespace
}  // namespace kioku::episodic::testing
