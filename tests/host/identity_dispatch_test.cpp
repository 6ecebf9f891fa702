// The dispatcher's part of identity (issue 10): MCP roots in both eras, the per-request
// project (_meta "dev.kioku/project", which the HTTP transport fills from Kioku-Project),
// token project limits, and the caller's instance and agent source.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <vector>

#include "host_test_util.hpp"
#include "mcp/dispatcher.hpp"
#include "runtime.hpp"

namespace kioku::host::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::TempDir;

constexpr const char* kVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kCapsKey = "io.modelcontextprotocol/clientCapabilities";

// who_am_i answers with the Caller the handler received.
class WhoPlugin final : public sdk::Plugin {
 public:
  explicit WhoPlugin(sdk::HostServices&) {}
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec spec;
    spec.name = "who_am_i";
    spec.description = "Echoes the caller.";
    r.AddTool(spec, [](const json&, const sdk::CallContext& ctx) {
      const auto& c = ctx.caller;
      return sdk::ToolResult::Ok("", json{{"agent_id", c.agent_id},
                                          {"agent_source", static_cast<int>(c.agent_source)},
                                          {"instance_id", c.instance_id},
                                          {"project_id", c.project_id},
                                          {"project_root", c.project_root},
                                          {"working_dir", c.working_dir}});
    });
  }
};

class IdentityDispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RuntimeOptions o;
    o.data_dir = dir_.path() / "data";
    o.clock = std::make_shared<sdk::ManualClock>(1'700'000'000'000);
    runtime_ = std::make_unique<Runtime>(o);
    runtime_->AddPlugin("who", [](sdk::HostServices& h) { return std::make_unique<WhoPlugin>(h); });
    runtime_->Start();
    dispatcher_ = std::make_unique<Dispatcher>(*runtime_, DispatcherOptions{});
    repo_ = MakeRepo("webapp");
    other_ = dir_.path() / "other";
    std::filesystem::create_directories(other_);
    other_ = std::filesystem::canonical(other_);
    session_.id = "s1";
    session_.instance_id = "0badcafe";
    session_.base_caller.agent_id = "claude-main";
    session_.base_caller.agent_source = sdk::AgentSource::kConfig;
    session_.base_caller.project_id = "/server/cwd";
    session_.base_caller.working_dir = (repo_ / "apps" / "api").string();
    session_.send = [this](const json& m) {
      std::lock_guard lock(sent_mutex_);
      sent_.push_back(m);
    };
  }
  void TearDown() override { runtime_->Stop(); }

  std::filesystem::path MakeRepo(const std::string& name) {
    dir_.Write(std::filesystem::path(name) / ".git" / "config",
               "[remote \"origin\"]\n\turl = https://github.com/acme/webapp.git\n");
    std::filesystem::create_directories(dir_.path() / name / "apps" / "api");
    return std::filesystem::canonical(dir_.path() / name);
  }

  static json RootsOf(std::initializer_list<std::filesystem::path> folders) {
    json roots = json::array();
    for (const auto& f : folders) roots.push_back({{"uri", "file://" + f.string()}});
    return roots;
  }

  json Handle(const json& m) { return dispatcher_->Handle(m, session_).value_or(json()); }
  void Notify(const std::string& method) { dispatcher_->Handle(json{{"jsonrpc", "2.0"}, {"method", method}}, session_); }

  void InitializeWithRoots() {
    json r = Handle({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
                     {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"roots", {{"listChanged", true}}}}},
                                 {"clientInfo", {{"name", "test-client"}, {"version", "1"}}}}}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
  }

  json LastSent() {
    std::lock_guard lock(sent_mutex_);
    return sent_.empty() ? json() : sent_.back();
  }

  json Who(json params_extra = json::object(), json id = 1) {
    json params{{"name", "who_am_i"}, {"arguments", json::object()}};
    params.update(params_extra);
    json r = Handle({{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}});
    return r;
  }

  TempDir dir_;
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<Dispatcher> dispatcher_;
  Session session_;
  std::filesystem::path repo_, other_;
  std::mutex sent_mutex_;
  std::vector<json> sent_;
};

