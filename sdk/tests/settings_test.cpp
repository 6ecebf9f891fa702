#include "kioku/sdk/settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kioku/sdk/schema.hpp"

namespace kioku::sdk {
namespace {

using ::testing::ElementsAre;

Json Sample() {
  using namespace schema;
  return Settings({
      {"half_life_days", Setting(Number(0.01, 3650), 14)},
      {"capture", Setting(Bool(), true)},
      {"exclude", Setting(Array(String(10), 5), Json::array())},
      {"hook", Settings({{"agent_id", Setting(String(200), "claude-code")},
                         {"token", String(100)}})},
  });
}

TEST(Settings, SchemaIsClosedAtEveryLevel) {
  const Json s = Sample();
  EXPECT_EQ(s.at("additionalProperties"), false);
  EXPECT_EQ(s.at("properties").at("hook").at("additionalProperties"), false);
  EXPECT_EQ(s.at("properties").at("capture").at("default"), true);
}

TEST(Settings, AbsentSectionGetsEveryDefault) {
  const Json got = ApplySettingsDefaults(Sample(), nullptr);
  EXPECT_EQ(got, (Json{{"half_life_days", 14},
                       {"capture", true},
                       {"exclude", Json::array()},
                       {"hook", {{"agent_id", "claude-code"}}}}));
}

TEST(Settings, GivenKeysWinAndNestedSectionsMerge) {
  const Json got = ApplySettingsDefaults(
      Sample(), {{"capture", false}, {"hook", {{"token", "t"}}}, {"extra", 1}});
  EXPECT_EQ(got.at("capture"), false);
  EXPECT_EQ(got.at("half_life_days"), 14);
  EXPECT_EQ(got.at("hook"), (Json{{"agent_id", "claude-code"}, {"token", "t"}}));
  EXPECT_EQ(got.at("extra"), 1);  // left for validation to refuse
}

TEST(Settings, WrongTypedSectionIsLeftForValidation) {
  EXPECT_EQ(ApplySettingsDefaults(Sample(), Json("x")), Json("x"));
  EXPECT_EQ(ApplySettingsDefaults(Sample(), {{"hook", 3}}).at("hook"), 3);
}

TEST(Settings, ListsLeavesWithoutDefault) {
  EXPECT_THAT(SettingsWithoutDefault(Sample()), ElementsAre("hook.token"));
}

TEST(Settings, DocumentedSectionAgreesWithDefaults) {
  const Json documented = {{"half_life_days", 14.0},
                           {"capture", true},
                           {"exclude", Json::array()},
                           {"hook", {{"agent_id", "claude-code"}}}};
  EXPECT_TRUE(CheckDocumentedSettings(Sample(), documented).empty());
}

TEST(Settings, DocumentedSectionDisagreementsAreNamed) {
  const Json documented = {{"half_life_days", 7},
                           {"exclude", Json::array()},
                           {"zz", 1},
                           {"hook", {{"agent_id", "codex"}, {"token", "t"}, {"typo", 2}}}};
  EXPECT_THAT(CheckDocumentedSettings(Sample(), documented),
              ElementsAre("capture: not documented (default true)",
                          "half_life_days: documented 7, default 14",
                          "hook.agent_id: documented \"codex\", default \"claude-code\"",
                          "hook.token: documented \"t\", the schema declares no default",
                          "hook.typo: not in the schema", "zz: not in the schema"));
}

}  // namespace
}  // namespace kioku::sdk
