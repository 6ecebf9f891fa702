// The procedural tools through the real call path (schema validation, ToolError → isError,
// events), with the affective layer loaded to check that procedure runs reach it.
#include <gtest/gtest.h>

#include "affective_plugin.hpp"
#include "procedural_plugin.hpp"
#include "test_runtime.hpp"
#include "working_plugin.hpp"

namespace kioku::procedural {
namespace {

using nlohmann::json;

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt.Add<ProceduralPlugin>("procedural");
    rt.Add<affective::AffectivePlugin>("affective");
    rt.Add<working::WorkingPlugin>("working");
    rt.Start();
  }
  json Ok(std::string_view tool, const json& args) {
    auto r = rt.Call(tool, args);
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    text = r.text;
    return r.structured;
  }
  std::string Err(std::string_view tool, const json& args) {
    auto r = rt.Call(tool, args);
    EXPECT_TRUE(r.is_error) << tool << " unexpectedly succeeded: " << r.text;
    return r.text;
  }
  int Count(const std::string& table) {
    return rt.Db().execAndGet("SELECT count(*) FROM " + table).getInt();
  }
  kioku::testing::TestRuntime rt;
  std::string text;
};

TEST_F(ToolsTest, CreateCheckStatusValidateArchive) {
  auto created = Ok("plan_create", json::parse(R"({"title": "Ship v2", "tasks": [
      {"title": "build"},
      {"title": "test", "depends_on": [1], "criteria": ["all green"]},
      {"title": "test", "depends_on": ["t2"]}]})"));
  const std::string id = created["plan_id"];
  EXPECT_EQ(id.size(), 26u);
  EXPECT_EQ(created["ready"], json::array({"t1"}));
  const std::string prefix = id.substr(0, 8);
  auto st = Ok("plan_status", {{"plan", prefix}});
  EXPECT_EQ(st["plan"]["progress"]["percent"], 0);
  EXPECT_EQ(st["tasks"].size(), 3u);
  EXPECT_EQ(st["tasks"][2]["title"], "test");  // duplicate titles, told apart by id
  EXPECT_EQ(st["tasks"][1]["id"], "t2");

  EXPECT_NE(Err("plan_check", {{"plan", prefix}, {"task", "t2"}, {"state", "done"}})
                .find("depends on unfinished t1"),
            std::string::npos);
  auto c = Ok("plan_check", {{"plan", prefix}, {"task", "t1"}, {"state", "done"}, {"note", "ok"}});
  EXPECT_EQ(c["now_ready"], json::array({"t2"}));
  EXPECT_EQ(c["task"]["v"], 2);
  EXPECT_NE(Err("plan_check", {{"plan", prefix}, {"task", "t9"}, {"state", "done"}}).find("unknown task t9"),
            std::string::npos);
  EXPECT_NE(Err("plan_validate", {{"plan", prefix}, {"archive", true}}).find("archive refused"),
            std::string::npos);
  Ok("plan_check", {{"plan", prefix}, {"task", 2}, {"state", "done"}, {"met", {1}}});
  Ok("plan_check", {{"plan", prefix}, {"task", "t3"}, {"state", "skipped"}, {"note", "dup"}});
  auto v = Ok("plan_validate", {{"plan", prefix}, {"archive", true}});
  EXPECT_TRUE(v["passed"]);
  EXPECT_TRUE(v["archived"]);
  st = Ok("plan_status", {{"plan", id}, {"audit", 10}});
  EXPECT_EQ(st["plan"]["status"], "archived");
  EXPECT_GE(st["audit"].size(), 5u);
  EXPECT_EQ(st["audit"][0]["action"], "plan.archive");
  auto list = Ok("plan_status", {{"status", "archived"}});
  EXPECT_EQ(list["plans"].size(), 1u);
  list = Ok("plan_status", json::object());
  EXPECT_EQ(list["plans"].size(), 0u);
}

TEST_F(ToolsTest, BadInputIsRefusedAndNothingIsWritten) {
  EXPECT_NE(Err("plan_create", json::parse(R"({"title": "x", "tasks": [
                    {"title": "a", "depends_on": [2]}, {"title": "b", "depends_on": [1]}]})"))
                .find("dependency cycle t1 → t2 → t1"),
            std::string::npos);
  EXPECT_NE(Err("plan_create", json::parse(R"({"title": "x", "tasks": [{"title": "a", "depends_on": ["t7"]}]})"))
                .find("t1 to t1"),
            std::string::npos);
  EXPECT_NE(Err("plan_create", {{"markdown", "# T\n- [ ] a\n  - [ ] b\n   - [ ] c\n"}}).find("Markdown line 4: item indented 3 columns matches no enclosing item"),
            std::string::npos);
  EXPECT_NE(Err("plan_create", json::parse(R"({"title": "x", "tasks": [{"title": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}]})"))
                .find("secret"),
            std::string::npos);
  EXPECT_EQ(Count("procedural_plans"), 0);
  EXPECT_EQ(Count("procedural_tasks"), 0);
  EXPECT_NE(Err("procedure_save", {{"name", "x"}, {"when", "y"}, {"steps", {"  "}}}).find("steps[0] is empty"),
            std::string::npos);
  Err("procedure_save", {{"name", "x"}, {"when", "y"}, {"steps", json::array()}});
  EXPECT_EQ(Count("procedural_procedures"), 0);
}

