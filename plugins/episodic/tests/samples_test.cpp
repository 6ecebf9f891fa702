// Ingest of the shared sample transcripts (shared/samples/transcripts) against their
// expected.json. Skipped when the folder is not beside the checkout.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "privacy.hpp"
#include "store.hpp"
#include "test_util.hpp"

namespace kioku::episodic::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSamples = KIOKU_SHARED_SAMPLES;

class SharedSamplesTest : public EpisodicTest {
 protected:
  json PluginSettings() const override { return {{"ingest", {{"allowed_roots", {"*"}}}}}; }
  void SetUp() override {
    if (!fs::exists(kSamples / "expected.json")) GTEST_SKIP() << "no " << kSamples;
    EpisodicTest::SetUp();
    std::ifstream in(kSamples / "expected.json");
    expected_ = json::parse(in);
  }
  std::set<std::string> Column(const std::string& sql, const std::string& bind) {
    SQLite::Statement q(rt_.Db(), sql);
    q.bind(1, bind);
    std::set<std::string> out;
    while (q.executeStep()) out.insert(q.getColumn(0).getString());
    return out;
  }
  std::int64_t Scalar(const std::string& sql, const std::string& bind) {
    SQLite::Statement q(rt_.Db(), sql);
    q.bind(1, bind);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  json expected_;
};

TEST_F(SharedSamplesTest, EveryFileMatchesItsExpectations) {
  for (const auto& [rel, e] : expected_["files"].items()) {
    SCOPED_TRACE(rel);
    auto r = Call("session_ingest", {{"path", (kSamples / rel).string()}});
    ASSERT_FALSE(r.is_error) << r.text;
    const json& f = r.structured["files"][0];
    EXPECT_EQ(f["format"], e["format"]);
    EXPECT_EQ(f["lines"], e["line_count"]);
    EXPECT_EQ(f["blank_lines"], e["blank_lines"].size());
    EXPECT_EQ(f["skipped_lines"], e["malformed_lines"].size());
    ASSERT_EQ(f["sessions"].size(), e["sessions"]["ids"].size());
    const std::string sid = e["sessions"]["ids"][0];
    EXPECT_EQ(f["sessions"][0], sid);
    auto s = LoadSession(rt_.Db(), sid);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->started_at, Ms(e["time_range"]["first"].get<std::string>().c_str()));
    EXPECT_EQ(s->last_activity_at, Ms(e["time_range"]["last"].get<std::string>().c_str()));
    EXPECT_EQ(s->model, e["model"]);
    // Filed under the project the server computes (issue 10): the recorded remote when the
    // transcript has one (Codex session_meta.git.repository_url), else the recorded cwd.
    const std::string cwd = e["cwd"];
    EXPECT_EQ(s->project, e["format"] == "codex" ? "git.kelpie.internal/sensors/kelpie" : cwd);
    EXPECT_EQ(f["projects"][sid], s->project);
    EXPECT_EQ(Scalar("SELECT COUNT(*) FROM episodic_log WHERE session_id = ? AND type = 'request'",
                     sid),
              static_cast<std::int64_t>(e["human_prompt_lines"].size()));
    std::set<std::string> want;
    for (const auto& d : e["durable_statements"]) want.insert(d["text"]);
    EXPECT_EQ(Column("SELECT entry FROM episodic_log WHERE session_id = ? AND type = 'decision'",
                     sid),
              want);
    // Each statement is stamped with the time the human said it.
    for (const auto& d : e["durable_statements"]) {
      SQLite::Statement q(rt_.Db(),
                          "SELECT at FROM episodic_log WHERE session_id = ? AND type = 'decision' "
                          "AND entry = ?");
      q.bind(1, sid);
      q.bind(2, d["text"].get<std::string>());
      ASSERT_TRUE(q.executeStep());
      EXPECT_EQ(q.getColumn(0).getInt64(), Ms(d["timestamp"].get<std::string>().c_str()));
    }
    EXPECT_EQ(Scalar("SELECT SUM(calls) FROM episodic_tool_stats WHERE session_id = ?", sid),
              e["tool_calls"]["total"].get<std::int64_t>());
    EXPECT_EQ(Scalar("SELECT SUM(failures) FROM episodic_tool_stats WHERE session_id = ?", sid),
              e["tool_calls"]["failed"].get<std::int64_t>());
    for (const char* action : {"modified", "read"}) {
      std::set<std::string> files;
      for (const auto& p : e["files_touched"][action]) {
        files.insert(StoredPath(p.get<std::string>(), e["cwd"].get<std::string>()));
      }
      EXPECT_EQ(Column(std::string("SELECT path FROM episodic_files WHERE session_id = ? AND "
                                   "action = '") + action + "'",
                       sid),
                files)
          << action;
    }
    // Distractors never become statements (unless the human also said the same words).
    for (const auto& d : e["distractors"]) {
      const std::string text = d["text"];
      if (std::any_of(want.begin(), want.end(),
                      [&](const std::string& w) { return w.find(text) != std::string::npos; })) {
        continue;
      }
      EXPECT_EQ(Scalar("SELECT COUNT(*) FROM episodic_log WHERE type = 'decision' AND instr(entry, "
                       "?) > 0",
                       d["text"].get<std::string>()),
                0)
          << d["text"];
    }
  }
}

}  // namespace
}  // namespace kioku::episodic::testing
