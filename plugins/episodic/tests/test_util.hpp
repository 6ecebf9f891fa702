#pragma once
// Shared fixture for the episodic unit tests: a TestRuntime with the plugin loaded.

#include <gtest/gtest.h>

#include <string>

#include <SQLiteCpp/Statement.h>

#include "episodic_plugin.hpp"
#include "kioku/sdk/clock.hpp"
#include "test_runtime.hpp"

namespace kioku::episodic::testing {

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