TEST_F(ToolsTest, MarkdownImportExportRoundTrip) {
  const std::string md =
      "# Release\n\nShip it.\n\n- [x] Changelog\n- [ ] Publish\n  - [ ] Tag\n  - [x] Build\n"
      "- [ ] Announce <!-- kioku:t5 after:t2 -->\n";
  auto created = Ok("plan_create", {{"markdown", md}});
  const std::string id = created["plan_id"];
  auto st = Ok("plan_status", {{"plan", id}});
  EXPECT_EQ(st["plan"]["title"], "Release");
  EXPECT_EQ(st["tasks"][1]["after"], json::array({"t3", "t4"}));  // parent waits for children
  EXPECT_EQ(st["tasks"][2]["parent"], "t2");
  EXPECT_EQ(st["ready"], json::parse(R"([{"id": "t3", "title": "Tag"}])"));
  auto exported = Ok("plan_status", {{"plan", id}, {"markdown", true}});
  EXPECT_EQ(exported["markdown"], md);
  // Import the export: the same plan again.
  auto again = Ok("plan_create", {{"markdown", exported["markdown"]}});
  auto st2 = Ok("plan_status", {{"plan", again["plan_id"]}, {"markdown", true}});
  EXPECT_EQ(st2["markdown"], md);
}

TEST_F(ToolsTest, ThousandTaskPlanIsBoundedButWorks) {
  json tasks = json::array();
  for (int i = 1; i <= 1000; ++i) {
    json t = {{"title", "task " + std::to_string(i)}};
    if (i > 1) t["depends_on"] = {i - 1};
    tasks.push_back(t);
  }
  const std::string id = Ok("plan_create", {{"title", "big"}, {"tasks", tasks}})["plan_id"];
  auto st = Ok("plan_status", {{"plan", id}});
  EXPECT_EQ(st["tasks"].size(), 50u);
  EXPECT_EQ(st["next_offset"], 50);
  EXPECT_LT(text.size(), 6000u);
  st = Ok("plan_status", {{"plan", id}, {"offset", 990}});
  EXPECT_EQ(st["tasks"].size(), 10u);
  EXPECT_FALSE(st.contains("next_offset"));
  EXPECT_NE(Err("plan_check", {{"plan", id}, {"task", "t1000"}, {"state", "done"}}).find("t999"),
            std::string::npos);
}

