#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <SQLiteCpp/Statement.h>

#include "hook.hpp"
#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(AFFECTIVE_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in) << "missing test data " << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct HookRun {
  int exit_code;
  std::string out, err;
};

struct Stored {
  std::string tool, outcome, agent, session, project, error, error_class, source, source_id;
  std::optional<double> latency;
};

class HookTest : public AffectiveTest {
 protected:
  void SetUp() override {
    ::unsetenv("KIOKU_AGENT_ID");
    Start();
  }

  HookRun Run(const std::string& stdin_text,
              std::vector<std::string> args = {"post-tool-use"}) {
    const sdk::CommandSpec* hook = nullptr;
    for (const auto& c : rt.runtime->Commands()) {
      if (c.name == "hook") hook = &c;
    }
    EXPECT_NE(hook, nullptr);
    if (!hook) return {-1, "", ""};
    std::istringstream in(stdin_text);
    std::ostringstream out, err;
    const int code = hook->run(args, in, out, err);
    return {code, out.str(), err.str()};
  }

  std::vector<Stored> Rows() {
    std::vector<Stored> rows;
    SQLite::Statement q(rt.Db(),
                        "SELECT tool, outcome, agent_id, session_id, project_id, error, "
                        "error_class, source, coalesce(source_id, ''), latency_ms "
                        "FROM affective_outcomes ORDER BY id");
    while (q.executeStep()) {
      Stored s{q.getColumn(0).getString(), q.getColumn(1).getString(),
               q.getColumn(2).getString(), q.getColumn(3).getString(),
               q.getColumn(4).getString(), q.getColumn(5).getString(),
               q.getColumn(6).getString(), q.getColumn(7).getString(),
               q.getColumn(8).getString(), std::nullopt};
      if (!q.getColumn(9).isNull()) s.latency = q.getColumn(9).getDouble();
      rows.push_back(std::move(s));
    }
    return rows;
  }

  Stored Only() {
    auto rows = Rows();
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? Stored{} : rows.front();
  }
};

