// Config: the YAML deployment file, validated at start with one-line errors naming the
// file, the key and the value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "config.hpp"
#include "host_test_util.hpp"

namespace kioku::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ScopedEnv;
using testing::TempDir;

const std::vector<std::string> kLayers = {"working", "episodic", "semantic", "procedural", "affective"};

// The message of the std::runtime_error `fn` throws ("" when it does not throw).
template <class Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::string ParseError(const std::string& yaml, const std::vector<std::string>& known = kLayers) {
  return ErrorOf([&] { ParseConfig(yaml, "/etc/kioku/test.yaml", known); });
}

TEST(ConfigTest, EmbeddedDefaultParses) {
  Config c = ParseConfig(EmbeddedDefaultConfig(), "(embedded default)", kLayers);
  EXPECT_EQ(c.source, "(embedded default)");
  EXPECT_THAT(c.enabled, ::testing::IsSupersetOf({"working", "episodic", "semantic", "affective"}));
  EXPECT_EQ(c.log_level, "info");
  EXPECT_EQ(c.call_timeout_ms, 30000);
  EXPECT_EQ(c.tools_page_size, 100u);
  EXPECT_FALSE(c.json_text_block);  // clients read structuredContent; no JSON copy in content
  EXPECT_EQ(c.max_result_bytes, 49152u);
  EXPECT_TRUE(c.http.allowed_hosts.empty());
  EXPECT_EQ(c.http.listen, "127.0.0.1:7077");
  EXPECT_TRUE(c.http.tokens.empty());
  EXPECT_EQ(c.http.max_body_bytes, 4194304u);
  EXPECT_EQ(c.http.header_timeout_ms, 10000);
  EXPECT_EQ(c.http.max_connections, 256u);
  EXPECT_EQ(c.http.max_connections_per_ip, 64u);
  EXPECT_EQ(c.http.workers, 4);
  EXPECT_EQ(c.home, std::filesystem::path("~/.kioku"));
}

TEST(ConfigTest, EmbeddedDefaultSkipsOnlyTheSchemaCheck) {
  // The start-up path: the embedded default's JSON with its schema check skipped gives the
  // config the checked parse gives; the other checks still run.
  const auto doc = nlohmann::json::parse(EmbeddedDefaultConfigJson());
  Config checked = ParseConfigDoc(doc, "(embedded default)", kLayers);
  Config fast = ParseConfigDoc(doc, "(embedded default)", kLayers, /*embedded_default=*/true);
  EXPECT_TRUE(fast.embedded_default);
  EXPECT_FALSE(checked.embedded_default);
  EXPECT_EQ(fast.enabled, checked.enabled);
  EXPECT_EQ(fast.plugin_settings, checked.plugin_settings);
  EXPECT_EQ(fast.max_result_bytes, checked.max_result_bytes);
  EXPECT_EQ(fast.backup.keep, checked.backup.keep);
  EXPECT_THAT(ErrorOf([&] { ParseConfigDoc(doc, "(embedded default)", {"working"}, true); }),
              HasSubstr("no plugin module named"));
}

// Start-up without a config file reads the JSON the build made from the same YAML.
TEST(ConfigTest, EmbeddedJsonIsTheEmbeddedYamlConverted) {
  EXPECT_EQ(nlohmann::json::parse(EmbeddedDefaultConfigJson()), YamlToJson(EmbeddedDefaultConfig()));
  EXPECT_TRUE(YamlToJson(EmbeddedDefaultConfig()).contains("plugins"));
}

TEST(ConfigTest, ServerToolsDefaultsToCoreAndReadsLists) {
  EXPECT_EQ(ParseConfig(EmbeddedDefaultConfig(), "(embedded default)", kLayers).tools.profile, sdk::ToolProfile::kCore);
  EXPECT_EQ(ParseConfig("plugins:\n  enabled: []\n", "f.yaml", kLayers).tools.profile, sdk::ToolProfile::kCore);
  Config c = ParseConfig("plugins: {enabled: []}\nserver:\n  tools: {profile: full, include: [a_b], exclude: [c_d]}\n",
                         "f.yaml", kLayers);
  EXPECT_EQ(c.tools.profile, sdk::ToolProfile::kFull);
  EXPECT_THAT(c.tools.include, ElementsAre("a_b"));
  EXPECT_THAT(c.tools.exclude, ElementsAre("c_d"));
  EXPECT_THAT(ParseError("plugins: {enabled: []}\nserver:\n  tools: {profile: all}\n"),
              HasSubstr("server.tools.profile"));
}

TEST(ConfigTest, MinimalConfigGetsDefaults) {
  Config c = ParseConfig("plugins:\n  enabled: [semantic]\n", "f.yaml", kLayers);
  EXPECT_THAT(c.enabled, ElementsAre("semantic"));
  EXPECT_EQ(c.call_timeout_ms, 30000);
  EXPECT_TRUE(c.home.empty());
  EXPECT_TRUE(c.plugin_settings.empty());
}

