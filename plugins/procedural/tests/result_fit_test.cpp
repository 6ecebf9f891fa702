// Issue 9 "every result is bounded": plan_status of a 1,000-task plan, as a task list or as
// a Markdown export, fits the host's byte cap (48 KiB in tests), honours `limit`, counts
// what it left out and pages on with offset. Before, the export was one ~400 KB result the
// host refused, and `limit` was ignored.
#include <gtest/gtest.h>

#include <set>

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/text.hpp"
#include "procedural_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku::procedural {
namespace {

using nlohmann::json;

constexpr std::size_t kCap = 48 * 1024;

std::size_t Bytes(const sdk::ToolResult& r) { return r.text.size() + sdk::DumpJson(r.structured).size(); }

std::size_t CountOf(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class PlanFitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt.Add<ProceduralPlugin>("procedural");
    rt.Start();
    json tasks = json::array();
    for (int i = 1; i <= 1000; ++i) {
      std::string title = "task number " + std::to_string(i) + " of the long migration plan";
      while (title.size() < 100) title += " step";
      tasks.push_back({{"title", title}, {"description", std::string(200, 'd')}});
    }
    auto r = rt.Call("plan_create", {{"title", "Big plan"}, {"tasks", tasks}});
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
    plan = r.structured["plan_id"];
  }
  sdk::ToolResult Status(json args) {
    args["plan"] = plan;
    auto r = rt.Call("plan_status", args);
    EXPECT_FALSE(r.is_error) << r.text.substr(0, 300);
    EXPECT_LE(Bytes(r), kCap);
    return r;
  }
  kioku::testing::TestRuntime rt;
  std::string plan;
};

TEST_F(PlanFitTest, MarkdownExportPagesUnderTheCapWithoutLosingATask) {
  std::string all;
  std::size_t offset = 0;
  int pages = 0;
  for (; pages < 100; ++pages) {
    const auto r = Status({{"markdown", true}, {"offset", offset}});
    all += r.structured["markdown"].get<std::string>();
    if (r.structured["omitted"] == 0) break;
    EXPECT_NE(r.text.find("more tasks"), std::string::npos);
    const std::size_t next = r.structured["next_offset"];
    EXPECT_EQ(r.structured["omitted"].get<std::size_t>(), 1000 - next);
    EXPECT_GT(next, offset);
    offset = next;
  }
  EXPECT_GT(pages, 0);  // one result could not hold it
  EXPECT_EQ(CountOf(all, "- [ ] "), 1000u);
  EXPECT_EQ(CountOf(all, "# Big plan"), 1u);  // the title opens the first page only
  for (int i : {1, 500, 1000}) {
    EXPECT_NE(all.find("task number " + std::to_string(i) + " of"), std::string::npos) << i;
  }
}

TEST_F(PlanFitTest, MarkdownExportHonoursLimit) {
  const auto r = Status({{"markdown", true}, {"limit", 10}});
  EXPECT_EQ(CountOf(r.structured["markdown"].get<std::string>(), "- [ ] "), 10u);
  EXPECT_EQ(r.structured["omitted"], 990);
  EXPECT_EQ(r.structured["next_offset"], 10);
}

TEST_F(PlanFitTest, TaskListFitsTheCapAndCountsTheRest) {
  const auto r = Status({{"limit", 500}});
  const std::size_t shown = r.structured["tasks"].size();
  EXPECT_GT(shown, 0u);
  EXPECT_LT(shown, 500u);  // 500 tasks with descriptions do not fit 48 KiB
  EXPECT_EQ(r.structured["omitted"].get<std::size_t>(), 1000 - shown);
  EXPECT_EQ(r.structured["next_offset"].get<std::size_t>(), shown);
  EXPECT_NE(r.text.find("result size cap"), std::string::npos);
}

