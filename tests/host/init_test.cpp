// kioku init / uninstall: text-preserving JSON and TOML edits, the marked block, and round
// trips on fixture configs of every client holding unrelated entries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/init.hpp"
#include "cli/json_edit.hpp"
#include "cli/marked_block.hpp"
#include "cli/text_diff.hpp"
#include "cli/toml_edit.hpp"
#include "host_test_util.hpp"

namespace kioku::host::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ScopedEnv;
using testing::TempDir;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- JSON text edits ----

TEST(JsonTextTest, AddThenRemoveGivesBackTheSameBytes) {
  const std::string original =
      "{\n    // user comment\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n"
      "    },\n    \"list\": [1, 2]\n}\n";
  JsonText doc(original, "f.json");
  doc.Set({"mcpServers", "kioku"}, ordered_json{{"command", "/k"}, {"args", {"serve"}}});
  EXPECT_THAT(doc.Text(), HasSubstr("\"other\": {\"command\": \"x\"},\n        \"kioku\": {\n            \"command\": \"/k\""));
  EXPECT_THAT(doc.Text(), HasSubstr("// user comment"));
  EXPECT_EQ((*doc.Get({"mcpServers", "kioku", "args"}))[0], "serve");
  doc.Remove({"mcpServers", "kioku"});
  EXPECT_EQ(doc.Text(), original);
}

TEST(JsonTextTest, CreatesAndRemovesMissingParents) {
  const std::string original = "{\n\t\"a\": 1\n}";
  JsonText doc(original, "f.json");
  doc.Set({"mcpServers", "kioku"}, ordered_json{{"command", "/k"}});
  EXPECT_EQ(doc.Text(), "{\n\t\"a\": 1,\n\t\"mcpServers\": {\n\t\t\"kioku\": {\n\t\t\t\"command\": \"/k\"\n\t\t}\n\t}\n}");
  doc.Remove({"mcpServers", "kioku"});
  EXPECT_EQ(doc.Text(), original);
}

TEST(JsonTextTest, FirstOfSeveralAndSingleLineObjects) {
  const std::string original = R"({"hooks": {"Stop": [{"x": 1}]}, "b": true})";
  JsonText doc(original, "f.json");
  doc.Append({"hooks", "Stop"}, ordered_json{{"y", 2}});
  EXPECT_EQ(doc.Text(), R"({"hooks": {"Stop": [{"x": 1}, {"y":2}]}, "b": true})");
  doc.RemoveElement({"hooks", "Stop"}, 1);
  EXPECT_EQ(doc.Text(), original);
  doc.Remove({"hooks"});
  EXPECT_EQ(doc.Text(), R"({"b": true})");
}

TEST(JsonTextTest, EmptyTextIsAnEmptyObjectAndBadJsonIsRefused) {
  JsonText doc("", "new.json");
  doc.Set({"servers", "kioku"}, ordered_json{{"command", "/k"}});
  EXPECT_EQ(doc.Text(), "{\n  \"servers\": {\n    \"kioku\": {\n      \"command\": \"/k\"\n    }\n  }\n}\n");
  try {
    JsonText bad("{\"a\": ", "/p/settings.json");
    FAIL() << "accepted broken JSON";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/p/settings.json is not valid JSON"));
  }
  EXPECT_THROW(JsonText("[1]", "a.json"), std::runtime_error);
  // A trailing comma (JSONC as VS Code writes it) is named, with what to do; one inside a
  // string or a comment is not taken for one.
  try {
    JsonText trailing("{\n  // c, ]\n  \"servers\": {\"a\": \"x,}\"},\n}\n", ".vscode/mcp.json");
    FAIL() << "accepted a trailing comma";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(".vscode/mcp.json has a comma before a closing '}' or ']'"));
  }
  try {
    JsonText broken("{\"a\": \"x,}\" \"b\": 1}", "b.json");
    FAIL() << "accepted broken JSON";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("b.json is not valid JSON"));
  }
}

// ---- TOML ----

const char* kCodexConfig =
    "# my codex config\nmodel = \"o4\"  # trailing comment\n\n[mcp_servers.other]\ncommand = \"npx\"\n"
    "args = [\"-y\", \"other\"]\n\n[profiles.fast]\nmodel = \"mini\"\n";

