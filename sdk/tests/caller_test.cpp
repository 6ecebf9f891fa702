// sdk::ResolveAgentId — the one order of trust for who calls (token, then the client
// configuration, then the call's own argument) — instance holders, and the project a
// command-line process acts in.
#include <gtest/gtest.h>

#include <stdexcept>

#include "kioku/sdk/caller.hpp"

namespace kioku::sdk {
namespace {

Caller As(std::string agent, AgentSource source, std::string instance = "") {
  Caller c;
  c.agent_id = std::move(agent);
  c.agent_source = source;
  c.instance_id = std::move(instance);
  return c;
}

std::string Refusal(const Caller& c, const Json& args, AgentArgument policy = AgentArgument::kRefuseContradiction) {
  try {
    ResolveAgentId(c, args, true, policy);
  } catch (const ToolError& e) {
    return e.what();
  }
  return "";
}

TEST(ResolveAgentIdTest, TransportIdentityWinsAndAnEqualArgumentIsFine) {
  for (auto source : {AgentSource::kToken, AgentSource::kConfig, AgentSource::kClientInfo}) {
    const Caller c = As("claude-main", source);
    EXPECT_EQ(ResolveAgentId(c, Json::object()), "claude-main");
    EXPECT_EQ(ResolveAgentId(c, {{"agent_id", "claude-main"}}), "claude-main");
  }
}

TEST(ResolveAgentIdTest, ContradictingArgumentIsRefusedNamingBoth) {
  const std::string token = Refusal(As("ci-bot", AgentSource::kToken), {{"agent_id", "admin"}});
  EXPECT_NE(token.find("already identified as agent 'ci-bot' (from an HTTP bearer token)"), std::string::npos)
      << token;
  const std::string config = Refusal(As("claude-main", AgentSource::kConfig), {{"agent_id", "x"}});
  EXPECT_NE(config.find("KIOKU_AGENT_ID"), std::string::npos) << config;
}

TEST(ResolveAgentIdTest, OverridePolicyNeverBeatsAToken) {
  EXPECT_EQ(ResolveAgentId(As("claude-main", AgentSource::kConfig), {{"agent_id", "sub-1"}}, true,
                           AgentArgument::kOverrideUnlessToken),
            "sub-1");
  EXPECT_FALSE(
      Refusal(As("ci-bot", AgentSource::kToken), {{"agent_id", "sub-1"}}, AgentArgument::kOverrideUnlessToken).empty());
}

TEST(ResolveAgentIdTest, UnknownCallerTakesTheArgumentOrAsksForIt) {
  for (const char* unknown : {"", "unknown"}) {
    const Caller c = As(unknown, AgentSource::kNone);
    EXPECT_EQ(ResolveAgentId(c, {{"agent_id", "sub-agent-1"}}), "sub-agent-1");
    EXPECT_EQ(ResolveAgentId(c, Json::object(), /*required=*/false), "");
    EXPECT_NE(Refusal(c, Json::object()).find("send agent_id"), std::string::npos);
  }
}

TEST(ResolveAgentIdTest, MalformedArgumentsAreRefused) {
  const Caller c;
  for (const Json& bad : {Json("has space"), Json("unknown"), Json("a#b"), Json(""), Json(42)}) {
    EXPECT_FALSE(Refusal(c, {{"agent_id", bad}}).empty()) << bad.dump();
  }
}

TEST(InstanceHolderTest, WindowsOfOneAgentDiffer) {
  EXPECT_EQ(InstanceHolder("claude-main", As("claude-main", AgentSource::kConfig, "1a2b3c4d")),
            "claude-main#1a2b3c4d");
  EXPECT_EQ(InstanceHolder("claude-main", As("claude-main", AgentSource::kConfig)), "claude-main");
  EXPECT_EQ(HolderAgent("claude-main#1a2b3c4d"), "claude-main");
  EXPECT_EQ(HolderAgent("claude-main"), "claude-main");
}

TEST(UseCommandLineProjectTest, AbsentMeansThisFolderButEmptyIsRefused) {
  Caller absent;
  UseCommandLineProject(absent, std::nullopt, ProjectOptions{});
  EXPECT_FALSE(absent.project_id.empty());
  EXPECT_FALSE(absent.working_dir.empty());

  Caller empty;
  try {
    UseCommandLineProject(empty, std::string(), ProjectOptions{});
    FAIL() << "an empty --project was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--project is empty: send a folder or a project key such as github.com/acme/webapp");
  }
  EXPECT_TRUE(empty.project_id.empty());

  Caller key;
  UseCommandLineProject(key, std::string("github.com/acme/webapp"), ProjectOptions{});
  EXPECT_EQ(key.project_id, "github.com/acme/webapp");
  EXPECT_TRUE(key.project_root.empty());
}

}  // namespace
}  // namespace kioku::sdk
