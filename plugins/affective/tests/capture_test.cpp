#include <gtest/gtest.h>

#include <atomic>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

// A stand-in for another layer: one tool per outcome the host can report.
class DummyPlugin : public sdk::Plugin {
 public:
  explicit DummyPlugin(sdk::HostServices&) {}
  void Register(sdk::Registrar& r) override {
    auto add = [&](const char* name, sdk::ToolHandler h) {
      sdk::ToolSpec spec;
      spec.name = name;
      spec.title = name;
      spec.description = "test tool";
      spec.input_schema = {{"type", "object"},
                           {"additionalProperties", false},
                           {"properties", {{"count", {{"type", "integer"}}}}}};
      r.AddTool(std::move(spec), std::move(h));
    };
    add("dummy_ok", [](const sdk::Json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok("fine");
    });
    add("dummy_error", [](const sdk::Json&, const sdk::CallContext&) {
      return sdk::ToolResult::Error("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected");
    });
    add("dummy_throw", [](const sdk::Json&, const sdk::CallContext&) -> sdk::ToolResult {
      throw sdk::ToolError("no such thing");
    });
  }
};

struct Row {
  std::string tool, outcome, agent, error, source;
  bool has_latency;
};

class CaptureTest : public AffectiveTest {
 protected:
  void StartBoth(json settings = json::object()) {
    rt.Add<DummyPlugin>("dummy");
    Start(std::move(settings));
  }
  std::vector<Row> Rows() {
    std::vector<Row> out;
    SQLite::Statement q(rt.Db(),
                        "SELECT tool, outcome, agent_id, error, source, latency_ms IS NOT NULL "
                        "FROM affective_outcomes ORDER BY id");
    while (q.executeStep()) {
      out.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(),
                     q.getColumn(2).getString(), q.getColumn(3).getString(),
                     q.getColumn(4).getString(), q.getColumn(5).getInt() != 0});
    }
    return out;
  }
};

TEST_F(CaptureTest, RecordsRealOutcomesOfOtherPluginsTools) {
  StartBoth();
  EXPECT_FALSE(rt.Call("dummy_ok", json::object()).is_error);
  EXPECT_TRUE(rt.Call("dummy_error", json::object()).is_error);
  EXPECT_TRUE(rt.Call("dummy_throw", json::object()).is_error);
  EXPECT_TRUE(rt.Call("dummy_ok", {{"count", "not a number"}}).is_error);  // schema rejection

  const auto rows = Rows();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].tool, "dummy_ok");
  EXPECT_EQ(rows[0].outcome, "success");
  EXPECT_EQ(rows[0].error, "");
  EXPECT_EQ(rows[1].outcome, "failure");
  EXPECT_EQ(rows[2].outcome, "failure");
  EXPECT_EQ(rows[2].error, "no such thing");
  EXPECT_EQ(rows[3].outcome, "rejected");
  EXPECT_NE(rows[3].error.find("count"), std::string::npos) << rows[3].error;
  for (const auto& r : rows) {
    EXPECT_EQ(r.agent, "test-agent");
    EXPECT_EQ(r.source, "event");
    EXPECT_TRUE(r.has_latency);
  }
  // Secrets in error text never reach the database.
  EXPECT_EQ(rows[1].error.find("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), std::string::npos)
      << rows[1].error;
  EXPECT_NE(rows[1].error.find("REDACTED"), std::string::npos) << rows[1].error;

  // Buckets follow, so routing sees the captured calls.
  json route = Ok("feedback_route", {{"tools", {"dummy_ok"}}});
  EXPECT_EQ(route["ranking"][0]["n"], 2);
}

TEST_F(CaptureTest, CancelledCallIsATimeout) {
  StartBoth();
  std::atomic<bool> cancelled{true};
  rt.runtime->Call("dummy_ok", json::object(), kioku::testing::TestRuntime::DefaultCaller(),
                   &cancelled);
  rt.runtime->FlushDeferredWrites();
  const auto rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, "timeout");
}

TEST_F(CaptureTest, AffectiveToolsAreNotRecorded) {
  StartBoth();
  Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "success"}});
  Ok("feedback_query", json::object());
  Ok("feedback_route", json::object());
  rt.Call("feedback_record", {{"tool", "Bash"}, {"outcome", "bogus"}});  // rejected, still ours
  const auto rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].tool, "Bash");
  EXPECT_EQ(rows[0].source, "record");
}