TEST(TomlTextTest, AppendThenRemoveGivesBackTheSameBytes) {
  TomlText doc(kCodexConfig, "config.toml");
  ordered_json entry = {{"command", "/opt/k i/kioku"}, {"args", {"serve"}}, {"env", {{"KIOKU_AGENT_ID", "codex"}}}};
  doc.SetTable({"mcp_servers", "kioku"}, entry);
  EXPECT_EQ(doc.Text().substr(0, std::string(kCodexConfig).size()), kCodexConfig);
  EXPECT_EQ(*doc.Get({"mcp_servers", "kioku"}), json::parse(entry.dump()));
  EXPECT_EQ(*doc.Get({"mcp_servers", "other", "command"}), "npx");
  doc.RemoveTable({"mcp_servers", "kioku"});
  EXPECT_EQ(doc.Text(), kCodexConfig);
}

TEST(TomlTextTest, ReplacesATableInTheMiddleInPlace) {
  const std::string before = "a = 1\n\n[mcp_servers.kioku]\ncommand = \"old\"\n[mcp_servers.kioku.env]\nX = \"1\"\n\n# next\n[z]\nq = 2\n";
  TomlText doc(before, "c.toml");
  doc.SetTable({"mcp_servers", "kioku"}, ordered_json{{"command", "new"}});
  EXPECT_EQ(doc.Text(), "a = 1\n\n[mcp_servers.kioku]\ncommand = 'new'\n\n# next\n[z]\nq = 2\n");
  doc.RemoveTable({"mcp_servers", "kioku"});
  EXPECT_EQ(doc.Text(), "a = 1\n\n# next\n[z]\nq = 2\n");
}

TEST(TomlTextTest, InlineTablesAndBrokenFilesAreLeftToTheUser) {
  TomlText inline_doc("mcp_servers = { kioku = { command = \"x\" } }\n", "c.toml");
  EXPECT_FALSE(inline_doc.HasOwnHeader({"mcp_servers", "kioku"}));
  EXPECT_THROW(inline_doc.SetTable({"mcp_servers", "kioku"}, ordered_json{{"command", "y"}}), std::runtime_error);
  try {
    TomlText bad("[a\nb = 1\n", "/h/.codex/config.toml");
    FAIL() << "accepted broken TOML";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/h/.codex/config.toml:1: not valid TOML"));
  }
}

// ---- marked block and diff ----

TEST(MarkedBlockTest, AppendReplaceRemove) {
  const std::string original = "# Project\n\nBuild with make.\n";
  std::string with = SetMarkedBlock(original, AgentInstructionsBlock());
  EXPECT_THAT(with, HasSubstr("Build with make.\n\n<!-- kioku:begin"));
  EXPECT_EQ(SetMarkedBlock(with, AgentInstructionsBlock()), with);
  EXPECT_EQ(SetMarkedBlock(with, "<!-- kioku:begin -->\nnew\n<!-- kioku:end -->\n"),
            original + "\n<!-- kioku:begin -->\nnew\n<!-- kioku:end -->\n");
  EXPECT_EQ(RemoveMarkedBlock(with, "CLAUDE.md"), original);
  EXPECT_EQ(RemoveMarkedBlock(AgentInstructionsBlock(), "CLAUDE.md"), "");
  EXPECT_THROW(RemoveMarkedBlock("<!-- kioku:begin -->\nx\n", "CLAUDE.md"), std::runtime_error);
}

