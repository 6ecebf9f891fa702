#include <mutex>
#include <vector>

#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

/// What the fake episodic layer received, and whether it should fail.
struct EpisodicLog {
  std::mutex mu;
  std::vector<std::pair<std::string, Json>> calls;  // tool, args
  std::vector<sdk::Caller> callers;
  bool fail_summary = false;
};
EpisodicLog& Log() {
  static EpisodicLog log;
  return log;
}

/// Stands in for the episodic plugin: registers session_start / session_summary_add with
/// strict schemas and records every call.
class FakeEpisodicPlugin : public sdk::Plugin {
 public:
  explicit FakeEpisodicPlugin(sdk::HostServices&) {}
  void Register(sdk::Registrar& registrar) override {
    for (const char* name : {"session_start", "session_summary_add"}) {
      sdk::ToolSpec spec;
      spec.name = name;
      spec.title = name;
      spec.description = "fake";
      Json props = {{"session_id", {{"type", "string"}}}};
      std::vector<std::string> required = {"session_id"};
      if (std::string(name) == "session_summary_add") {
        props["summary"] = {{"type", "string"}};
        required.push_back("summary");
      }
      spec.input_schema = {{"type", "object"},
                           {"additionalProperties", false},
                           {"properties", props},
                           {"required", required}};
      const std::string tool = name;
      registrar.AddTool(spec, [tool](const Json& args, const sdk::CallContext& ctx) {
        auto& log = Log();
        std::lock_guard lock(log.mu);
        log.calls.emplace_back(tool, args);
        log.callers.push_back(ctx.caller);
        if (tool == "session_summary_add" && log.fail_summary) {
          return sdk::ToolResult::Error("summary store is read-only");
        }
        return sdk::ToolResult::Ok("ok");
      });
    }
  }
};

class WorkspaceTest : public WorkingTest {};

TEST_F(WorkspaceTest, OneClaimPerProjectRefusalNamesHolderAndExpiry) {
  auto c = Ok("workspace_claim", {{"task", "fix login race"}, {"ttl_seconds", 600}});
  EXPECT_EQ(c["holder"], "agent-a");
  EXPECT_FALSE(c["renewed"].get<bool>());
  const std::string until = c["expires_at"];
  auto text = Err("workspace_claim", {{"task", "other"}}, "agent-b");
  EXPECT_NE(text.find("held by agent-a"), std::string::npos) << text;
  EXPECT_NE(text.find(until), std::string::npos) << text;
  EXPECT_NE(text.find("fix login race"), std::string::npos) << text;
  EXPECT_EQ(Text("SELECT holder FROM working_workspace"), "agent-a");

  auto status = Ok("workspace_status", Json::object(), "agent-b");
  EXPECT_EQ(status["workspace"]["holder"], "agent-a");
  EXPECT_EQ(status["workspace"]["state"], "active");
  EXPECT_EQ(status["workspace"]["liveness"], "live");
  EXPECT_FALSE(status["workspace"]["mine"].get<bool>());
}

TEST_F(WorkspaceTest, RenewChangesTaskKeepsClaimTime) {
  auto c1 = Ok("workspace_claim", {{"task", "t1"}});
  AdvanceSeconds(10);
  auto c2 = Ok("workspace_claim", {{"task", "t2"}});
  EXPECT_TRUE(c2["renewed"].get<bool>());
  EXPECT_EQ(c2["claimed_at"], c1["claimed_at"]);
  EXPECT_EQ(Text("SELECT task FROM working_workspace"), "t2");
}

TEST_F(WorkspaceTest, ExpiredAndForcedTakeoversAreRecorded) {
  Ok("workspace_claim", {{"task", "t1"}, {"ttl_seconds", 60}});
  AdvanceSeconds(61);
  auto b = Ok("workspace_claim", {{"task", "t2"}}, "agent-b");
  EXPECT_EQ(b["takeover"]["previous_holder"], "agent-a");
  EXPECT_EQ(b["takeover"]["reason"], "expired");
  auto c = Ok("workspace_claim", {{"task", "t3"}, {"force", true}}, "agent-c");
  EXPECT_EQ(c["takeover"]["reason"], "forced");
  EXPECT_EQ(c["takeover"]["previous_task"], "t2");
  EXPECT_EQ(Count("SELECT count(*) FROM working_events WHERE kind = 'workspace.takeover'"), 2);
  EXPECT_EQ(Text("SELECT holder FROM working_workspace"), "agent-c");
}

