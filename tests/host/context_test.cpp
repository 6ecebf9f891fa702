// The context block: assembly under the budget (whole items, priority order, footer),
// provider failures, and `kioku context` failing open (broken config, unreadable
// database, bad arguments) and printing nothing for an irrelevant prompt.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "cli/commands.hpp"
#include "context/context_block.hpp"
#include "host_test_util.hpp"
#include "mcp/dispatcher.hpp"
#include "test_runtime.hpp"

namespace kioku::host {
namespace {

using testing::TempDir;

class ProviderPlugin final : public sdk::Plugin {
 public:
  ProviderPlugin(sdk::HostServices&, sdk::ContextProviderFn fn) : fn_(std::move(fn)) {}
  void Register(sdk::Registrar& r) override { r.AddContextProvider({"ignored", fn_}); }

 private:
  sdk::ContextProviderFn fn_;
};

class ContextTest : public ::testing::Test {
 protected:
  void Add(const std::string& name, sdk::ContextProviderFn fn) {
    rt_.runtime->AddPlugin(name, [fn](sdk::HostServices& h) { return std::make_unique<ProviderPlugin>(h, fn); });
  }
  ContextBlock Build(std::size_t tokens = 2000, const std::string& query = "") {
    ContextOptions o;
    o.token_budget = tokens;
    o.query = query;
    return BuildContext(*rt_.runtime, kioku::testing::TestRuntime::DefaultCaller(), o);
  }
  kioku::testing::TestRuntime rt_;
};

sdk::ContextContribution Many(std::size_t n, const std::string& kind, double priority) {
  sdk::ContextContribution c;
  for (std::size_t i = 0; i < n; ++i) {
    c.items.push_back({kind, "confirmed", kind + " item " + std::to_string(i) + " " + std::string(90, 'x'), priority});
  }
  return c;
}

TEST_F(ContextTest, WholeItemsByPriorityUnderTheBudgetWithAFooter) {
  std::size_t asked = 0;
  Add("low", [&](const sdk::ContextRequest& r) {
    asked = r.max_items;
    auto c = Many(r.max_items, "fact", 0.5);
    c.withheld.push_back({"pending review", 3});
    return c;
  });
  Add("high", [](const sdk::ContextRequest&) { return Many(2, "handoff", 1.0); });
  rt_.Start();
  for (std::size_t tokens : {150u, 500u, 2000u, 5000u}) {
    const ContextBlock b = Build(tokens);
    ASSERT_FALSE(b.text.empty()) << tokens;
    EXPECT_LE(b.text.size(), std::min<std::size_t>(tokens * 4, kContextMaxChars)) << tokens;
    std::istringstream in(b.text);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    EXPECT_NE(lines[1].find("[handoff|confirmed] handoff item 0"), std::string::npos) << b.text;
    for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
      EXPECT_EQ(lines[i].substr(lines[i].size() - 10), std::string(10, 'x')) << "item cut: " << lines[i];
    }
    EXPECT_EQ(b.shown + b.cut, 2 + asked);
    EXPECT_GT(b.cut, 0u) << tokens;
    EXPECT_NE(lines.back().find("3 pending review, " + std::to_string(b.cut) + " cut by the budget"), std::string::npos)
        << lines.back();
  }
  EXPECT_LE(Build(1'000'000).text.size(), kContextMaxChars);
}

TEST_F(ContextTest, TheHeaderAsksToVerifyOnlyWhenSomethingIsUnconfirmed) {
  bool suggestion = false;
  Add("p", [&](const sdk::ContextRequest&) {
    sdk::ContextContribution c;
    c.items.push_back({"fact", "confirmed", "the build uses cmake", 0.7});
    if (suggestion) c.items.push_back({"fact", "unconfirmed", "tests may need docker", 0.6});
    return c;
  });
  rt_.Start();
  EXPECT_EQ(Build(2000).text.rfind("kioku memory for this project (labels: [kind|trust]):\n", 0), 0u) << Build(2000).text;
  suggestion = true;
  EXPECT_EQ(Build(2000).text.rfind("kioku memory for this project (labels: [kind|trust]; verify unconfirmed items):\n", 0), 0u)
      << Build(2000).text;
}

TEST_F(ContextTest, NothingToSayIsNothingAndABrokenProviderIsSkipped) {
  Add("empty", [](const sdk::ContextRequest& r) {
    sdk::ContextContribution c;
    if (!r.query.empty()) c.withheld.push_back({"contested", 1});
    return c;
  });
  Add("broken", [](const sdk::ContextRequest&) -> sdk::ContextContribution { throw std::runtime_error("disk gone"); });
  rt_.Start();
  ContextBlock b = Build(2000, "anything");
  EXPECT_EQ(b.text, "") << "withheld counts alone are filler";
  ASSERT_EQ(b.failed.size(), 1u);
  EXPECT_EQ(b.failed[0], "broken: disk gone");
  EXPECT_EQ(Build(2000).text, "");
}

TEST_F(ContextTest, APluginAddsOneProvider) {
  rt_.runtime->AddPlugin("twice", [](sdk::HostServices& h) {
    auto fn = [](const sdk::ContextRequest&) { return sdk::ContextContribution{}; };
    struct Twice final : sdk::Plugin {
      explicit Twice(sdk::ContextProviderFn f) : f_(std::move(f)) {}
      void Register(sdk::Registrar& r) override {
        r.AddContextProvider({"a", f_});
        r.AddContextProvider({"b", f_});
      }
      sdk::ContextProviderFn f_;
    };
    (void)h;
    return std::make_unique<Twice>(fn);
  });
  EXPECT_THROW(rt_.Start(), std::runtime_error);
}

// ---- `kioku context` fails open ----

struct CliRun {
  std::string out, err;
};

CliRun RunContext(const cli::GlobalOptions& global, const std::vector<std::string>& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  EXPECT_EQ(cli::Context(global, args, in, out, err), 0);
  return {out.str(), err.str()};
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

cli::GlobalOptions Fixture(const TempDir& dir, const std::string& home_note = "") {
  cli::GlobalOptions g;
  g.config_path = dir.Write("kioku.yaml", "home: " + (dir.path() / "home").string() + "\n" + home_note +
                                              "plugins:\n  enabled: [fixture]\n")
                      .string();
  g.plugin_dirs.emplace_back(KIOKU_FIXTURE_PLUGIN_DIR);
  return g;
}

TEST(ContextCli, BrokenConfigPrintsNothingAndOneLine) {
  TempDir dir;
  cli::GlobalOptions g;
  g.config_path = dir.Write("bad.yaml", "plugins: [unclosed\n").string();
  CliRun r = RunContext(g, {"--hook-stdin"}, R"({"hook_event_name":"SessionStart","cwd":"/tmp"})");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("kioku context: ", 0), 0u) << r.err;

  g.config_path = (dir.path() / "missing.yaml").string();
  r = RunContext(g, {});
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1) << r.err;
}

