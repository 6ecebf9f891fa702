// The procedural layer's context provider through the host's block assembly: the latest
// open plan's next task leads, further ready tasks follow, nothing for a prompt, nothing
// once no plan is open.
#include <gtest/gtest.h>

#include "context/context_block.hpp"
#include "procedural_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku::procedural {
namespace {

using nlohmann::json;

class ProceduralContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt.Add<ProceduralPlugin>("procedural");
    rt.Start();
  }
  json Ok(std::string_view tool, const json& args) {
    auto r = rt.Call(tool, args);
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    return r.structured;
  }
  std::string Block(const std::string& query = "") {
    host::ContextOptions o;
    o.query = query;
    return host::BuildContext(*rt.runtime, kioku::testing::TestRuntime::DefaultCaller(), o).text;
  }
  kioku::testing::TestRuntime rt;
};

TEST_F(ProceduralContextTest, SessionStartShowsTheNextTasksOfTheOpenPlan) {
  EXPECT_EQ(Block(), "");  // no plan, no lines
  const std::string id = Ok("plan_create", json::parse(R"({"title": "Ship v2", "tasks": [
      {"title": "build the bundle"}, {"title": "write release notes"},
      {"title": "publish", "depends_on": [1, 2]}]})"))["plan_id"];
  const std::string block = Block();
  EXPECT_NE(block.find("[task|next] plan \"Ship v2\" (0/3 done): t1 build the bundle"), std::string::npos) << block;
  EXPECT_NE(block.find("[task|ready] plan \"Ship v2\" (0/3 done): t2 write release notes"), std::string::npos) << block;
  EXPECT_EQ(block.find("publish"), std::string::npos) << "t3 waits for t1 and t2";
  EXPECT_EQ(Block("fix the wishlist endpoint"), "") << "plans are session-start context";

  Ok("plan_check", {{"plan", id}, {"task", "t1"}, {"state", "done"}});
  Ok("plan_check", {{"plan", id}, {"task", "t2"}, {"state", "done"}});
  EXPECT_NE(Block().find("[task|next] plan \"Ship v2\" (2/3 done): t3 publish"), std::string::npos) << Block();
}

}  // namespace
}  // namespace kioku::procedural