TEST(TextDiffTest, OneHunkWithContext) {
  EXPECT_EQ(UnifiedDiff("f", "a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(UnifiedDiff("f", "1\n2\n3\n4\n5\n", "1\n2\n3\nX\n4\n5\n"),
            "--- f\n+++ f\n@@ -1,5 +1,6 @@\n 1\n 2\n 3\n+X\n 4\n 5\n");
}

// ---- kioku init / uninstall per client ----

class InitTest : public ::testing::Test {
 protected:
  InitOptions Options(const std::string& client) {
    InitOptions o;
    o.client = client;
    o.project_dir = dir_.path() / "proj";
    o.home = dir_.path() / "home";
    o.kioku_path = "/opt/kioku/bin/kioku";
    return o;
  }
  int Run(const InitOptions& o, bool install) {
    out_.str("");
    err_.str("");
    return RunInit(o, install, out_, err_);
  }
  fs::path P(const std::string& rel) { return dir_.path() / "proj" / rel; }
  fs::path H(const std::string& rel) { return dir_.path() / "home" / rel; }
  fs::path Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  json Json(const fs::path& p) { return json::parse(Read(p), nullptr, true, true); }

  TempDir dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

const char* kClaudeSettings = R"J({
  "permissions": {
    "allow": ["Bash(make:*)"]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write",
        "hooks": [{"type": "command", "command": "prettier --write"}]
      }
    ]
  }
}
)J";