TEST_F(ToolsTest, ProceduresVersionRankAndRecordRuns) {
  Ok("procedure_save", {{"name", "release"},
                        {"when", "publishing a new version of the package"},
                        {"steps", json::parse(R"(["bump the version", {"text": "tag", "command": "git tag v$V"}])")},
                        {"tags", {"release"}}});
  auto again = Ok("procedure_save", {{"name", "release"},
                                     {"when", "publishing a new version of the package"},
                                     {"steps", json::parse(R"(["bump the version", {"text": "tag", "command": "git tag v$V"}])")},
                                     {"tags", {"release"}}});
  EXPECT_TRUE(again["unchanged"]);
  auto v2 = Ok("procedure_save", {{"name", "release"},
                                  {"when", "publishing a new version of the package"},
                                  {"steps", {"bump the version", "run tests", "tag"}}});
  EXPECT_EQ(v2["version"], 2);
  Ok("procedure_save", {{"name", "hotfix"}, {"when", "a production bug needs a fix in the released version"},
                        {"steps", {"branch from the tag", "fix", "release"}}, {"scope", "global"}});
  auto found = Ok("procedure_find", {{"query", "publish a new version"}});
  ASSERT_GE(found["procedures"].size(), 1u);
  EXPECT_EQ(found["procedures"][0]["name"], "release");
  EXPECT_EQ(found["procedures"][0]["steps"].size(), 3u);
  auto got = Ok("procedure_find", {{"name", "release"}, {"version", 1}});
  EXPECT_EQ(got["procedures"][0]["steps"][1]["command"], "git tag v$V");
  auto hist = Ok("procedure_find", {{"name", "release"}, {"history", true}});
  EXPECT_EQ(hist["procedures"][0]["history"].size(), 2u);

  // Runs: the success rate shows with the procedure, and the affective layer records them.
  Ok("procedure_save", {{"name", "hotfix"}, {"outcome", "success"}});
  Ok("procedure_save", {{"name", "hotfix"}, {"outcome", "success"}});
  auto rec = Ok("procedure_save", {{"name", "hotfix"}, {"outcome", "failure"}, {"note", "tag existed"}});
  EXPECT_EQ(rec["runs"], 3);
  EXPECT_NEAR(rec["success_rate"].get<double>(), 2.0 / 3.0, 1e-9);
  Err("procedure_save", {{"name", "nope"}, {"outcome", "success"}});
  EXPECT_NE(Err("procedure_save", {{"name", "hotfix"}, {"outcome", "success"}, {"steps", {"x"}}}).find("not both"),
            std::string::npos);
  EXPECT_NE(Err("plan_status", {{"limit", 0}}).find("limit 0 is out of range"), std::string::npos);
  auto q = Ok("feedback_query", {{"tool_prefix", "procedure/"}});
  EXPECT_NE(text.find("procedure/hotfix"), std::string::npos) << text;
  // A proven procedure ranks above an equally relevant unproven one.
  auto ranked = Ok("procedure_find", {{"query", "version"}});
  ASSERT_EQ(ranked["procedures"].size(), 2u);
  EXPECT_EQ(ranked["procedures"][0]["name"], "hotfix") << text;
  auto listed = Ok("procedure_find", {{"limit", 1}});
  EXPECT_EQ(listed["procedures"].size(), 1u);
  EXPECT_EQ(listed["omitted"], 1);
  const std::string cursor = listed["next_cursor"];
  EXPECT_EQ(cursor.rfind("k:", 0), 0u) << cursor;
  const std::string first = listed["procedures"][0]["name"];
  // A procedure saved between two pages that sorts before the cursor neither repeats a
  // row nor hides one (an offset would show `first` again).
  Ok("procedure_save", {{"name", "aaa-early"}, {"when", "first of all"}, {"steps", {"x"}}});
  auto next = Ok("procedure_find", {{"limit", 1}, {"cursor", cursor}});
  ASSERT_EQ(next["procedures"].size(), 1u);
  EXPECT_NE(next["procedures"][0]["name"], first);
  EXPECT_EQ(next["omitted"], 0);
  // A cursor of another mode, and name with query, are refused and say what to send.
  EXPECT_NE(Err("procedure_find", {{"cursor", "o:1"}}).find("query or one procedure's steps"), std::string::npos);
  EXPECT_NE(Err("procedure_find", {{"query", "version"}, {"cursor", cursor}}).find("pages the list"), std::string::npos);
  EXPECT_NE(Err("procedure_find", {{"cursor", "k:zz"}}).find("send next_cursor"), std::string::npos);
  EXPECT_NE(Err("procedure_find", {{"name", "hotfix"}, {"query", "version"}}).find("not both"), std::string::npos);
  // Found by a user trial: a query page's cursor was a bare offset, so sent with name it
  // skipped steps and sent with another query it skipped matches. It now only continues its
  // own search.
  auto searched = Ok("procedure_find", {{"query", "version"}, {"limit", 1}});
  const std::string qc = searched["next_cursor"];
  EXPECT_EQ(qc.rfind("q:1:", 0), 0u) << qc;
  auto second = Ok("procedure_find", {{"query", "version"}, {"limit", 1}, {"cursor", qc}});
  ASSERT_EQ(second["procedures"].size(), 1u);
  EXPECT_NE(second["procedures"][0]["name"], searched["procedures"][0]["name"]);
  EXPECT_NE(Err("procedure_find", {{"query", "hotfix"}, {"cursor", qc}}).find("another query"), std::string::npos);
  EXPECT_NE(Err("procedure_find", {{"name", "hotfix"}, {"cursor", qc}}).find("not one procedure_find returned"),
            std::string::npos);
  EXPECT_NE(Err("procedure_find", {{"cursor", qc}}).find("query or one procedure's steps"), std::string::npos);
  EXPECT_NE(Err("procedure_find", {{"query", "version"}, {"cursor", "o:1"}}).find("this search's pages"),
            std::string::npos);
}

// Across layers, through Host::CallTool: workspace_status shows the open plan's ready tasks
// and workspace_dump its progress.
TEST_F(ToolsTest, WorkingLayerShowsTheOpenPlan) {
  auto none = Ok("workspace_status", json::object());
  EXPECT_TRUE(none["plan"].is_null());
  Ok("plan_create", {{"markdown", "# Ship\n- [x] design\n- [ ] build\n- [ ] test <!-- kioku:t3 after:t2 -->\n"}});
  auto st = Ok("workspace_status", json::object());
  EXPECT_EQ(st["plan"]["title"], "Ship");
  EXPECT_EQ(st["plan"]["percent"], 33);
  EXPECT_EQ(st["plan"]["ready"], json::parse(R"([{"id": "t2", "title": "build"}])"));
  EXPECT_NE(text.find("plan: Ship — 33% of 3 tasks, active; ready: t2 build;"), std::string::npos) << text;
  auto dump = Ok("workspace_dump", {{"reason", "end of session"}});
  EXPECT_NE(dump["summary"].get<std::string>().find("Plan: Ship — 33% of 3 tasks"), std::string::npos)
      << dump["summary"];
}

}  // namespace
}  // namespace kioku::procedural
