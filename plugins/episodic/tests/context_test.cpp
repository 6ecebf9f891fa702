// `kioku hook capture` on a growing transcript (new lines only, never counted twice), its
// fail-open answers, and the episodic context provider (the last session's summary).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "context/context_block.hpp"
#include "kioku/sdk/text.hpp"
#include "test_util.hpp"

namespace kioku::episodic::testing {
namespace {

namespace fs = std::filesystem;

const char* kSample = EPISODIC_TEST_DATA "/claude-code/11111111-aaaa-4bbb-8ccc-000000000001.jsonl";

std::vector<std::string> SampleLines() {
  std::ifstream in(kSample);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class CaptureHookTest : public EpisodicTest {
 protected:
  void SetUp() override {
    EpisodicTest::SetUp();
    transcript_ = rt_.dir / "session.jsonl";
  }

  /// Runs `kioku hook capture` as the host routes it; returns stderr.
  std::string Capture(const std::string& envelope, int* rc = nullptr) {
    for (const auto& c : rt_.runtime->Commands()) {
      if (c.name != "hook capture") continue;
      std::istringstream in(envelope);
      std::ostringstream out, err;
      const int code = c.run({}, in, out, err);
      if (rc) *rc = code;
      EXPECT_EQ(out.str(), "") << "stdout stays empty";
      return err.str();
    }
    ADD_FAILURE() << "no `hook capture` command registered";
    return {};
  }
  std::string Envelope(const std::string& event = "Stop") const {
    return nlohmann::json{{"session_id", "11111111-aaaa-4bbb-8ccc-000000000001"},
                          {"transcript_path", transcript_.string()},
                          {"cwd", "/home/alex/shop"},
                          {"hook_event_name", event}}
        .dump();
  }
  void Append(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
    std::ofstream out(transcript_, std::ios::app);
    for (std::size_t i = from; i < to && i < lines.size(); ++i) out << lines[i] << "\n";
  }
  std::int64_t Messages() {
    SQLite::Statement q(rt_.Db(), "SELECT COALESCE(SUM(message_count), 0) FROM episodic_sessions");
    q.executeStep();
    return q.getColumn(0).getInt64();
  }

  fs::path transcript_;
};

TEST_F(CaptureHookTest, GrowingTranscriptIsReadIncrementallyWithoutDoubleCounting) {
  const auto lines = SampleLines();
  ASSERT_GT(lines.size(), 20u);

  // Reference: the whole file in one go, on a fresh runtime.
  std::int64_t whole_messages = 0, whole_log = 0, whole_requests = 0;
  {
    kioku::testing::TestRuntime reference;
    reference.Add<EpisodicPlugin>("episodic");
    reference.Start();
    const fs::path whole = reference.dir / "whole.jsonl";
    fs::copy_file(kSample, whole);
    std::istringstream in(nlohmann::json{{"transcript_path", whole.string()}, {"cwd", "/home/alex/shop"}}.dump());
    std::ostringstream out, err;
    for (const auto& c : reference.runtime->Commands()) {
      if (c.name == "hook capture") c.run({}, in, out, err);
    }
    auto count = [&](const std::string& sql) {
      SQLite::Statement q(reference.Db(), sql);
      q.executeStep();
      return q.getColumn(0).getInt64();
    };
    whole_messages = count("SELECT COALESCE(SUM(message_count), 0) FROM episodic_sessions");
    whole_log = count("SELECT COUNT(*) FROM episodic_log");
    whole_requests = count("SELECT COUNT(*) FROM episodic_log WHERE type = 'request'");
  }
  ASSERT_GT(whole_messages, 0);

  int rc = -1;
  Append(lines, 0, 8);
  EXPECT_EQ(Capture(Envelope("Stop"), &rc), "");
  EXPECT_EQ(rc, 0);
  const std::int64_t after_first = Messages();
  EXPECT_GT(after_first, 0);
  EXPECT_LT(after_first, whole_messages);

  EXPECT_EQ(Capture(Envelope("Stop")), "") << "nothing new: nothing recorded, nothing said";
  EXPECT_EQ(Messages(), after_first);

  Append(lines, 8, 19);
  Capture(Envelope("PreCompact"));
  Append(lines, 19, lines.size());
  Capture(Envelope("SessionEnd"));
  Capture(Envelope("Stop"));
  EXPECT_EQ(Messages(), whole_messages);
  EXPECT_EQ(Count("episodic_log"), whole_log);
  EXPECT_EQ(Count("episodic_log", "type = 'request'"), whole_requests);
  EXPECT_EQ(Count("episodic_sessions"), 1);
}

TEST_F(CaptureHookTest, BadEnvelopesExitZeroWithOneLine) {
  for (const std::string& envelope :
       {std::string(""), std::string("not json"), std::string("[1]"), std::string("{\"hook_event_name\":\"Stop\"}"),
        nlohmann::json{{"transcript_path", "/nonexistent/t.jsonl"}}.dump()}) {
    int rc = -1;
    const std::string err = Capture(envelope, &rc);
    EXPECT_EQ(rc, 0) << envelope;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << envelope << " → " << err;
    EXPECT_EQ(err.rfind("kioku hook capture: ", 0), 0u) << err;
  }
  EXPECT_EQ(Count("episodic_sessions"), 0);
}

TEST_F(CaptureHookTest, LastSessionSummaryReachesTheContextBlock) {
  const auto lines = SampleLines();
  Append(lines, 0, lines.size());
  Capture(Envelope());
  sdk::Caller caller = kioku::testing::TestRuntime::DefaultCaller();
  caller.project_root = "/home/alex/shop";
  caller.project_id = "/home/alex/shop";
  caller.session_id = "a-new-session";
  host::ContextOptions options;
  const std::string block = host::BuildContext(*rt_.runtime, caller, options).text;
  EXPECT_NE(block.find("[summary|last session]"), std::string::npos) << block;
  {
    // A summary longer than the line's budget ends at a sentence or a word, not inside one.
    SQLite::Statement q(rt_.Db(), "SELECT summary FROM episodic_summaries WHERE status = 'active'");
    ASSERT_TRUE(q.executeStep());
    const std::string summary = sdk::CollapseWhitespace(q.getColumn(0).getString());
    ASSERT_GT(summary.size(), 300u) << "the sample's summary must be long enough to be cut";
    const std::size_t from = block.find(": ", block.find("[summary|last session]")) + 2;
    const std::size_t to = block.find(" (session_recall for more)", from);
    ASSERT_NE(to, std::string::npos) << block;
    std::string shown = block.substr(from, to - from);
    const bool ellipsis = shown.size() >= 3 && shown.compare(shown.size() - 3, 3, "…") == 0;
    if (ellipsis) shown.resize(shown.size() - 3);
    ASSERT_EQ(summary.compare(0, shown.size(), shown), 0) << shown;
    // The sample's summary has a sentence end past half of the 300-byte budget
    // ("…banker's rounding everywhere."), so the line stops there, with no ellipsis.
    EXPECT_FALSE(ellipsis) << shown;
    EXPECT_EQ(shown.back(), '.') << shown;
  }

  caller.session_id = "11111111-aaaa-4bbb-8ccc-000000000001";
  EXPECT_EQ(host::BuildContext(*rt_.runtime, caller, options).text, "") << "the caller's own session is not 'last'";
  options.query = "cart totals rounding";
  caller.session_id = "a-new-session";
  EXPECT_EQ(host::BuildContext(*rt_.runtime, caller, options).text, "") << "summaries are session-start context";
}

}  // namespace
}  // namespace kioku::episodic::testing
