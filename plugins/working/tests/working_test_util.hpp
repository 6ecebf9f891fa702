#pragma once
// Shared fixture for the working plugin's unit tests: a hermetic TestRuntime with the
// working plugin, callers per agent, and small SQL helpers to check what was stored.

#include <gtest/gtest.h>

#include <string>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/clock.hpp"
#include "test_runtime.hpp"
#include "working_plugin.hpp"

namespace kioku::working::testing {

using Json = nlohmann::json;

inline sdk::Caller As(const std::string& agent, const std::string& project = "/tmp/project") {
  sdk::Caller c = kioku::testing::TestRuntime::DefaultCaller();
  c.agent_id = agent;
  c.session_id = "session-" + agent;
  c.project_root = project;
  c.project_id = project;
  return c;
}

class WorkingTest : public ::testing::Test {
 protected:
  void SetUp() override { StartWith(Json::object()); }

  /// (Re)creates the runtime with these plugin settings; a test body may call it again to
  /// run with other settings on a fresh database.
  void StartWith(const Json& settings) {
    rt_ = std::make_unique<kioku::testing::TestRuntime>();
    rt_->Add<WorkingPlugin>("working", settings);
    BeforeStart(*rt_);
    rt_->Start();
  }
  virtual void BeforeStart(kioku::testing::TestRuntime&) {}

  sdk::ToolResult Call(std::string_view tool, const Json& args,
                       const std::string& agent = "agent-a") {
    return rt_->Call(tool, args, As(agent));
  }
  sdk::ToolResult CallAs(std::string_view tool, const Json& args, const sdk::Caller& caller) {
    return rt_->Call(tool, args, caller);
  }
  /// Calls and asserts success.
  Json Ok(std::string_view tool, const Json& args, const std::string& agent = "agent-a") {
    auto r = Call(tool, args, agent);
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    return r.structured;
  }
  /// Calls and asserts an isError result; returns its text.
  std::string Err(std::string_view tool, const Json& args, const std::string& agent = "agent-a") {
    auto r = Call(tool, args, agent);
    EXPECT_TRUE(r.is_error) << tool << " unexpectedly succeeded: " << r.text;
    return r.text;
  }

  std::int64_t Count(const std::string& sql) {
    SQLite::Statement q(rt_->Db(), sql);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  std::string Text(const std::string& sql) {
    SQLite::Statement q(rt_->Db(), sql);
    if (!q.executeStep() || q.getColumn(0).isNull()) return "<none>";
    return q.getColumn(0).getString();
  }
  void AdvanceSeconds(std::int64_t s) { rt_->clock->Advance(s * sdk::kMsPerSecond); }

  std::unique_ptr<kioku::testing::TestRuntime> rt_;
};

}  // namespace kioku::working::testing