// procedure_find fits itself in each mode (before: a query for a common word returned every
// match with all its steps, over the cap, and the host cut or refused the result).
class ProcedureFitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt.Add<ProceduralPlugin>("procedural");
    rt.Start();
  }
  static std::string Filler(int i, std::size_t bytes) {
    std::string t = "deploy step " + std::to_string(i) + " ☕";
    while (t.size() < bytes) t += " run the staging rollout and check";
    return sdk::TruncateUtf8(t, bytes, "");
  }
  void Save(const std::string& name, int steps, std::size_t step_bytes, std::size_t when_bytes = 100) {
    json list = json::array();
    for (int i = 0; i < steps; ++i) {
      list.push_back({{"text", Filler(i, step_bytes)}, {"command", Filler(i + 1000, step_bytes)}});
    }
    auto r = rt.Call("procedure_save", {{"name", name}, {"when", "deploy " + Filler(0, when_bytes)}, {"steps", list}});
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  }
  sdk::ToolResult Find(const json& args) {
    auto r = rt.Call("procedure_find", args);
    EXPECT_FALSE(r.is_error) << r.text.substr(0, 300);
    EXPECT_LE(Bytes(r), kCap) << args.dump();
    return r;
  }
  kioku::testing::TestRuntime rt;
};

TEST_F(ProcedureFitTest, OneProcedureOverTheCapReadsInStepPages) {
  Save("huge", 100, 1900);  // 100 steps of ~3.8 KB: ~380 KB of steps
  std::vector<std::string> steps;
  json args = {{"name", "huge"}};
  for (int pages = 0; pages < 50; ++pages) {
    const auto r = Find(args);
    for (const auto& st : r.structured["procedures"][0]["steps"]) steps.push_back(st["text"]);
    if (!r.structured.contains("next_cursor")) break;
    EXPECT_GT(r.structured["omitted"].get<int>(), 0);
    EXPECT_NE(r.text.find("cursor"), std::string::npos);
    args["cursor"] = r.structured["next_cursor"];
  }
  ASSERT_EQ(steps.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(steps[i], Filler(i, 1900)) << i;
  // A query hit shows what fits and says where the rest is.
  const auto q = Find({{"query", "deploy"}});
  ASSERT_EQ(q.structured["procedures"].size(), 1u);
  EXPECT_GT(q.structured["procedures"][0]["steps_omitted"].get<int>(), 0);
  EXPECT_NE(q.text.find("procedure_find name \"huge\""), std::string::npos);
  EXPECT_FALSE(rt.Call("procedure_find", {{"name", "huge"}, {"cursor", "o:100"}}).text.find("past the last step") ==
               std::string::npos);
}

TEST_F(ProcedureFitTest, QueryAndListPageUnderTheCapWithoutLosingOne) {
  for (int i = 0; i < 90; ++i) Save("deploy-" + std::to_string(1000 + i), 20, 200, 3000);
  std::set<std::string> found;
  json args = {{"query", "deploy staging"}, {"limit", 50}};
  int pages = 0;
  for (; pages < 60; ++pages) {
    const auto r = Find(args);
    for (const auto& p : r.structured["procedures"]) {
      EXPECT_EQ(p["steps"].size(), 20u);
      EXPECT_TRUE(found.insert(p["name"].get<std::string>()).second);
    }
    if (!r.structured.contains("next_cursor")) break;
    EXPECT_NE(r.text.find("result size cap"), std::string::npos);
    args["cursor"] = r.structured["next_cursor"];
  }
  EXPECT_GT(pages, 0);
  EXPECT_EQ(found.size(), 90u);  // limit is a page's size; the cursor goes through every match

  std::set<std::string> listed;
  json list_args = {{"limit", 50}};
  for (pages = 0; pages < 60; ++pages) {
    const auto r = Find(list_args);
    for (const auto& p : r.structured["procedures"]) EXPECT_TRUE(listed.insert(p["name"].get<std::string>()).second);
    if (!r.structured.contains("next_cursor")) {
      EXPECT_EQ(r.structured["omitted"], 0);
      break;
    }
    EXPECT_EQ(r.structured["omitted"].get<std::size_t>(), 90 - listed.size());
    list_args["cursor"] = r.structured["next_cursor"];
  }
  EXPECT_EQ(listed.size(), 90u);
}

// A query pages through its best 100 matches; past them the last page says so instead of
// ending as if nothing else matched (found by a user trial).
TEST_F(ProcedureFitTest, QueryPastItsCandidateLimitSaysHowToReachTheRest) {
  for (int i = 0; i < 105; ++i) Save("deploy-" + std::to_string(1000 + i), 1, 10);
  json args = {{"query", "deploy"}, {"limit", 50}};
  sdk::ToolResult r;
  for (int pages = 0; pages < 5; ++pages) {
    r = Find(args);
    if (!r.structured.contains("next_cursor")) break;
    args["cursor"] = r.structured["next_cursor"];
  }
  EXPECT_NE(r.text.find("only the best 100 matches are paged; add words to the query"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace kioku::procedural
