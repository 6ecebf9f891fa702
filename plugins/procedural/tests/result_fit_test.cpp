// Issue 9 "every result is bounded": plan_status of a 1,000-task plan, as a task list or as
// a Markdown export, fits the host's byte cap (48 KiB in tests), honours `limit`, counts
// what it left out and pages on with offset. Before, the export was one ~400 KB result the
// host refused, and `limit` was ignored.
#include <gtest/gtest.h>

#include <set>

#include "kioku/sdk/json.hpp"
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

}  // namespace
}  // namespace kioku::procedural