TEST_F(CaptureTest, CaptureCanBeTurnedOffOrExclude) {
  StartBoth({{"capture_exclude", {"dummy_error"}}});
  rt.Call("dummy_error", json::object());
  rt.Call("dummy_ok", json::object());
  const auto rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].tool, "dummy_ok");
}

TEST_F(CaptureTest, CaptureOff) {
  StartBoth({{"capture", false}});
  rt.Call("dummy_ok", json::object());
  EXPECT_EQ(RawCount(), 0);
}

// Capture is written off the request thread: with another connection holding the write
// lock the captured call still answers at once, and its outcome lands once the lock goes.
TEST(CaptureLockTest, CaptureNeverMakesACallWaitForTheWriteLock) {
  kioku::testing::TestRuntime local(200);  // a short busy timeout: a regression fails fast
  local.Add<DummyPlugin>("dummy");
  local.Add<AffectivePlugin>("affective");
  local.Start();
  auto raw = [&] { return local.Db().execAndGet("SELECT count(*) FROM affective_outcomes").getInt(); };
  {
    SQLite::Database other = sdk::OpenDatabase((local.dir / "kioku.db").string(), 0);
    other.exec("BEGIN IMMEDIATE");
    for (int i = 0; i < 5; ++i) {
      auto r = local.runtime->CallTool("dummy_ok", json::object());
      ASSERT_FALSE(r.is_error) << r.text;
    }
    EXPECT_EQ(raw(), 0);  // queued, not written on the request thread
    auto q = local.runtime->CallTool("feedback_query", json::object());
    EXPECT_FALSE(q.is_error) << q.text;
    other.exec("ROLLBACK");
  }
  local.runtime->FlushDeferredWrites();
  EXPECT_EQ(raw(), 5);
}

TEST_F(CaptureTest, StopWritesCapturedOutcomesStillQueued) {
  StartBoth();
  rt.runtime->CallTool("dummy_ok", json::object());
  rt.runtime->Stop();  // the SIGTERM path: plugins stop, the queue is written
  EXPECT_EQ(RawCount(), 1);
}

TEST(CaptureBufferTest, OneChunkPerDeferredWriteUntilItIsFullOrBeingWritten) {
  CaptureBuffer buffer;
  OutcomeRecord r;
  r.tool = "memory_recall";
  const auto first = buffer.Add(r);
  ASSERT_NE(first, nullptr);
  for (std::size_t i = 1; i < CaptureBuffer::kChunk; ++i) ASSERT_EQ(buffer.Add(r), nullptr) << i;
  const auto second = buffer.Add(r);  // the first is full
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(buffer.Close(*first).size(), CaptureBuffer::kChunk);
  EXPECT_EQ(buffer.Close(*second).size(), 1u);
  // A chunk being written takes no more records: they open the next one.
  const auto third = buffer.Add(r);
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(second->records.size(), 1u);
  EXPECT_EQ(third->records.size(), 1u);
}

TEST(CaptureLockTest, ABatchThatStayedLockedIsWrittenLaterWholeAndOnce) {
  kioku::testing::TestRuntime local(100);
  local.Add<DummyPlugin>("dummy");
  local.Add<AffectivePlugin>("affective");
  local.Start();
  auto raw = [&] { return local.Db().execAndGet("SELECT count(*) FROM affective_outcomes").getInt(); };
  auto total = [&] {
    return local.Db().execAndGet("SELECT coalesce(sum(n), 0) FROM affective_totals WHERE tool = 'dummy_ok'").getInt();
  };
  {
    SQLite::Database other = sdk::OpenDatabase((local.dir / "kioku.db").string(), 0);
    other.exec("BEGIN IMMEDIATE");
    for (int i = 0; i < 3; ++i) ASSERT_FALSE(local.runtime->CallTool("dummy_ok", json::object()).is_error);
    local.runtime->FlushDeferredWrites();  // locked out: kept for later
    for (int i = 0; i < 2; ++i) ASSERT_FALSE(local.runtime->CallTool("dummy_ok", json::object()).is_error);
    EXPECT_EQ(raw(), 0);
    other.exec("ROLLBACK");
  }
  local.runtime->FlushDeferredWrites();
  EXPECT_EQ(raw(), 5);
  EXPECT_EQ(total(), 5);
}

}  // namespace
}  // namespace kioku::affective::testing