TEST_F(WorkspaceTest, ReleaseOnlyByHolder) {
  auto none = Ok("workspace_release", Json::object());
  EXPECT_FALSE(none["released"].get<bool>());
  Ok("workspace_claim", {{"task", "t1"}});
  auto text = Err("workspace_release", Json::object(), "agent-b");
  EXPECT_NE(text.find("held by agent-a"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM working_workspace"), 1);
  EXPECT_TRUE(Ok("workspace_release", Json::object())["released"].get<bool>());
  EXPECT_EQ(Count("SELECT count(*) FROM working_workspace"), 0);
}

TEST_F(WorkspaceTest, BadTtlAndEmptyTask) {
  EXPECT_FALSE(Err("workspace_claim", {{"task", "t"}, {"ttl_seconds", 86'401}}).empty());
  EXPECT_FALSE(Err("workspace_claim", {{"task", "t"}, {"ttl_seconds", 1}}).empty());
  EXPECT_FALSE(Err("workspace_claim", {{"task", " "}}).empty());
  EXPECT_EQ(Count("SELECT count(*) FROM working_workspace"), 0);
}

TEST_F(WorkspaceTest, StatusGathersEverything) {
  Ok("workspace_claim", {{"task", "ship v2"}});
  Ok("file_claim", {{"paths", {"a.cc"}}});
  Ok("file_claim", {{"paths", {"b.cc"}}}, "agent-b");
  Ok("question_add", {{"question", "which db?"}});
  Ok("handoff_write", {{"summary", "for a"}, {"to_agent", "agent-a"}}, "agent-b");
  Ok("focus_update", {{"section", "active_task"}, {"content", "ship v2"}});
  auto s = Ok("workspace_status", Json::object());
  EXPECT_EQ(s["workspace"]["mine"], true);
  EXPECT_EQ(s["agents"].size(), 2u);
  EXPECT_EQ(s["active_file_claims"], 2);
  EXPECT_EQ(s["my_file_claims"].size(), 1u);
  EXPECT_EQ(s["open_questions"].size(), 1u);
  EXPECT_EQ(s["handoffs"].size(), 1u);
  EXPECT_EQ(s["focus"], "## Active task\nship v2\n");
  EXPECT_FALSE(s["recent"].empty());
}

TEST_F(WorkspaceTest, DumpWithoutEpisodicSaysSoAndCanRelease) {
  Ok("workspace_claim", {{"task", "ship v2"}});
  Ok("file_claim", {{"paths", {"a.cc", "b.cc"}}});
  Ok("file_claim", {{"paths", {"c.cc"}}}, "agent-b");
  auto r = Call("workspace_dump", {{"reason", "end of session"}, {"release", true}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["episodic"], "disabled");
  EXPECT_NE(r.text.find("episodic layer disabled"), std::string::npos) << r.text;
  EXPECT_TRUE(r.structured["released"]["workspace"].get<bool>());
  EXPECT_EQ(r.structured["released"]["file_claims"], Json({"a.cc", "b.cc"}));
  EXPECT_EQ(Count("SELECT count(*) FROM working_workspace"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM working_file_claims"), 1);  // agent-b's stays
  EXPECT_EQ(Count("SELECT count(*) FROM working_dumps WHERE episodic = 'disabled'"), 1);
  const std::string summary = r.structured["summary"];
  EXPECT_NE(summary.find("Task: ship v2"), std::string::npos) << summary;
  EXPECT_NE(summary.find("end of session"), std::string::npos) << summary;
}

class WorkspaceDumpEpisodicTest : public WorkingTest {
 protected:
  void BeforeStart(kioku::testing::TestRuntime& rt) override {
    {
      std::lock_guard lock(Log().mu);
      Log().calls.clear();
      Log().callers.clear();
      Log().fail_summary = false;
    }
    rt.Add<FakeEpisodicPlugin>("episodic");
  }
};

TEST_F(WorkspaceDumpEpisodicTest, WritesSummaryThroughEpisodicTools) {
  Ok("workspace_claim", {{"task", "fix login race"}});
  Ok("focus_update", {{"section", "next_steps"}, {"content", "- write regression test"}});
  Ok("file_claim", {{"paths", {"auth/session.ts"}}, {"intent", "race fix"}});
  Ok("question_add", {{"question", "does refresh need a lock?"}});
  Ok("file_claim", {{"paths", {"other.ts"}}}, "agent-b");  // not in agent-a's log

  auto r = Ok("workspace_dump", {{"reason", "handover"}});
  EXPECT_EQ(r["episodic"], "written");
  EXPECT_EQ(r["session_id"], "session-agent-a");
  EXPECT_FALSE(r["released"]["workspace"].get<bool>());

  std::lock_guard lock(Log().mu);
  ASSERT_EQ(Log().calls.size(), 2u);
  EXPECT_EQ(Log().calls[0].first, "session_start");
  EXPECT_EQ(Log().calls[0].second, Json({{"session_id", "session-agent-a"}}));
  EXPECT_EQ(Log().calls[1].first, "session_summary_add");
  EXPECT_EQ(Log().calls[1].second["session_id"], "session-agent-a");
  EXPECT_EQ(Log().callers[1].agent_id, "agent-a");
  const std::string summary = Log().calls[1].second["summary"];
  EXPECT_EQ(summary, r["summary"]);
  EXPECT_NE(summary.find("Task: fix login race"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- write regression test"), std::string::npos) << summary;
  EXPECT_NE(summary.find("file.claim auth/session.ts"), std::string::npos) << summary;
  EXPECT_NE(summary.find("does refresh need a lock?"), std::string::npos) << summary;
  EXPECT_NE(summary.find("files claimed: auth/session.ts"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("other.ts"), std::string::npos) << summary;
  // The reason and the task lead (the context block shows the summary's first 300 bytes).
  EXPECT_EQ(summary.rfind("handover\nTask: fix login race", 0), 0u) << summary;
}

TEST_F(WorkspaceDumpEpisodicTest, NothingSinceTheLastDumpWritesNoSummary) {
  const Json r = Ok("workspace_dump", Json::object());
  EXPECT_EQ(r["episodic"], "skipped");
  std::lock_guard lock(Log().mu);
  EXPECT_TRUE(Log().calls.empty());
}

TEST_F(WorkspaceDumpEpisodicTest, GeneratedSessionIdAndLogSinceLastDump) {
  sdk::Caller c = As("agent-a");
  c.session_id.clear();
  Ok("question_add", {{"question", "first?"}});
  auto r1 = CallAs("workspace_dump", Json::object(), c);
  ASSERT_FALSE(r1.is_error) << r1.text;
  const std::string sid = r1.structured["session_id"];
  EXPECT_EQ(sid.size(), 26u);  // a ULID
  AdvanceSeconds(5);
  Ok("block_write", {{"key", "later"}, {"content", "x"}});
  auto r2 = CallAs("workspace_dump", Json::object(), c);
  const std::string s2 = r2.structured["summary"];
  EXPECT_NE(s2.find("block.write later"), std::string::npos) << s2;
  EXPECT_EQ(s2.find("question.add"), std::string::npos) << s2;

  std::lock_guard lock(Log().mu);
  ASSERT_EQ(Log().calls.size(), 4u);
  EXPECT_EQ(Log().calls[0].second["session_id"], sid);
  EXPECT_EQ(Log().calls[1].second["session_id"], sid);
}

TEST_F(WorkspaceDumpEpisodicTest, EpisodicFailureReleasesNothing) {
  {
    std::lock_guard lock(Log().mu);
    Log().fail_summary = true;
  }
  Ok("workspace_claim", {{"task", "t"}});
  Ok("file_claim", {{"paths", {"a.cc"}}});
  auto text = Err("workspace_dump", {{"release", true}});
  EXPECT_NE(text.find("summary store is read-only"), std::string::npos) << text;
  EXPECT_NE(text.find("nothing was dumped or released"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM working_workspace"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM working_file_claims"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM working_dumps"), 0);
}

}  // namespace
}  // namespace kioku::working::testing