TEST(ContextCli, UnreadableDatabasePrintsNothingAndOneLine) {
  TempDir dir;
  dir.Write("home/kioku.db", std::string(4096, 'G'));  // not a database
  CliRun r = RunContext(Fixture(dir), {"--hook-stdin"}, R"({"hook_event_name":"SessionStart","cwd":"/tmp"})");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1) << r.err;
}

TEST(ContextCli, BadArgumentsAndEnvelopesFailOpen) {
  TempDir dir;
  for (const auto& [args, input] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--budget", "lots"}, ""},
           {{"--frobnicate"}, ""},
           {{"--hook-stdin"}, "not json"},
           {{"--hook-stdin"}, "[]"},
       }) {
    CliRun r = RunContext(Fixture(dir), args, input);
    EXPECT_EQ(r.out, "") << input;
    EXPECT_EQ(Lines(r.err), 1) << r.err;
  }
}

TEST(ContextCli, PromptWithNothingRelevantPrintsNothing) {
  TempDir dir;
  CliRun r = RunContext(Fixture(dir), {"--hook-stdin"},
                        R"({"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":"hello there"})");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  r = RunContext(Fixture(dir), {"--hook-stdin"}, R"({"hook_event_name":"Stop","cwd":"/tmp"})");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1) << "a non-context event is named";
  // At the command line the empty answer says it is one (stderr; stdout stays empty).
  r = RunContext(Fixture(dir), {"--query", "deploy day"});
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kioku context: nothing to show relevant to \"deploy day\" (no memory, session or plan matched)\n");
}

// ---- the block as an MCP prompt and resource ----

TEST_F(ContextTest, PromptAndResourceAreAdvertisedAndServeTheBlock) {
  Add("p", [](const sdk::ContextRequest& r) {
    sdk::ContextContribution c;
    c.items.push_back({"decision", "pinned", r.query.empty() ? "we use pnpm" : "about " + r.query, 1.0});
    return c;
  });
  rt_.Start();
  mcp::Dispatcher d(*rt_.runtime, mcp::DispatcherOptions{});
  mcp::Session s;
  s.id = "s1";
  auto call = [&](const nlohmann::json& m) { return *d.Handle(m, s); };
  auto init = call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                    {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", nlohmann::json::object()},
                                {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
  EXPECT_TRUE(init["result"]["capabilities"].contains("prompts"));
  EXPECT_TRUE(init["result"]["capabilities"].contains("resources"));
  auto got = call({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "prompts/get"},
                   {"params", {{"name", "context"}, {"arguments", {{"query", "tabs"}}}}}});
  EXPECT_NE(got["result"]["messages"][0]["content"]["text"].get<std::string>().find("[decision|pinned] about tabs"),
            std::string::npos)
      << got.dump();
  auto read = call({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "resources/read"}, {"params", {{"uri", "kioku://context"}}}});
  EXPECT_NE(read["result"]["contents"][0]["text"].get<std::string>().find("we use pnpm"), std::string::npos)
      << read.dump();
  auto missing = call({{"jsonrpc", "2.0"}, {"id", 4}, {"method", "resources/read"}, {"params", {{"uri", "kioku://x"}}}});
  EXPECT_EQ(missing["error"]["code"], -32602);
  auto bad = call({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "prompts/get"}, {"params", {{"name", "nope"}}}});
  EXPECT_EQ(bad["error"]["code"], -32602);
}

TEST(ContextDispatcher, NoProviderNoPromptsOrResources) {
  kioku::testing::TestRuntime rt;
  rt.Start();
  mcp::Dispatcher d(*rt.runtime, mcp::DispatcherOptions{});
  mcp::Session s;
  auto r = *d.Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "prompts/list"}}, s);
  EXPECT_EQ(r["error"]["code"], -32601);
}

}  // namespace
}  // namespace kioku::host
