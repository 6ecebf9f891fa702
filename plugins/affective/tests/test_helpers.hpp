#pragma once
// Shared fixture for the affective plugin tests: a hermetic TestRuntime with the plugin.

#include <gtest/gtest.h>

#include <string>

#include "affective_plugin.hpp"
#include "kioku/sdk/clock.hpp"
#include "test_runtime.hpp"

namespace kioku::affective::testing {

using nlohmann::json;

class AffectiveTest : public ::testing::Test {
 protected:
  void Start(json settings = json::object()) {
    rt.Add<AffectivePlugin>("affective", std::move(settings));
    rt.Start();
    // The start-up retention pass runs on the background writer (a real process runs it
    // within deferred_max_age_ms); every test begins after it.
    rt.runtime->FlushDeferredWrites();
  }

  /// Calls a tool expecting success; returns structuredContent.
  json Ok(std::string_view tool, const json& args, sdk::Caller caller = kioku::testing::TestRuntime::DefaultCaller()) {
    auto r = rt.Call(tool, args, std::move(caller));
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    last_text = r.text;
    return r.structured;
  }

  /// Calls a tool expecting an isError result; returns its text.
  std::string Err(std::string_view tool, const json& args) {
    auto r = rt.Call(tool, args);
    EXPECT_TRUE(r.is_error) << tool << " unexpectedly succeeded: " << r.text;
    return r.text;
  }

  std::int64_t Scalar(const std::string& sql) { return rt.Db().execAndGet(sql).getInt64(); }
  std::int64_t RawCount() { return Scalar("SELECT count(*) FROM affective_outcomes"); }
  std::int64_t BucketN() { return Scalar("SELECT coalesce(sum(n), 0) FROM affective_buckets"); }

  std::int64_t Now() { return rt.clock->NowMs(); }
  /// RFC 3339 of now − days.
  std::string DaysAgo(double days) {
    return sdk::FormatRfc3339(Now() - static_cast<std::int64_t>(days * sdk::kMsPerDay));
  }

  /// `count` outcomes of `tool` at `at` (RFC 3339) in one batch.
  void Record(const std::string& tool, const std::string& outcome, int count,
              const std::string& at, json extra = json::object()) {
    json records = json::array();
    for (int i = 0; i < count; ++i) {
      json r = {{"tool", tool}, {"outcome", outcome}, {"at", at}};
      r.update(extra);
      records.push_back(r);
    }
    // Records naming another agent come from a caller the transport did not name (an
    // importer such as episodic's outbox): a named caller may not speak for others.
    Ok("feedback_record", {{"records", records}}, extra.contains("agent_id") ? Importer() : kioku::testing::TestRuntime::DefaultCaller());
  }

  /// The caller of a cross-layer import: no agent of its own (sdk::CallerKnown is false).
  static sdk::Caller Importer() {
    sdk::Caller c = kioku::testing::TestRuntime::DefaultCaller();
    c.agent_id.clear();
    return c;
  }

  kioku::testing::TestRuntime rt;
  std::string last_text;
};

}  // namespace kioku::affective::testing
