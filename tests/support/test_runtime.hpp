#pragma once
/// @file test_runtime.hpp
/// A hermetic host for plugin unit tests: a fresh temp directory and database per instance,
/// a ManualClock, in-process plugins (no dlopen) and the real dispatcher path (schema
/// validation, call events, CallTool between plugins).
///
///   kioku::testing::TestRuntime rt;
///   rt.Add<kioku::semantic::SemanticPlugin>("semantic", {{"recall", {{"token_budget", 500}}}});
///   rt.Start();
///   auto r = rt.Call("memory_remember", {{"text", "we use pnpm"}, {"kind", "decision"}});
///   rt.clock->Advance(3 * kioku::sdk::kMsPerDay);

#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "runtime.hpp"

namespace kioku::testing {

class TestRuntime {
 public:
  TestRuntime() : clock(std::make_shared<sdk::ManualClock>()) {
    std::random_device rd;
    dir = std::filesystem::temp_directory_path() /
          ("kioku-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir);
    host::RuntimeOptions options;
    options.data_dir = dir;
    options.clock = clock;
    runtime = std::make_unique<host::Runtime>(options);
  }
  ~TestRuntime() {
    runtime.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  template <class PluginT>
  void Add(std::string name, nlohmann::json settings = nlohmann::json::object()) {
    runtime->AddPlugin(
        std::move(name),
        [](sdk::HostServices& host) { return std::make_unique<PluginT>(host); },
        std::move(settings));
  }
  void Start() { runtime->Start(); }

  /// Calls a tool as `caller` (default agent "test-agent", project "/tmp/project").
  sdk::ToolResult Call(std::string_view tool, const nlohmann::json& args,
                       sdk::Caller caller = DefaultCaller()) {
    return runtime->CallTool(tool, args, caller);
  }
  static sdk::Caller DefaultCaller() {
    sdk::Caller c;
    c.agent_id = "test-agent";
    c.session_id = "test-session";
    c.project_root = "/tmp/project";
    c.project_id = "/tmp/project";
    return c;
  }
  SQLite::Database& Db() { return runtime->Db(); }

  std::shared_ptr<sdk::ManualClock> clock;
  std::filesystem::path dir;
  std::unique_ptr<host::Runtime> runtime;
};

}  // namespace kioku::testing