TEST(ConfigTest, EmptyDocumentNamesTheMissingPluginsKey) {
  EXPECT_EQ(ParseError(""), "config /etc/kioku/test.yaml: (root): missing required field \"plugins\"");
}

TEST(ConfigTest, TopLevelMustBeAMapping) {
  EXPECT_THAT(ParseError("- a\n- b\n"), HasSubstr("the top level must be a mapping"));
}

TEST(ConfigTest, UnknownTopLevelKeyNamesFileAndKey) {
  EXPECT_THAT(ParseError("plugins: {enabled: []}\nsemantc: {}\n"),
              StartsWith("config /etc/kioku/test.yaml: semantc: unknown key"));
}

TEST(ConfigTest, UnknownNestedKeyNamesIt) {
  auto e = ParseError("plugins: {enabled: []}\nserver: {http: {listn: '1.2.3.4:5'}}\n");
  EXPECT_THAT(e, StartsWith("config /etc/kioku/test.yaml: server.http: unknown field \"listn\""));
}

TEST(ConfigTest, WrongTypeNamesFileKeyAndValue) {
  auto e = ParseError("plugins: {enabled: []}\nserver:\n  call_timeout_ms: soon\n");
  EXPECT_THAT(e, StartsWith("config /etc/kioku/test.yaml: server.call_timeout_ms: expected integer"));
  EXPECT_THAT(e, HasSubstr("\"soon\""));
  auto level = ParseError("plugins: {enabled: []}\nlog_level: verbose\n");
  EXPECT_THAT(level, HasSubstr("log_level: expected one of \"debug\", \"info\""));
  EXPECT_THAT(level, HasSubstr("\"verbose\""));
  auto enabled = ParseError("plugins: {enabled: semantic}\n");
  EXPECT_THAT(enabled, HasSubstr("plugins.enabled: expected array"));
}

TEST(ConfigTest, ValueIsNamedOnce) {
  auto e = ParseError("plugins: {enabled: []}\nlog_level: verbose\n");
  EXPECT_EQ(e.find("verbose"), e.rfind("verbose")) << e;
}

TEST(ConfigTest, PluginNotFoundListsAvailable) {
  auto e = ParseError("plugins:\n  enabled: [working, memry]\n", {"working", "semantic"});
  EXPECT_EQ(e,
            "config /etc/kioku/test.yaml: plugins.enabled[1]: no plugin module named 'memry' (value: \"memry\"); "
            "available: semantic, working");
  EXPECT_THAT(ParseError("plugins: {enabled: [x]}\n", {}), HasSubstr("available: none"));
}

TEST(ConfigTest, DuplicateInEnabled) {
  EXPECT_EQ(ParseError("plugins:\n  enabled: [semantic, working, semantic]\n"),
            "config /etc/kioku/test.yaml: plugins.enabled[2]: 'semantic' is listed twice");
}

TEST(ConfigTest, BadPluginNamePattern) {
  EXPECT_THAT(ParseError("plugins: {enabled: [Semantic]}\n"), HasSubstr("plugins.enabled[0]: expected string matching"));
}

TEST(ConfigTest, YamlSyntaxErrorHasLineNumber) {
  auto e = ParseError("plugins:\n  enabled: [working\nserver: {}\n");
  EXPECT_THAT(e, StartsWith("config /etc/kioku/test.yaml: YAML syntax error at line "));
  auto tabs = ParseError("plugins:\n  enabled: []\n  dirs: [a]\n bad: : :\n");
  EXPECT_THAT(tabs, HasSubstr("line 4"));
}

TEST(ConfigTest, TokensBecomeAMapToAgentIds) {
  Config c = ParseConfig(R"(plugins: {enabled: []}
server:
  http:
    listen: 0.0.0.0:8080
    tokens:
      - {token: "0123456789abcdef-one", agent_id: claude}
      - {token: "0123456789abcdef-two", agent_id: codex}
)",
                         "f.yaml", kLayers);
  EXPECT_EQ(c.http.listen, "0.0.0.0:8080");
  ASSERT_EQ(c.http.tokens.size(), 2u);
  EXPECT_EQ(c.http.tokens.at("0123456789abcdef-one"), "claude");
  EXPECT_EQ(c.http.tokens.at("0123456789abcdef-two"), "codex");
}

TEST(ConfigTest, ShortTokenIsRefused) {
  EXPECT_THAT(ParseError("plugins: {enabled: []}\nserver: {http: {tokens: [{token: abc, agent_id: a}]}}\n"),
              HasSubstr("server.http.tokens[0].token: too short (3 characters; at least 16)"));
}

