#pragma once
// Shared fixture for the episodic unit tests: a TestRuntime with the plugin loaded.

#include <gtest/gtest.h>

#include <string>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include "episodic_plugin.hpp"
#include "kioku/sdk/clock.hpp"
#include "test_runtime.hpp"

namespace kioku::episodic::testing {

/// HostServices over a TestRuntime, for testing plugin internals (Ingester) directly.
class TestHost : public sdk::HostServices {
 public:
  explicit TestHost(kioku::testing::TestRuntime& rt) : rt_(rt) {}
  std::string_view PluginName() const override { return "episodic"; }
  SQLite::Database& Db() override { return rt_.Db(); }
  const sdk::Clock& GetClock() const override { return *rt_.clock; }
  sdk::Logger& Log() override { return log_; }
  const nlohmann::json& Settings() const override { return settings_; }
  sdk::EventBus& Events() override { return rt_.runtime->Events(); }
  sdk::ToolResult CallTool(std::string_view name, const nlohmann::json& args,
                           const sdk::Caller& caller) override {
    return rt_.runtime->CallTool(name, args, caller);
  }
  bool HasTool(std::string_view name) const override {
    return rt_.runtime->FindTool(name) != nullptr;
  }
  std::filesystem::path DataDir() const override { return rt_.dir; }
  void DeferWrite(std::function<void(SQLite::Database&)> write) override { write(rt_.Db()); }

 private:
  struct NullLogger : sdk::Logger {
    void Log(sdk::LogLevel, std::string_view) override {}
  };
  kioku::testing::TestRuntime& rt_;
  NullLogger log_;
  nlohmann::json settings_ = nlohmann::json::object();
};

inline std::int64_t Ms(const char* rfc3339) { return *sdk::ParseRfc3339(rfc3339); }

class EpisodicTest : public ::testing::Test {
 protected:
  virtual nlohmann::json PluginSettings() const { return nlohmann::json::object(); }
  void SetUp() override {
    rt_.Add<EpisodicPlugin>("episodic", PluginSettings());
    rt_.Start();
  }
  sdk::ToolResult Call(std::string_view tool, const nlohmann::json& args) {
    return rt_.Call(tool, args);
  }
  sdk::ToolResult CallOk(std::string_view tool, const nlohmann::json& args) {
    auto r = rt_.Call(tool, args);
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    return r;
  }
  std::int64_t Count(const std::string& table, const std::string& where = "1") {
    SQLite::Statement q(rt_.Db(), "SELECT COUNT(*) FROM " + table + " WHERE " + where);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  void SetNow(const char* rfc3339) { rt_.clock->Set(Ms(rfc3339)); }

  kioku::testing::TestRuntime rt_;
};

}  // namespace kioku::episodic::testing