TEST_F(IdentityDispatchTest, LegacyRootsListAfterInitializedDecidesTheProject) {
  InitializeWithRoots();
  Notify("notifications/initialized");
  const json request = LastSent();
  ASSERT_EQ(request.value("method", ""), "roots/list") << request.dump();
  Handle({{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", {{"roots", RootsOf({other_, repo_})}}}});
  const json who = Who()["result"]["structuredContent"];
  EXPECT_EQ(who["project_id"], "github.com/acme/webapp") << "the root holding the working directory wins";
  EXPECT_EQ(who["project_root"], repo_.string());
  EXPECT_EQ(who["instance_id"], "0badcafe");
  EXPECT_EQ(who["agent_id"], "claude-main");
  EXPECT_EQ(who["agent_source"], static_cast<int>(sdk::AgentSource::kConfig));
}

TEST_F(IdentityDispatchTest, ListChangedAsksAgainAndACallWaitsForThePendingAnswer) {
  InitializeWithRoots();
  session_.base_caller.working_dir = "/elsewhere";
  Notify("notifications/initialized");
  Handle({{"jsonrpc", "2.0"}, {"id", LastSent()["id"]}, {"result", {{"roots", RootsOf({repo_})}}}});
  EXPECT_EQ(Who()["result"]["structuredContent"]["project_id"], "github.com/acme/webapp");

  Notify("notifications/roots/list_changed");
  const json again = LastSent();
  ASSERT_EQ(again.value("method", ""), "roots/list");
  // The call starts while the answer is still out; it waits for it.
  auto call = std::async(std::launch::async, [this] { return Who(json::object(), 2); });
  Handle({{"jsonrpc", "2.0"}, {"id", again["id"]}, {"result", {{"roots", RootsOf({other_, repo_})}}}});
  EXPECT_EQ(call.get()["result"]["structuredContent"]["project_id"], other_.string()) << "else the first root";
}

TEST_F(IdentityDispatchTest, NoRootsCapabilityNoRequest) {
  Handle({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
          {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}}});
  Notify("notifications/initialized");
  EXPECT_TRUE(LastSent().is_null());
  EXPECT_EQ(Who()["result"]["structuredContent"]["project_id"], "/server/cwd");
}

TEST_F(IdentityDispatchTest, ModernRootsComeThroughInputRequiredAndTheRetry) {
  json meta{{kVersionKey, "2026-07-28"}, {kCapsKey, {{"roots", json::object()}}}};
  const json asked = Who({{"_meta", meta}});
  ASSERT_TRUE(asked.contains("result")) << asked.dump();
  EXPECT_EQ(asked["result"]["resultType"], "input_required");
  EXPECT_EQ(asked["result"]["inputRequests"]["roots"]["method"], "roots/list");
  const json done = Who({{"_meta", meta}, {"inputResponses", {{"roots", {{"roots", RootsOf({repo_})}}}}}}, 2);
  EXPECT_EQ(done["result"]["resultType"], "complete");
  EXPECT_EQ(done["result"]["structuredContent"]["project_id"], "github.com/acme/webapp");
  // Without the roots capability nothing is asked.
  const json plain = Who({{"_meta", {{kVersionKey, "2026-07-28"}, {kCapsKey, json::object()}}}}, 3);
  EXPECT_EQ(plain["result"]["resultType"], "complete");
}

TEST_F(IdentityDispatchTest, RequestNamedProjectAndItsErrors) {
  json meta{{kMetaProject, (repo_ / "apps" / "api").string()}};
  EXPECT_EQ(Who({{"_meta", meta}})["result"]["structuredContent"]["project_id"], "github.com/acme/webapp");
  meta[kMetaProject] = "github.com/acme/webapp//apps/api";
  EXPECT_EQ(Who({{"_meta", meta}})["result"]["structuredContent"]["project_id"], "github.com/acme/webapp");
  meta[kMetaProject] = "relative";
  const json bad = Who({{"_meta", meta}});
  EXPECT_EQ(bad["error"]["code"], kInvalidParams);
  EXPECT_THAT(bad["error"]["message"].get<std::string>(), HasSubstr("absolute path"));
}

TEST_F(IdentityDispatchTest, TokenLimitsRefuseOtherProjectsAndDefaultToTheFirst) {
  session_.base_caller.agent_source = sdk::AgentSource::kToken;
  session_.allowed_projects = {sdk::ResolveProject(repo_)};
  EXPECT_EQ(Who()["result"]["structuredContent"]["project_id"], "github.com/acme/webapp");
  const json refused = Who({{"_meta", {{kMetaProject, other_.string()}}}});
  EXPECT_EQ(refused["error"]["code"], kProjectForbidden) << refused.dump();
  EXPECT_THAT(refused["error"]["message"].get<std::string>(),
              HasSubstr("agent 'claude-main' may not use project '" + other_.string()));
  EXPECT_THAT(refused["error"]["message"].get<std::string>(), HasSubstr("allows: github.com/acme/webapp"));
}

TEST_F(IdentityDispatchTest, ClientInfoNamesAnUnconfiguredAgent) {
  session_.base_caller.agent_id.clear();
  session_.base_caller.agent_source = sdk::AgentSource::kNone;
  session_.client_name = "cursor";
  const json who = Who()["result"]["structuredContent"];
  EXPECT_EQ(who["agent_id"], "cursor");
  EXPECT_EQ(who["agent_source"], static_cast<int>(sdk::AgentSource::kClientInfo));
}

}  // namespace
}  // namespace kioku::host::mcp