TEST(ConfigTest, PluginSectionsPassedAsJson) {
  Config c = ParseConfig(R"(plugins: {enabled: [semantic, working]}
semantic:
  recall: {token_budget: 500, weights: [1.5, 2]}
  label: "123"
  plain: 123
  flag: yes-ish
  on: true
working:
)",
                         "f.yaml", kLayers);
  const auto& s = c.plugin_settings.at("semantic");
  EXPECT_EQ(s["recall"]["token_budget"], 500);
  EXPECT_TRUE(s["recall"]["weights"][0].is_number_float());
  EXPECT_TRUE(s["label"].is_string());
  EXPECT_EQ(s["label"], "123");
  EXPECT_TRUE(s["plain"].is_number_integer());
  EXPECT_EQ(s["flag"], "yes-ish");
  EXPECT_EQ(s["on"], true);
  EXPECT_EQ(c.plugin_settings.at("working"), nlohmann::json::object());  // empty section
}

TEST(ConfigTest, YamlToJsonScalars) {
  auto j = YamlToJson("a: \"123\"\nb: 123\nc: '1.5'\nd: 1.5\ne: ~\nf: false\ng: -7\nh: 99999999999999999999999\n"
                      "i: \"true\"\nj: 1e3\n");
  EXPECT_EQ(j["a"], "123");
  EXPECT_EQ(j["b"], 123);
  EXPECT_EQ(j["c"], "1.5");
  EXPECT_DOUBLE_EQ(j["d"].get<double>(), 1.5);
  EXPECT_TRUE(j["e"].is_null());
  EXPECT_EQ(j["f"], false);
  EXPECT_EQ(j["g"], -7);
  EXPECT_TRUE(j["h"].is_string());  // too large for int64: kept as text, not silently wrapped
  EXPECT_EQ(j["i"], "true");
  EXPECT_DOUBLE_EQ(j["j"].get<double>(), 1000.0);
}

TEST(ConfigTest, ResolveHomePrecedence) {
  ScopedEnv home("HOME", "/home/tester");
  {
    ScopedEnv kioku_home("KIOKU_HOME", "/srv/kioku/../kioku-data");
    EXPECT_EQ(ResolveHome("/from/config"), std::filesystem::path("/srv/kioku-data"));
  }
  {
    ScopedEnv kioku_home("KIOKU_HOME", std::nullopt);
    EXPECT_EQ(ResolveHome("/from/config"), std::filesystem::path("/from/config"));
    EXPECT_EQ(ResolveHome("~/mem"), std::filesystem::path("/home/tester/mem"));
    EXPECT_EQ(ResolveHome("~"), std::filesystem::path("/home/tester"));
    EXPECT_THROW(ResolveHome("~bob/mem"), std::runtime_error);  // was /home/testerbob/mem
    EXPECT_EQ(ResolveHome(""), std::filesystem::path("/home/tester/.kioku"));
  }
  {
    ScopedEnv kioku_home("KIOKU_HOME", "");  // empty counts as unset
    EXPECT_EQ(ResolveHome(""), std::filesystem::path("/home/tester/.kioku"));
  }
  {
    ScopedEnv kioku_home("KIOKU_HOME", "~/env-home");
    EXPECT_EQ(ResolveHome("/from/config"), std::filesystem::path("/home/tester/env-home"));
  }
}

TEST(ConfigTest, ReadConfigTextPrefersCliThenEnvThenEmbedded) {
  TempDir dir;
  auto cli = dir.Write("cli.yaml", "plugins: {enabled: [working]}\n");
  auto env = dir.Write("env.yaml", "plugins: {enabled: [semantic]}\n");
  ScopedEnv kioku_config("KIOKU_CONFIG", env.string());
  auto [text, source] = ReadConfigText(cli.string());
  EXPECT_EQ(source, cli.string());
  EXPECT_EQ(text, "plugins: {enabled: [working]}\n");
  auto [env_text, env_source] = ReadConfigText("");
  EXPECT_EQ(env_source, env.string());
  EXPECT_EQ(env_text, "plugins: {enabled: [semantic]}\n");
  {
    ScopedEnv unset("KIOKU_CONFIG", std::nullopt);
    auto [embedded, embedded_source] = ReadConfigText("");
    EXPECT_EQ(embedded_source, "(embedded default)");
    EXPECT_EQ(embedded, EmbeddedDefaultConfig());
  }
}

TEST(ConfigTest, UnreadableFileNamesIt) {
  TempDir dir;
  auto missing = dir.path() / "nope.yaml";
  EXPECT_EQ(ErrorOf([&] { ReadConfigText(missing.string()); }), "config " + missing.string() + ": cannot read the file");
  if (::geteuid() != 0) {  // root reads mode-000 files
    auto locked = dir.Write("locked.yaml", "plugins: {enabled: []}\n");
    ::chmod(locked.c_str(), 0);
    EXPECT_THAT(ErrorOf([&] { ReadConfigText(locked.string()); }), HasSubstr("cannot read the file"));
  }
  ScopedEnv env("KIOKU_CONFIG", missing.string());
  EXPECT_THAT(ErrorOf([&] { ReadConfigText(""); }), HasSubstr(missing.string()));
}

TEST(ConfigTest, DirectoryAsConfigIsRefused) {
  TempDir dir;
  EXPECT_THAT(ErrorOf([&] { ReadConfigText(dir.path().string()); }), HasSubstr("cannot read the file"));
}

}  // namespace
}  // namespace kioku::host