TEST_F(HookTest, SuccessEnvelope) {
  HookRun r = Run(ReadData("post_tool_use_success.json"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");  // stdout is read by Claude Code; keep it empty
  EXPECT_EQ(r.err, "");
  Stored s = Only();
  EXPECT_EQ(s.tool, "Bash");
  EXPECT_EQ(s.outcome, "success");
  EXPECT_EQ(s.agent, "claude-code");
  EXPECT_EQ(s.session, "9ecf22fa-edf8-4332-ae85-b6d5456eda64");
  EXPECT_EQ(s.project, "/home/dev/app");
  EXPECT_EQ(s.source, "hook");
  EXPECT_EQ(s.source_id, "toolu_01SUCCESS");
  ASSERT_TRUE(s.latency);
  EXPECT_DOUBLE_EQ(*s.latency, 1234);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(BucketN(), 1);
}

TEST_F(HookTest, McpIsErrorIsAFailureUnderServerSlashTool) {
  EXPECT_EQ(Run(ReadData("post_tool_use_is_error.json")).exit_code, 0);
  Stored s = Only();
  EXPECT_EQ(s.tool, "github/create_issue");
  EXPECT_EQ(s.outcome, "failure");
  EXPECT_EQ(s.error, "HTTP 401: Bad credentials");
  EXPECT_FALSE(s.latency);
}

TEST_F(HookTest, ErrorFieldIsAFailure) {
  Run(ReadData("post_tool_use_error_field.json"));
  Stored s = Only();
  EXPECT_EQ(s.tool, "Edit");
  EXPECT_EQ(s.outcome, "failure");
  EXPECT_EQ(s.error, "String to replace not found in file.");
  EXPECT_DOUBLE_EQ(s.latency.value_or(-1), 3);
}

TEST_F(HookTest, SuccessFalseIsAFailure) {
  Run(ReadData("post_tool_use_success_false.json"));
  EXPECT_EQ(Only().outcome, "failure");
}

TEST_F(HookTest, InterruptedIsATimeout) {
  Run(ReadData("post_tool_use_interrupted.json"));
  Stored s = Only();
  EXPECT_EQ(s.outcome, "timeout");
  EXPECT_EQ(s.error_class, "interrupted");
}

TEST_F(HookTest, PostToolUseFailureEnvelope) {
  HookRun r = Run(ReadData("post_tool_use_failure.json"));
  EXPECT_EQ(r.exit_code, 0);
  Stored s = Only();
  EXPECT_EQ(s.tool, "Bash");
  EXPECT_EQ(s.outcome, "failure");
  EXPECT_EQ(s.error, "Command exited with non-zero status code 1");
  EXPECT_DOUBLE_EQ(s.latency.value_or(-1), 8100);
  EXPECT_EQ(s.session, "abc123");
}

TEST_F(HookTest, PostToolUseFailureInterruptIsATimeout) {
  Run(ReadData("post_tool_use_failure_interrupt.json"), {"post-tool-use-failure"});
  Stored s = Only();
  EXPECT_EQ(s.tool, "WebFetch");
  EXPECT_EQ(s.outcome, "timeout");
}

TEST_F(HookTest, KiokuOwnMcpCallsAreSkipped) {
  HookRun r = Run(ReadData("post_tool_use_kioku_mcp.json"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("records its own calls"), std::string::npos) << r.err;
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(HookTest, NotJsonExitsZeroWithANote) {
  HookRun r = Run(ReadData("not_json.txt"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("not a JSON object"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(RawCount(), 0);
  EXPECT_EQ(BucketN(), 0);
}

TEST_F(HookTest, EmptyStdinExitsZeroWithANote) {
  HookRun r = Run(ReadData("empty.txt"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("empty stdin"), std::string::npos) << r.err;
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(HookTest, OtherHookEventsAreIgnored) {
  HookRun r = Run(ReadData("pre_tool_use.json"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("PreToolUse"), std::string::npos) << r.err;
  EXPECT_EQ(RawCount(), 0);
  HookRun j = Run("[1, 2, 3]");
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(RawCount(), 0);
  HookRun no_tool = Run(R"({"hook_event_name": "PostToolUse"})");
  EXPECT_NE(no_tool.err.find("no tool_name"), std::string::npos) << no_tool.err;
}

TEST_F(HookTest, UnknownEventArgumentExitsZero) {
  HookRun r = Run(ReadData("post_tool_use_success.json"), {"session-start"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("unknown or missing event"), std::string::npos) << r.err;
  EXPECT_EQ(RawCount(), 0);
  HookRun none = Run(ReadData("post_tool_use_success.json"), {});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(HookTest, AgentFromFlagThenEnvironment) {
  Run(ReadData("post_tool_use_success.json"), {"post-tool-use", "--agent", "reviewer"});
  ::setenv("KIOKU_AGENT_ID", "from-env", 1);
  Run(ReadData("post_tool_use_failure.json"));
  ::unsetenv("KIOKU_AGENT_ID");
  auto rows = Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].agent, "reviewer");
  EXPECT_EQ(rows[1].agent, "from-env");
}

TEST_F(HookTest, SameToolUseIdIsRecordedOnce) {
  Run(ReadData("post_tool_use_success.json"));
  HookRun again = Run(ReadData("post_tool_use_success.json"));
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(RawCount(), 1);
  EXPECT_EQ(BucketN(), 1);
  // A transcript ingest sending the same tool_use id as source_id is deduplicated too.
  json s = Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "success"},
                                  {"source_id", "toolu_01SUCCESS"}});
  EXPECT_EQ(s["duplicates"], 1);
}

TEST_F(HookTest, SecretsInErrorsAreRedacted) {
  json env = json::parse(ReadData("post_tool_use_failure.json"));
  env["error"] = "curl failed: Authorization: token ghp_abcdefghijklmnopqrstuvwxyz0123456789";
  Run(env.dump());
  const Stored s = Only();
  EXPECT_EQ(s.error.find("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), std::string::npos) << s.error;
}

TEST(NormalizeToolName, McpNamesBecomeServerSlashTool) {
  std::string server;
  EXPECT_EQ(NormalizeToolName("mcp__github__create_issue", &server), "github/create_issue");
  EXPECT_EQ(server, "github");
  EXPECT_EQ(NormalizeToolName("mcp__my_server__do__thing"), "my_server/do__thing");
  EXPECT_EQ(NormalizeToolName("Bash"), "Bash");
  EXPECT_EQ(NormalizeToolName("mcp__broken"), "mcp__broken");
  EXPECT_EQ(NormalizeToolName("mcp____x"), "mcp____x");
}

}  // namespace
}  // namespace kioku::affective::testing
