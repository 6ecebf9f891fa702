// Plugin settings lifecycle (ABI 2): the host reads the settings schema before creating a
// plugin, validates every plugin's section first, fills defaults, and the constructor sees
// complete settings — both in-process and through a loaded module's manifest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host_test_util.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/settings.hpp"
#include "runtime.hpp"

namespace kioku::host {
namespace {

using sdk::Json;
using ::testing::HasSubstr;
using testing::TempDir;

int g_constructed = 0;
Json g_seen_in_constructor;

class ConfiguredPlugin final : public sdk::Plugin {
 public:
  explicit ConfiguredPlugin(sdk::HostServices& host) {
    ++g_constructed;
    g_seen_in_constructor = host.Settings();
  }
  static Json SettingsSchema() {
    using namespace sdk::schema;
    return sdk::Settings({{"limit", sdk::Setting(Integer(1, 10), 5)},
                          {"hook", sdk::Settings({{"name", sdk::Setting(String(20), "x")},
                                                  {"token", String(20)}})}});
  }
  void Register(sdk::Registrar&) override {}
};

class BadDefaultPlugin final : public sdk::Plugin {
 public:
  explicit BadDefaultPlugin(sdk::HostServices&) {}
  static Json SettingsSchema() {
    return sdk::Settings({{"limit", sdk::Setting(sdk::schema::Integer(1, 10), 99)}});
  }
  void Register(sdk::Registrar&) override {}
};

class SettingsLifecycleTest : public ::testing::Test {
 protected:
  SettingsLifecycleTest() {
    g_constructed = 0;
    g_seen_in_constructor = nullptr;
    options_.data_dir = dir_.path();
  }
  static std::string StartError(Runtime& rt) {
    try {
      rt.Start();
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  TempDir dir_;
  RuntimeOptions options_;
};

TEST_F(SettingsLifecycleTest, ConstructorSeesDefaultsFilledIn) {
  Runtime rt(options_);
  rt.AddPlugin("conf", [](sdk::HostServices& h) { return std::make_unique<ConfiguredPlugin>(h); });
  rt.Start();
  EXPECT_EQ(g_seen_in_constructor, (Json{{"limit", 5}, {"hook", {{"name", "x"}}}}));
}

TEST_F(SettingsLifecycleTest, GivenValuesWinOverDefaults) {
  Runtime rt(options_);
  rt.AddPlugin("conf", [](sdk::HostServices& h) { return std::make_unique<ConfiguredPlugin>(h); },
               {{"limit", 2}, {"hook", {{"token", "t"}}}});
  rt.Start();
  EXPECT_EQ(g_seen_in_constructor,
            (Json{{"limit", 2}, {"hook", {{"name", "x"}, {"token", "t"}}}}));
}

TEST_F(SettingsLifecycleTest, EverySectionIsCheckedBeforeAnyPluginIsCreated) {
  Runtime rt(options_);
  rt.AddPlugin("first", [](sdk::HostServices& h) { return std::make_unique<ConfiguredPlugin>(h); });
  rt.AddPlugin("second", [](sdk::HostServices& h) { return std::make_unique<ConfiguredPlugin>(h); },
               {{"limit", 0}});
  EXPECT_THAT(StartError(rt), HasSubstr("settings of plugin 'second': limit"));
  EXPECT_EQ(g_constructed, 0);
}

TEST_F(SettingsLifecycleTest, DefaultBreakingItsOwnSchemaIsThePluginsFault) {
  Runtime rt(options_);
  rt.AddPlugin("bad", [](sdk::HostServices& h) { return std::make_unique<BadDefaultPlugin>(h); });
  EXPECT_THAT(StartError(rt), HasSubstr("settings defaults of plugin 'bad' break its schema: limit"));
}

TEST_F(SettingsLifecycleTest, LoadedModuleSchemaComesThroughTheManifest) {
  Runtime rt(options_);
  rt.LoadPlugin("fixture", testing::FixtureModule("fixture"), {{"greting", "hi"}});
  EXPECT_THAT(StartError(rt), HasSubstr("settings of plugin 'fixture': (root): unknown field \"greting\""));

  Runtime ok(options_);
  ok.LoadPlugin("fixture", testing::FixtureModule("fixture"));  // greeting defaults to ""
  ok.Start();
  sdk::Caller caller;
  caller.agent_id = "a";
  EXPECT_EQ(ok.CallTool("echo_say", {{"text", "hey"}}, caller).text, "hey");
}

// `kioku --help` lists plugin commands: plugins register, nothing is migrated or started.
class MigratingPlugin final : public sdk::Plugin {
 public:
  explicit MigratingPlugin(sdk::HostServices&) {}
  std::vector<sdk::Migration> Migrations() const override {
    return {{1, "t", "CREATE TABLE migrating_t (x INTEGER)", {}}};
  }
  void Register(sdk::Registrar& r) override {
    r.AddCommand({"mig-cmd", "A command", "kioku mig-cmd", [](auto&, auto&, auto&, auto&) { return 0; }});
  }
  void Start() override { ++g_constructed; }
};

TEST_F(SettingsLifecycleTest, DescribeModeRegistersWithoutMigratingOrStarting) {
  {
    Runtime rt(options_);
    rt.AddPlugin("mig", [](sdk::HostServices& h) { return std::make_unique<MigratingPlugin>(h); });
    rt.Start(StartMode::kDescribe);
    ASSERT_EQ(rt.Commands().size(), 1u);
    EXPECT_EQ(rt.Commands()[0].name, "mig-cmd");
    EXPECT_EQ(g_constructed, 0);  // Start() not called
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "kioku.db"));
}

}  // namespace
}  // namespace kioku::host