TEST_F(InitTest, ClaudeCodeProjectRoundTripKeepsEveryOtherByte) {
  const std::string mcp = "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"gh-mcp\"}\n  }\n}\n";
  const std::string claude_md = "# Notes\n\nUse pnpm.\n";
  Write(P(".mcp.json"), mcp);
  Write(P(".claude/settings.json"), kClaudeSettings);
  Write(P("CLAUDE.md"), claude_md);
  auto o = Options("claude-code");
  ASSERT_EQ(Run(o, true), 0) << err_.str();
  EXPECT_NE(out_.str().find("Memory is kept in "), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("/.kioku (set KIOKU_HOME before kioku init"), std::string::npos) << out_.str();

  json server = Json(P(".mcp.json"))["mcpServers"]["kioku"];
  EXPECT_EQ(server["command"], "/opt/kioku/bin/kioku");
  EXPECT_EQ(server["args"], json::array({"serve"}));
  EXPECT_EQ(server["env"]["KIOKU_AGENT_ID"], "claude-code");
  EXPECT_EQ(Json(P(".mcp.json"))["mcpServers"]["github"]["command"], "gh-mcp");
  json hooks = Json(P(".claude/settings.json"))["hooks"];
  for (const char* event :
       {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd", "PostToolUse", "PostToolUseFailure"}) {
    ASSERT_TRUE(hooks.contains(event)) << event;
    EXPECT_THAT(hooks[event].back()["hooks"][0]["command"].get<std::string>(), HasSubstr("|| true # kioku init"));
  }
  EXPECT_EQ(hooks["SessionStart"][0]["hooks"][0]["command"],
            "KIOKU_AGENT_ID='claude-code' '/opt/kioku/bin/kioku' context --hook-stdin || true # kioku init");
  EXPECT_THAT(hooks["Stop"][0]["hooks"][0]["command"].get<std::string>(), HasSubstr("' hook capture ||"));
  EXPECT_EQ(hooks["PostToolUse"][0]["matcher"], "Write");  // the user's hook stays first
  EXPECT_THAT(hooks["PostToolUse"][1]["hooks"][0]["command"].get<std::string>(), HasSubstr("hook post-tool-use"));
  EXPECT_THAT(hooks["PostToolUseFailure"][0]["hooks"][0]["command"].get<std::string>(), HasSubstr("hook post-tool-use"));
  EXPECT_THAT(Read(P("CLAUDE.md")), HasSubstr("memory_recall"));

  ASSERT_EQ(Run(o, true), 0);  // idempotent
  EXPECT_THAT(out_.str(), HasSubstr(".mcp.json: up to date"));
  EXPECT_THAT(out_.str(), HasSubstr(".claude/settings.json: up to date"));

  ASSERT_EQ(Run(o, false), 0) << err_.str();
  EXPECT_EQ(Read(P(".mcp.json")), mcp);
  EXPECT_EQ(Read(P(".claude/settings.json")), kClaudeSettings);
  EXPECT_EQ(Read(P("CLAUDE.md")), claude_md);
}

TEST_F(InitTest, FilesInitCreatedAreDeletedByUninstall) {
  auto o = Options("claude-code");
  ASSERT_EQ(Run(o, true), 0);
  EXPECT_THAT(out_.str(), HasSubstr(".mcp.json: created"));
  EXPECT_TRUE(fs::exists(P(".claude/settings.json")));
  ASSERT_EQ(Run(o, false), 0);
  EXPECT_FALSE(fs::exists(P(".mcp.json")));
  EXPECT_FALSE(fs::exists(P(".claude/settings.json")));
  EXPECT_FALSE(fs::exists(P("CLAUDE.md")));
}

// A file the person had, with a comment and the container kioku's entry goes into:
// uninstall gives back its bytes instead of pruning the emptied container (and the comment
// with it) and deleting the file as if init had made it.
TEST_F(InitTest, UninstallKeepsAFileThePersonHadWithItsComments) {
  const std::string mcp = "{\n  // keep me: my team note\n  \"mcpServers\": {}\n}\n";
  Write(P(".mcp.json"), mcp);
  auto o = Options("claude-code");
  ASSERT_EQ(Run(o, true), 0) << err_.str();
  ASSERT_EQ(Run(o, false), 0) << err_.str();
  ASSERT_TRUE(fs::exists(P(".mcp.json")));
  EXPECT_EQ(Read(P(".mcp.json")), mcp);
}

TEST_F(InitTest, ClaudeCodeUserLevelUsesClaudeJson) {
  const std::string user = "{\n  \"numStartups\": 12,\n  \"projects\": {\"/x\": {\"allowedTools\": []}}\n}\n";
  Write(H(".claude.json"), user);
  auto o = Options("claude-code");
  o.user = true;
  ASSERT_EQ(Run(o, true), 0) << err_.str();
  EXPECT_EQ(Json(H(".claude.json"))["mcpServers"]["kioku"]["type"], "stdio");
  EXPECT_TRUE(Json(H(".claude/settings.json"))["hooks"].contains("SessionStart"));
  EXPECT_TRUE(fs::exists(H(".claude/CLAUDE.md")));
  EXPECT_FALSE(fs::exists(P(".mcp.json")));
  ASSERT_EQ(Run(o, false), 0);
  EXPECT_EQ(Read(H(".claude.json")), user);
}

TEST_F(InitTest, HandWrittenEntryIsAConflictUnlessForced) {
  const std::string mcp = "{\"mcpServers\": {\"kioku\": {\"command\": \"/home/me/kioku\", \"args\": [\"serve\"]}}}\n";
  Write(P(".mcp.json"), mcp);
  auto o = Options("claude-code");
  EXPECT_EQ(Run(o, true), 1);
  EXPECT_THAT(err_.str(), HasSubstr(".mcp.json: an MCP server named \"kioku\" is already there"));
  EXPECT_THAT(err_.str(), HasSubstr("nothing written"));
  EXPECT_EQ(Read(P(".mcp.json")), mcp);
  EXPECT_FALSE(fs::exists(P(".claude/settings.json")));  // all or nothing

  EXPECT_EQ(Run(o, false), 0);  // uninstall leaves the hand-written entry alone
  EXPECT_THAT(out_.str(), HasSubstr("not written by kioku init; left alone"));
  EXPECT_EQ(Read(P(".mcp.json")), mcp);

  o.force = true;
  ASSERT_EQ(Run(o, true), 0) << err_.str();
  EXPECT_EQ(Json(P(".mcp.json"))["mcpServers"]["kioku"]["command"], "/opt/kioku/bin/kioku");
}

TEST_F(InitTest, DryRunPrintsADiffAndWritesNothing) {
  const std::string mcp = "{\n  \"mcpServers\": {}\n}\n";
  Write(P(".cursor/mcp.json"), mcp);
  auto o = Options("cursor");
  o.dry_run = true;
  ASSERT_EQ(Run(o, true), 0);
  EXPECT_THAT(out_.str(), HasSubstr("--- .cursor/mcp.json\n+++ .cursor/mcp.json\n@@ -1,3 +1,14 @@\n {\n-  \"mcpServers\": {}\n"));
  EXPECT_THAT(out_.str(), HasSubstr("+      \"command\": \"/opt/kioku/bin/kioku\","));
  EXPECT_THAT(out_.str(), HasSubstr("+++ AGENTS.md"));
  EXPECT_EQ(Read(P(".cursor/mcp.json")), mcp);
  EXPECT_FALSE(fs::exists(P("AGENTS.md")));
}

TEST_F(InitTest, RerunUpdatesEntriesInPlace) {
  auto o = Options("claude-code");
  ASSERT_EQ(Run(o, true), 0);
  o.kioku_path = "/usr/local/bin/kioku";
  ASSERT_EQ(Run(o, true), 0);
  EXPECT_THAT(out_.str(), HasSubstr(".mcp.json: updated"));
  EXPECT_EQ(Json(P(".mcp.json"))["mcpServers"]["kioku"]["command"], "/usr/local/bin/kioku");
  json hooks = Json(P(".claude/settings.json"))["hooks"];
  EXPECT_EQ(hooks["Stop"].size(), 1u);
  EXPECT_THAT(hooks["Stop"][0]["hooks"][0]["command"].get<std::string>(), HasSubstr("'/usr/local/bin/kioku'"));
}

TEST_F(InitTest, CodexUserConfigTomlAndHooks) {
  Write(H(".codex/config.toml"), kCodexConfig);
  auto o = Options("codex");
  ASSERT_EQ(Run(o, true), 0) << err_.str();
  const std::string toml = Read(H(".codex/config.toml"));
  EXPECT_EQ(toml.substr(0, std::string(kCodexConfig).size()), kCodexConfig);
  EXPECT_THAT(toml, HasSubstr("\n[mcp_servers.kioku]\ncommand = '/opt/kioku/bin/kioku'\nargs = [ 'serve' ]\n"));
  json hooks = Json(H(".codex/hooks.json"))["hooks"];
  EXPECT_TRUE(hooks.contains("SessionStart"));
  EXPECT_TRUE(hooks.contains("Stop"));
  EXPECT_FALSE(hooks.contains("SessionEnd"));  // Codex has no such event
  EXPECT_FALSE(hooks.contains("PostToolUseFailure"));
  EXPECT_TRUE(fs::exists(H(".codex/AGENTS.md")));
  ASSERT_EQ(Run(o, true), 0);
  EXPECT_THAT(out_.str(), HasSubstr("~/.codex/config.toml: up to date"));
  ASSERT_EQ(Run(o, false), 0) << err_.str();
  EXPECT_EQ(Read(H(".codex/config.toml")), kCodexConfig);
  EXPECT_FALSE(fs::exists(H(".codex/hooks.json")));
}

TEST_F(InitTest, CodexHandWrittenTableIsAConflict) {
  const std::string toml = "[mcp_servers.kioku]\ncommand = \"/mine/kioku\"\n";
  Write(H(".codex/config.toml"), toml);
  EXPECT_EQ(Run(Options("codex"), true), 1);
  EXPECT_THAT(err_.str(), HasSubstr("~/.codex/config.toml: an MCP server named \"kioku\""));
  EXPECT_EQ(Read(H(".codex/config.toml")), toml);
}

TEST_F(InitTest, CursorGeminiVscodeRoundTrips) {
  const std::string gemini = "{\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"fs-mcp\"}\n  }\n}\n";
  const std::string vscode = "// VS Code allows comments\n{\n\t\"inputs\": [],\n\t\"servers\": {\n\t\t\"py\": {\"type\": \"stdio\", \"command\": \"py\"}\n\t}\n}\n";
  const std::string cursor = "{\"mcpServers\":{\"a\":{\"url\":\"http://x\"}}}";
  Write(P(".gemini/settings.json"), gemini);
  Write(P(".vscode/mcp.json"), vscode);
  Write(P(".cursor/mcp.json"), cursor);
  for (const char* client : {"gemini-cli", "vscode", "cursor"}) {
    ASSERT_EQ(Run(Options(client), true), 0) << client << ": " << err_.str();
  }
  EXPECT_EQ(Json(P(".gemini/settings.json"))["mcpServers"]["kioku"]["env"]["KIOKU_AGENT_ID"], "gemini-cli");
  EXPECT_EQ(Json(P(".vscode/mcp.json"))["servers"]["kioku"]["type"], "stdio");
  EXPECT_THAT(Read(P(".vscode/mcp.json")), HasSubstr("\t\t\"kioku\": {\n\t\t\t\"type\": \"stdio\","));
  EXPECT_EQ(Json(P(".cursor/mcp.json"))["mcpServers"]["kioku"]["args"], json::array({"serve"}));
  EXPECT_THAT(Read(P("GEMINI.md")), HasSubstr("<!-- kioku:begin"));
  for (const char* client : {"gemini-cli", "vscode", "cursor"}) {
    ASSERT_EQ(Run(Options(client), false), 0) << client << ": " << err_.str();
  }
  EXPECT_EQ(Read(P(".gemini/settings.json")), gemini);
  EXPECT_EQ(Read(P(".vscode/mcp.json")), vscode);
  EXPECT_EQ(Read(P(".cursor/mcp.json")), cursor);
  EXPECT_FALSE(fs::exists(P("AGENTS.md")));
}

TEST_F(InitTest, UserLevelPathsOfCursorGeminiVscode) {
  testing::ScopedEnv xdg("XDG_CONFIG_HOME", std::nullopt);
  for (const char* client : {"gemini-cli", "vscode", "cursor"}) {
    auto o = Options(client);
    o.user = true;
    ASSERT_EQ(Run(o, true), 0) << client << ": " << err_.str();
  }
  EXPECT_TRUE(fs::exists(H(".gemini/settings.json")));
  EXPECT_TRUE(fs::exists(H(".config/Code/User/mcp.json")));
  EXPECT_TRUE(fs::exists(H(".cursor/mcp.json")));
  EXPECT_FALSE(fs::exists(dir_.path() / "proj"));
}

TEST_F(InitTest, BrokenConfigIsReportedAndNothingWritten) {
  Write(P(".claude/settings.json"), "{\"hooks\": [}");
  EXPECT_EQ(Run(Options("claude-code"), true), 1);
  EXPECT_THAT(err_.str(), HasSubstr(".claude/settings.json is not valid JSON"));
  EXPECT_FALSE(fs::exists(P(".mcp.json")));
}

TEST_F(InitTest, UnknownClientNamesTheSupportedOnes) {
  EXPECT_EQ(Run(Options("emacs"), true), 2);
  EXPECT_THAT(err_.str(), HasSubstr("unknown client 'emacs'; supported: claude-code, codex, cursor, gemini-cli, vscode"));
}

TEST_F(InitTest, NoHooksAndConfigPassedOn) {
  auto o = Options("claude-code");
  o.hooks = false;
  o.instructions = false;
  o.config_path = "/etc/kioku/team.yaml";
  ASSERT_EQ(Run(o, true), 0);
  EXPECT_FALSE(fs::exists(P(".claude/settings.json")));
  EXPECT_FALSE(fs::exists(P("CLAUDE.md")));
  EXPECT_EQ(Json(P(".mcp.json"))["mcpServers"]["kioku"]["args"], json::array({"serve", "--config", "/etc/kioku/team.yaml"}));
  EXPECT_THAT(PrintSnippet(o), HasSubstr("\"mcpServers\": {\n    \"kioku\": {\n      \"command\": \"/opt/kioku/bin/kioku\""));
}

// A home and config the shell names by variable reach the agent's kioku: the MCP entry's env
// and args, and every hook command. Relative paths are made absolute (the agent starts
// kioku in its own working directory).
TEST_F(InitTest, HomeAndConfigFromTheEnvironmentArePassedOn) {
  const fs::path cwd = fs::current_path();
  fs::create_directories(dir_.path() / "shell");
  fs::current_path(dir_.path() / "shell");
  ScopedEnv home("KIOKU_HOME", "team-home");
  ScopedEnv config("KIOKU_CONFIG", "team.yaml");
  std::ostringstream out;
  // A config that is not there is refused: the agent's server could never start with it.
  EXPECT_EQ(Init(GlobalOptions{}, Options("claude-code"), true, false, out), 2);
  EXPECT_FALSE(fs::exists(P(".mcp.json")));
  Write(dir_.path() / "shell" / "team.yaml", "plugins: {}\n");
  const int code = Init(GlobalOptions{}, Options("claude-code"), /*install=*/true, /*print=*/false, out);
  fs::current_path(cwd);
  ASSERT_EQ(code, 0) << out.str();
  const std::string abs_home = (dir_.path() / "shell" / "team-home").string();
  const std::string abs_config = (dir_.path() / "shell" / "team.yaml").string();
  const json entry = Json(P(".mcp.json"))["mcpServers"]["kioku"];
  EXPECT_EQ(entry["env"]["KIOKU_HOME"], abs_home);
  EXPECT_EQ(entry["args"], json::array({"serve", "--config", abs_config}));
  const json hooks = Json(P(".claude/settings.json"))["hooks"];
  for (const char* event : {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}) {
    const std::string command = hooks[event][0]["hooks"][0]["command"];
    EXPECT_THAT(command, HasSubstr("KIOKU_HOME='" + abs_home + "' '/opt/kioku/bin/kioku' --config '" + abs_config + "'"))
        << event;
  }
  // Without the variables nothing of them is written.
  ScopedEnv no_home("KIOKU_HOME", std::nullopt);
  ScopedEnv no_config("KIOKU_CONFIG", std::nullopt);
  auto plain = Options("claude-code");
  plain.project_dir = dir_.path() / "plain";
  fs::create_directories(plain.project_dir);
  ASSERT_EQ(Init(GlobalOptions{}, plain, true, false, out), 0);
  const json bare = Json(plain.project_dir / ".mcp.json")["mcpServers"]["kioku"];
  EXPECT_FALSE(bare["env"].contains("KIOKU_HOME"));
  EXPECT_EQ(bare["args"], json::array({"serve"}));
}

// Running init again from a shell without KIOKU_HOME (to update kioku's path or hooks)
// keeps the home and config the first run wrote, and says so: the agent's memories stay
// where they are. Naming a home again replaces it.
TEST_F(InitTest, RerunWithoutHomeOrConfigKeepsTheEarlierOnes) {
  for (const std::string client : {"claude-code", "codex"}) {
    auto first = Options(client);
    first.data_home = "/srv/kioku-home";
    first.config_path = "/etc/kioku/team.yaml";
    ASSERT_EQ(Run(first, true), 0) << err_.str();
    auto again = Options(client);
    again.kioku_path = "/usr/local/bin/kioku";
    ASSERT_EQ(Run(again, true), 0) << err_.str();
    EXPECT_THAT(out_.str(), HasSubstr("kept KIOKU_HOME=/srv/kioku-home from the entry kioku init wrote before")) << client;
    EXPECT_THAT(out_.str(), HasSubstr("kept --config /etc/kioku/team.yaml")) << client;
    EXPECT_THAT(out_.str(), HasSubstr("Memory is kept in /srv/kioku-home (KIOKU_HOME).")) << client;
    const fs::path hooks_file = client == "codex" ? H(".codex/hooks.json") : P(".claude/settings.json");
    const std::string stop = Json(hooks_file)["hooks"]["Stop"][0]["hooks"][0]["command"];
    EXPECT_THAT(stop, HasSubstr("KIOKU_HOME='/srv/kioku-home' '/usr/local/bin/kioku' --config '/etc/kioku/team.yaml'"))
        << client;
    if (client == "claude-code") {
      const json entry = Json(P(".mcp.json"))["mcpServers"]["kioku"];
      EXPECT_EQ(entry["env"]["KIOKU_HOME"], "/srv/kioku-home");
      EXPECT_EQ(entry["args"], json::array({"serve", "--config", "/etc/kioku/team.yaml"}));
    } else {
      EXPECT_THAT(Read(H(".codex/config.toml")), HasSubstr("KIOKU_HOME = '/srv/kioku-home'"));
    }
    auto moved = Options(client);
    moved.data_home = "/srv/other-home";
    ASSERT_EQ(Run(moved, true), 0) << err_.str();
    EXPECT_THAT(out_.str(), Not(HasSubstr("kept KIOKU_HOME")));
    EXPECT_THAT(out_.str(), HasSubstr("kept --config"));
    const std::string now = Json(hooks_file)["hooks"]["Stop"][0]["hooks"][0]["command"];
    EXPECT_THAT(now, HasSubstr("KIOKU_HOME='/srv/other-home'"));
  }
}

}  // namespace
}  // namespace kioku::host::cli
