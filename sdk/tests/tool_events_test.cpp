#include <gtest/gtest.h>

#include "kioku/sdk/events.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::sdk {
namespace {

TEST(DumpJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  const Json value = {{"text", std::string("ok \xFF end")}};
  EXPECT_THROW((void)value.dump(), Json::type_error);  // the trap DumpJson exists for
  EXPECT_EQ(DumpJson(value), "{\"text\":\"ok \xEF\xBF\xBD end\"}");
}

TEST(DumpJson, HonoursIndentAndKeepsUnicode) {
  EXPECT_EQ(DumpJson(Json{{"a", 1}}, 2), "{\n  \"a\": 1\n}");
  EXPECT_EQ(DumpJson(Json("東京")), "\"東京\"");
}

TEST(ToolCallEvent, RoundTripsThroughJson) {
  ToolCallEvent e;
  e.tool = "memory_recall";
  e.plugin = "semantic";
  e.agent_id = "claude-code";
  e.session_id = "s1";
  e.project_id = "github.com/x/y";
  e.outcome = "failure";
  e.latency_ms = 12.5;
  e.error = "boom";
  e.at_ms = 1'767'225'600'000;
  const Json j = e.ToJson();
  EXPECT_EQ(j["tool"], "memory_recall");
  EXPECT_EQ(j["at_ms"], 1'767'225'600'000);
  EXPECT_EQ(j["latency_ms"], 12.5);
  const ToolCallEvent back = ToolCallEvent::FromJson(j);
  EXPECT_EQ(back.tool, e.tool);
  EXPECT_EQ(back.plugin, e.plugin);
  EXPECT_EQ(back.agent_id, e.agent_id);
  EXPECT_EQ(back.session_id, e.session_id);
  EXPECT_EQ(back.project_id, e.project_id);
  EXPECT_EQ(back.outcome, e.outcome);
  EXPECT_DOUBLE_EQ(back.latency_ms, e.latency_ms);
  EXPECT_EQ(back.error, e.error);
  EXPECT_EQ(back.at_ms, e.at_ms);
}

TEST(ToolCallEvent, FromJsonToleratesMissingAndMistypedKeys) {
  const ToolCallEvent empty = ToolCallEvent::FromJson(Json::object());
  EXPECT_EQ(empty.tool, "");
  EXPECT_EQ(empty.at_ms, 0);
  const ToolCallEvent not_object = ToolCallEvent::FromJson(Json::array({1, 2}));
  EXPECT_EQ(not_object.outcome, "");
  const ToolCallEvent mistyped = ToolCallEvent::FromJson(
      Json{{"tool", 5}, {"outcome", "success"}, {"at_ms", 1.5e12}, {"latency_ms", "x"}});
  EXPECT_EQ(mistyped.tool, "");
  EXPECT_EQ(mistyped.outcome, "success");
  EXPECT_EQ(mistyped.at_ms, 1'500'000'000'000);
  EXPECT_EQ(mistyped.latency_ms, 0);
  const ToolCallEvent huge = ToolCallEvent::FromJson(Json{{"at_ms", 1e300}});
  EXPECT_EQ(huge.at_ms, 0);
}

TEST(ToolResult, FactoriesSetErrorFlag) {
  EXPECT_FALSE(ToolResult::Ok("fine").is_error);
  EXPECT_TRUE(ToolResult::Error("bad").is_error);
}

}  // namespace
}  // namespace kioku::sdk
