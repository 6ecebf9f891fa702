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
  /// `busy_timeout_ms`: how long a connection waits for another's write lock (tests that
  /// hold the lock on purpose pass a short one, so a regression fails fast).
  explicit TestRuntime(int busy_timeout_ms = 5000) : clock(std::make_shared<sdk::ManualClock>()) {
    std::random_device rd;
    dir = std::filesystem::temp_directory_path() /
          ("kioku-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir);
    host::RuntimeOptions options;
    options.data_dir = dir;
    options.clock = clock;
    options.busy_timeout_ms = busy_timeout_ms;
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

  /// Calls a tool as `caller` (default agent "test-agent", project "/tmp/project"), then
  /// waits for the host's background writer to write what the call deferred (recall
  /// counters, captured outcomes), so a test reads them back without a race. Use
  /// `runtime->CallTool` to observe the state before that flush.
  sdk::ToolResult Call(std::string_view tool, const nlohmann::json& args,
                       sdk::Caller caller = DefaultCaller()) {
    auto result = runtime->CallTool(tool, args, caller);
    runtime->FlushDeferredWrites();
    return result;
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
