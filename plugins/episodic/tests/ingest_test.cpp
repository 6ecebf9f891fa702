#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "ingest.hpp"
#include "line_reader.hpp"
#include "privacy.hpp"
#include "store.hpp"
#include "test_util.hpp"
#include "transcript.hpp"
#include "watch.hpp"

namespace kioku::episodic::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kData = EPISODIC_TEST_DATA;
const fs::path kClaude = kData / "claude-code" / "11111111-aaaa-4bbb-8ccc-000000000001.jsonl";
const fs::path kCodex =
    kData / "codex" / "rollout-2025-10-14T09-12-03-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl";
const fs::path kGeneric = kData / "generic" / "chat.jsonl";

// Stand-ins for the semantic and affective layers: they record what they are sent.
struct Captured {
  static std::vector<json>& Suggest() {
    static std::vector<json> v;
    return v;
  }
  static std::vector<json>& Feedback() {
    static std::vector<json> v;
    return v;
  }
  static std::vector<sdk::Caller>& SuggestCallers() {
    static std::vector<sdk::Caller> v;
    return v;
  }
};

class FakeLayers : public sdk::Plugin {
 public:
  explicit FakeLayers(sdk::HostServices&) {}
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec s;
    s.name = "memory_suggest";
    s.title = "fake";
    s.description = "fake semantic layer";
    r.AddTool(s, [](const json& a, const sdk::CallContext& ctx) {
      Captured::Suggest().push_back(a);
      Captured::SuggestCallers().push_back(ctx.caller);
      return sdk::ToolResult::Ok("ok");
    });
    sdk::ToolSpec f;
    f.name = "feedback_record";
    f.title = "fake";
    f.description = "fake affective layer";
    r.AddTool(f, [](const json& a, const sdk::CallContext&) {
      Captured::Feedback().push_back(a);
      return sdk::ToolResult::Ok("ok");
    });
  }
};

fs::path Copy(const fs::path& from, const fs::path& dir, const std::string& name = "") {
  fs::create_directories(dir);
  const fs::path to = dir / (name.empty() ? from.filename().string() : name);
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  return to;
}

std::vector<std::string> ReadLines(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

void Append(const fs::path& p, const std::string& text) {
  std::ofstream o(p, std::ios::binary | std::ios::app);
  o << text;
}

class IngestTest : public EpisodicTest {
 protected:
  void SetUp() override {
    Captured::Suggest().clear();
    Captured::Feedback().clear();
    Captured::SuggestCallers().clear();
    if (WithLayers()) rt_.Add<FakeLayers>("fakes");
    EpisodicTest::SetUp();
    // Transcripts live under the caller's project root, which session_ingest allows.
    sdk::Caller c = kioku::testing::TestRuntime::DefaultCaller();
    c.project_root = (rt_.dir / "project").string();
    c.project_id = "example.org/project";
    caller_ = c;
    root_ = rt_.dir / "project";
    fs::create_directories(root_);
  }
  virtual bool WithLayers() const { return true; }
  sdk::ToolResult Ingest(const fs::path& p, json extra = json::object()) {
    extra["path"] = p.string();
    return rt_.Call("session_ingest", extra, caller_);
  }
  json IngestOk(const fs::path& p) {
    auto r = Ingest(p);
    EXPECT_FALSE(r.is_error) << r.text;
    return r.structured;
  }
  std::set<std::string> Column(const std::string& sql) {
    SQLite::Statement q(rt_.Db(), sql);
    std::set<std::string> out;
    while (q.executeStep()) out.insert(q.getColumn(0).getString());
    return out;
  }
  std::int64_t Scalar(const std::string& sql) {
    SQLite::Statement q(rt_.Db(), sql);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  sdk::Caller caller_;
  fs::path root_;
};

TEST_F(IngestTest, ClaudeCodeTranscript) {
  const fs::path f = Copy(kClaude, root_ / "claude");
  json r = IngestOk(f);
  EXPECT_EQ(r["sessions"], 1);
  EXPECT_EQ(r["messages"], 10);  // 4 human prompts + 6 assistant responses (main chain)
  EXPECT_EQ(r["skipped_lines"], 1);  // the line cut off mid-write
  EXPECT_EQ(r["statements"], 2);
  EXPECT_EQ(r["suggested_memories"], 2);
  EXPECT_EQ(r["tool_outcomes"], 6);  // Read, Bash ×2, Edit, Task + the sidechain's Grep
  const json& file = r["files"][0];
  EXPECT_EQ(file["format"], "claude-code");
  EXPECT_EQ(file["duplicates"], 1);
  EXPECT_EQ(file["bad_timestamps"], 1);
  EXPECT_EQ(file["blank_lines"], 1);

  const std::string sid = "11111111-aaaa-4bbb-8ccc-000000000001";
  auto s = LoadSession(rt_.Db(), sid);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->title, "Cart totals rounding");
  EXPECT_EQ(s->source, "claude-code");
  EXPECT_EQ(s->agent_id, "claude-code");
  EXPECT_EQ(s->model, "claude-sonnet-4-5-20250929");
  EXPECT_EQ(s->branch, "feat/cart");
  EXPECT_EQ(s->project, "/home/alex/shop");  // the absolute path, as a server there names it
  EXPECT_EQ(s->started_at, Ms("2025-11-03T09:41:00Z"));  // times from the transcript
  EXPECT_EQ(s->last_activity_at, Ms("2025-11-03T09:41:40Z"));

  EXPECT_EQ(Count("episodic_log", "type = 'request'"), 4);
  EXPECT_EQ(Column("SELECT entry FROM episodic_log WHERE type = 'decision'"),
            (std::set<std::string>{"From now on use pnpm, not npm.",
                                   "We decided to round with banker's rounding everywhere."}));
  EXPECT_EQ(Count("episodic_log", "type = 'issue'"), 2);
  EXPECT_EQ(Count("episodic_log", "type = 'issue' AND entry LIKE 'Bash refused%'"), 1);
  EXPECT_EQ(Column("SELECT path || ':' || action FROM episodic_files"),
            (std::set<std::string>{"src/cart/total.ts:read", "src/cart/total.ts:modified"}));
  EXPECT_EQ(Scalar("SELECT calls FROM episodic_tool_stats WHERE tool = 'Bash'"), 2);
  EXPECT_EQ(Scalar("SELECT failures FROM episodic_tool_stats WHERE tool = 'Bash'"), 2);

  // Cross-layer: statements filed once each, with provenance; outcomes in one batch.
  ASSERT_EQ(Captured::Suggest().size(), 2u);
  const json& m = Captured::Suggest()[0];
  EXPECT_EQ(m["text"], "From now on use pnpm, not npm.");
  EXPECT_EQ(m["kind"], "preference");
  EXPECT_EQ(m["source"], "import");
  EXPECT_EQ(m["source_ref"], f.filename().string() + ":13 (2025-11-03T09:41:20.000Z)");
  EXPECT_EQ(Captured::SuggestCallers()[0].project_id, "/home/alex/shop");
  ASSERT_EQ(Captured::Feedback().size(), 1u);
  const json& recs = Captured::Feedback()[0]["records"];
  ASSERT_EQ(recs.size(), 6u);
  std::map<std::string, int> outcomes;
  for (auto& rec : recs) outcomes[rec["outcome"].get<std::string>()]++;
  EXPECT_EQ(outcomes["success"], 4);
  EXPECT_EQ(outcomes["failure"], 1);
  EXPECT_EQ(outcomes["rejected"], 1);
  EXPECT_EQ(recs[1]["tool"], "Bash");
  EXPECT_EQ(recs[1]["latency_ms"], 3000);
  EXPECT_EQ(recs[1]["agent_id"], "claude-code");
  EXPECT_EQ(recs[1]["at"], "2025-11-03T09:41:09.000Z");

  // The summary recall finds.
  auto rec = rt_.Call("session_recall", {{"query", "banker rounding"}, {"project", "*"}}, caller_);
  ASSERT_FALSE(rec.is_error) << rec.text;
  ASSERT_EQ(rec.structured["summaries"].size(), 1u) << rec.text;
  EXPECT_NE(rec.text.find("Cart totals rounding"), std::string::npos) << rec.text;
}

TEST_F(IngestTest, HomeDirectoryIsNotStored) {
  IngestOk(Copy(kClaude, root_ / "claude"));
  IngestOk(Copy(kCodex, root_ / "codex"));
  for (const char* sql :
       {"SELECT COUNT(*) FROM episodic_log WHERE entry LIKE '%/home/alex%'",
        "SELECT COUNT(*) FROM episodic_summaries WHERE summary LIKE '%/home/alex%'",
        "SELECT COUNT(*) FROM episodic_files WHERE path LIKE '%/home/%'",
        // The project key is the folder's identity as a server started there computes it
        // (an absolute path for a plain folder, issue 10), so only the title is checked.
        "SELECT COUNT(*) FROM episodic_sessions WHERE title LIKE '%/home/%'"}) {
    EXPECT_EQ(Scalar(sql), 0) << sql;
  }
  EXPECT_EQ(Count("episodic_log", "entry LIKE '%~/shop/src/cart/total.ts%'"), 1);
}

TEST_F(IngestTest, CodexRollout) {
  json r = IngestOk(Copy(kCodex, root_ / "codex"));
  EXPECT_EQ(r["sessions"], 1);
  EXPECT_EQ(r["messages"], 4);  // 3 human + 1 assistant (each recorded twice, stored once)
  EXPECT_EQ(r["skipped_lines"], 1);
  EXPECT_EQ(r["statements"], 1);
  EXPECT_EQ(r["tool_outcomes"], 5);
  auto s = LoadSession(rt_.Db(), "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->model, "gpt-5-codex");
  EXPECT_EQ(s->agent_id, "codex");
  EXPECT_EQ(s->project, "/home/alex/kelp");
  EXPECT_EQ(Count("episodic_log", "type = 'request'"), 3);
  EXPECT_EQ(Column("SELECT entry FROM episodic_log WHERE type = 'decision'"),
            (std::set<std::string>{"Always use `uv run` for Python commands in this repo."}));
  // Said on the response_item line (15), not the event_msg copy (16).
  EXPECT_EQ(Count("episodic_log", "type = 'decision' AND source_ref LIKE '%:15' AND at = " +
                                      std::to_string(Ms("2025-10-14T09:13:00Z"))),
            1);
  EXPECT_EQ(Column("SELECT path || ':' || action FROM episodic_files"),
            (std::set<std::string>{"kelp/api/readings.py:read", "kelp/api/readings.py:modified",
                                   "tests/test_tz.py:modified"}));
  EXPECT_EQ(Scalar("SELECT SUM(failures) FROM episodic_tool_stats"), 2);
  EXPECT_EQ(Scalar("SELECT calls FROM episodic_tool_stats WHERE tool = 'apply_patch'"), 2);
  ASSERT_EQ(Captured::Suggest().size(), 1u);
  EXPECT_EQ(Captured::Suggest()[0]["kind"], "preference");

  // The rollout names no title, so the title is the first request cut short: the summary
  // opens with it once, not again after "Asked:".
  const auto firsts = Column("SELECT entry FROM episodic_log WHERE type = 'request' ORDER BY seq LIMIT 1");
  ASSERT_EQ(firsts.size(), 1u);
  const std::string& first = *firsts.begin();
  ASSERT_TRUE(first.starts_with(s->title.substr(0, 20))) << s->title;
  const std::string summary = BuildTranscriptSummary(rt_.Db(), s->id);
  EXPECT_TRUE(summary.starts_with(s->title + " (codex session")) << summary;
  EXPECT_EQ(summary.find(first.substr(0, 30), 1), std::string::npos) << summary;
  EXPECT_EQ(summary.find("Asked:"), std::string::npos) << summary;
}

// A session without a title is named by its first request, cut at a word; the summary's
// lines are cut at a sentence or a word too, never inside one (sdk::TruncateAtBoundary).
TEST_F(IngestTest, TitlesAndSummariesEndAtAWord) {
  const fs::path dir = root_ / "long";
  fs::create_directories(dir);
  const std::string ask =
      "I want a scripts/deploy-staging.sh that does what the production deploy does but against the "
      "staging cluster, and it should refuse to run when the working tree is dirty or the branch is not main";
  const std::string decision =
      "We decided that the staging migrations always run through the platform team's pipeline and never from "
      "a laptop, because the staging database is shared by four teams and a half-applied migration blocked "
      "everyone for a day last spring; the deploy script only checks that the pipeline finished and stops "
      "with a clear message pointing at the pipeline run when it did not, so nobody is tempted to run the "
      "migrations by hand from their own machine again, whatever the deadline looks like that week.";
  std::ofstream(dir / "chat.jsonl")
      << json{{"role", "user"}, {"content", ask}, {"timestamp", "2026-02-01T10:00:05Z"}}.dump() << "\n"
      << json{{"role", "assistant"}, {"content", "Understood. " + decision}, {"timestamp", "2026-02-01T10:01:00Z"}}.dump()
      << "\n";
  IngestOk(dir / "chat.jsonl");
  const auto ids = Column("SELECT id FROM episodic_sessions");
  ASSERT_EQ(ids.size(), 1u);
  auto s = LoadSession(rt_.Db(), *ids.begin());
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE(s->title.ends_with("…")) << s->title;
  const std::string stem = s->title.substr(0, s->title.size() - std::string_view("…").size());
  ASSERT_TRUE(ask.starts_with(stem)) << s->title;
  EXPECT_EQ(ask[stem.size()], ' ') << "cut inside a word: " << s->title;
  const std::string summary = BuildTranscriptSummary(rt_.Db(), s->id);
  for (std::size_t at = summary.find("…"); at != std::string::npos; at = summary.find("…", at + 1)) {
    EXPECT_NE(summary[at - 1], ' ') << summary;
    const std::size_t word = summary.find_last_of(" \n", at - 1) + 1;
    const std::string last = summary.substr(word, at - word);
    EXPECT_TRUE(ask.find(last + " ") != std::string::npos || decision.find(last + " ") != std::string::npos)
        << "'" << last << "' is not a whole word of the transcript: " << summary;
  }
}

TEST_F(IngestTest, GenericJsonl) {
  json r = IngestOk(Copy(kGeneric, root_ / "generic"));
  EXPECT_EQ(r["sessions"], 1);
  EXPECT_EQ(r["messages"], 3);
  EXPECT_EQ(r["tool_outcomes"], 1);
  EXPECT_EQ(Column("SELECT entry FROM episodic_log WHERE type = 'decision'"),
            (std::set<std::string>{"Going forward, every endpoint needs an OpenAPI entry."}));
  EXPECT_EQ(Column("SELECT model FROM episodic_sessions"), (std::set<std::string>{"llama-3"}));
  // The file's session id is stable across re-ingests of the same file.
  const auto ids = Column("SELECT id FROM episodic_sessions");
  Append(root_ / "generic" / "chat.jsonl",
         R"({"role":"user","content":"one more","timestamp":"2026-02-01T10:03:00Z"})" "\n");
  IngestOk(root_ / "generic" / "chat.jsonl");
  EXPECT_EQ(Column("SELECT id FROM episodic_sessions"), ids);
  EXPECT_EQ(Count("episodic_log", "type = 'request'"), 3);
}

TEST_F(IngestTest, ReingestIsIdempotentAndGrowthAddsOnlyNewLines) {
  const fs::path f = Copy(kClaude, root_ / "claude");
  const auto all = ReadLines(kClaude);
  {
    std::ofstream o(f, std::ios::binary | std::ios::trunc);
    for (std::size_t i = 0; i < 20; ++i) o << all[i] << "\n";
  }
  json first = IngestOk(f);
  const auto requests_before = Count("episodic_log", "type = 'request'");
  json again = IngestOk(f);
  EXPECT_TRUE(again["files"][0]["unchanged"].get<bool>());
  EXPECT_EQ(again["messages"], 0);
  EXPECT_EQ(Count("episodic_log", "type = 'request'"), requests_before);
  for (std::size_t i = 20; i < all.size(); ++i) Append(f, all[i] + "\n");
  json grown = IngestOk(f);
  EXPECT_EQ(first["messages"].get<int>() + grown["messages"].get<int>(), 10);
  EXPECT_EQ(first["tool_outcomes"].get<int>() + grown["tool_outcomes"].get<int>(), 6);
  EXPECT_EQ(Count("episodic_log", "type = 'decision'"), 2);
  EXPECT_EQ(Count("episodic_summaries", "kind = 'transcript'"), 1);  // rebuilt in place
  // The same transcript under another name (a copy, a resumed session): every line id is
  // known, nothing is recorded twice and no memory is suggested twice.
  json copy = IngestOk(Copy(kClaude, root_ / "other", "copy.jsonl"));
  EXPECT_EQ(copy["messages"], 0);
  EXPECT_EQ(Count("episodic_log", "type = 'decision'"), 2);
  EXPECT_EQ(Captured::Suggest().size(), 2u);
  std::size_t records = 0;
  for (auto& b : Captured::Feedback()) records += b["records"].size();
  EXPECT_EQ(records, 6u);
}

TEST_F(IngestTest, SuggestionsAreDeduplicatedAcrossFiles) {
  // Two Codex sessions repeating the same rule: one memory suggestion.
  const fs::path a = Copy(kCodex, root_ / "codex", "a.jsonl");
  std::string text;
  for (auto& l : ReadLines(kCodex)) {
    std::string x = l;
    auto pos = x.find("0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001");
    if (pos != std::string::npos) x.replace(pos, 36, "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0002");
    text += x + "\n";
  }
  std::ofstream(root_ / "codex" / "b.jsonl", std::ios::binary) << text;
  IngestOk(a);
  IngestOk(root_ / "codex" / "b.jsonl");
  EXPECT_EQ(Count("episodic_sessions"), 2);
  EXPECT_EQ(Count("episodic_log", "type = 'decision'"), 2);  // logged in each session
  EXPECT_EQ(Captured::Suggest().size(), 1u);                  // filed once
}

TEST_F(IngestTest, BinaryGarbageIsAnErrorAndWritesNothing) {
  const fs::path f = root_ / "garbage.jsonl";
  {
    std::ofstream o(f, std::ios::binary);
    for (int i = 0; i < 5000; ++i) o << static_cast<char>((i * 7919) % 256);
  }
  auto r = Ingest(f);
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("no Claude Code, Codex or {role, content} JSONL line found"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(Count("episodic_ingest_files"), 0);
  EXPECT_EQ(Count("episodic_sessions"), 0);
}

TEST_F(IngestTest, UnknownPathAndOutsideRootsAreErrors) {
  auto r = Ingest(root_ / "missing.jsonl");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("no such file"), std::string::npos) << r.text;
  const fs::path outside = rt_.dir / "elsewhere" / "x.jsonl";
  Copy(kGeneric, outside.parent_path(), "x.jsonl");
  r = Ingest(outside);
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("allowed_roots"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_sessions"), 0);
}

// Every byte of every episodic table (and its FTS shadow tables), to prove a secret never
// reached the database.
std::string AllStoredBytes(SQLite::Database& db) {
  std::vector<std::string> tables;
  {
    SQLite::Statement t(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'episodic%'");
    while (t.executeStep()) tables.push_back(t.getColumn(0).getString());
  }
  std::string out;
  for (const auto& name : tables) {
    SQLite::Statement q(db, "SELECT * FROM \"" + name + "\"");
    while (q.executeStep()) {
      for (int i = 0; i < q.getColumnCount(); ++i) {
        const auto col = q.getColumn(i);
        out.append(static_cast<const char*>(col.getBlob()), static_cast<std::size_t>(col.getBytes()));
        out.push_back('\n');
      }
    }
  }
  return out;
}

TEST_F(IngestTest, SecretsNeverReachTheDatabase) {
  const std::string aws = "q8Zr3kLm9PxT2vWn7YbC4dHj6FsA1gEu5RtK0oQi";
  const std::string pw = "Zk81mmQ2xyPw";
  const std::string gh = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
  const std::string head =
      R"({"message":{"role":"user","content":"export AWS_SECRET_ACCESS_KEY=)" + aws +
      R"( and from now on use the staging db"},"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/srv/app","sessionId":"22222222-aaaa-4bbb-8ccc-000000000002","version":"2.0.31","gitBranch":"fix/)" + gh +
      R"(","type":"user","uuid":"00000000-0000-4000-8000-0000000000a1","timestamp":"2025-11-03T09:41:00.000Z"})" "\n";
  const std::string call =
      R"({"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/srv/app","sessionId":"22222222-aaaa-4bbb-8ccc-000000000002","version":"2.0.31","gitBranch":"main","type":"assistant","uuid":"00000000-0000-4000-8000-0000000000a2","timestamp":"2025-11-03T09:41:03.000Z","message":{"model":"claude-sonnet-4-5","id":"msg_z","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_psql","name":"Bash","input":{"command":"psql postgres://admin:)" + pw +
      R"(@db.internal/app -c 'select 1'"}}]}})" "\n";
  fs::create_directories(root_ / "s");
  const fs::path f = root_ / "s" / "secret.jsonl";
  std::ofstream(f, std::ios::binary) << head << call;
  ASSERT_LT(head.find(aws), 256u);  // the secret sits in the file's first 256 bytes
  const auto r = Ingest(f);
  ASSERT_FALSE(r.is_error) << r.text;
  const std::string stored = AllStoredBytes(rt_.Db());
  for (const std::string& secret : {aws, pw, gh}) {
    EXPECT_EQ(stored.find(secret), std::string::npos) << "stored: " << secret;
  }
  // The answer counts what was redacted, per rule, and never holds the secret.
  // Counted per stored string: the message and the statement extracted from it.
  EXPECT_GE(r.structured["redacted"]["aws-secret-key"].get<int>(), 1) << r.structured.dump();
  EXPECT_NE(r.text.find("redacted"), std::string::npos) << r.text;
  for (const std::string& secret : {aws, pw, gh}) {
    EXPECT_EQ(r.text.find(secret), std::string::npos);
    EXPECT_EQ(r.structured.dump().find(secret), std::string::npos);
  }
  // Growth still continues from the offset (the head fingerprint matches).
  Append(f, R"({"role":"user","content":"x","timestamp":"2025-11-03T09:42:00Z"})" "\n");
  const auto again = Ingest(f);
  ASSERT_FALSE(again.is_error) << again.text;
  EXPECT_FALSE(again.structured["files"][0]["reset"].get<bool>());
}

TEST_F(IngestTest, FolderWalkSkipsLinksResolvingOutsideTheFolder) {
  const fs::path elsewhere = rt_.dir / "elsewhere";
  Copy(kGeneric, elsewhere, "secret.jsonl");
  const fs::path dir = root_ / "walk";
  Copy(kCodex, dir);
  fs::create_symlink(elsewhere / "secret.jsonl", dir / "x.jsonl");
  fs::create_directory_symlink(elsewhere, dir / "sub");  // directory links are not followed
  const auto r = Ingest(dir);
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["files"].size(), 1u) << r.structured.dump();
  EXPECT_NE(r.text.find("outside the folder"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_ingest_files", "path LIKE '%elsewhere%'"), 0);
  EXPECT_EQ(Count("episodic_sessions", "source = 'generic'"), 0);
  std::size_t outside = 0;
  EXPECT_EQ(ListTranscripts(dir, 100, &outside).size(), 1u);
  EXPECT_EQ(outside, 1u);
}

TEST_F(IngestTest, FailedBatchLeavesNothingBehind) {
  const fs::path f = Copy(kClaude, root_ / "claude");
  rt_.Db().exec(
      "CREATE TRIGGER fail_files BEFORE INSERT ON episodic_files BEGIN "
      "SELECT RAISE(ABORT, 'disk full (simulated)'); END");
  auto r = Ingest(f);
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("disk full (simulated)"), std::string::npos) << r.text;
  for (const char* t : {"episodic_sessions", "episodic_log", "episodic_summaries",
                        "episodic_ingest_files", "episodic_ingest_seen", "episodic_outbox"}) {
    EXPECT_EQ(Count(t), 0) << t;
  }
  EXPECT_TRUE(Captured::Suggest().empty());
  rt_.Db().exec("DROP TRIGGER fail_files");
  json ok = IngestOk(f);
  EXPECT_EQ(ok["messages"], 10);
}

TEST_F(IngestTest, ReplacedFileIsReadAgainFromTheStart) {
  const fs::path f = Copy(kGeneric, root_ / "g", "t.jsonl");
  IngestOk(f);
  std::ofstream(f, std::ios::binary | std::ios::trunc)
      << R"({"role":"user","content":"brand new file","timestamp":"2026-03-01T00:00:00Z"})" "\n";
  json r = IngestOk(f);
  EXPECT_TRUE(r["files"][0]["reset"].get<bool>());
  EXPECT_EQ(Count("episodic_log", "entry = 'brand new file'"), 1);
}

class SmallLinesTest : public IngestTest {
 protected:
  json PluginSettings() const override {
    return {{"ingest", {{"max_line_bytes", 4096}, {"batch_bytes", 65536}}}};
  }
};

TEST_F(SmallLinesTest, LargeTranscriptIsStreamedInBatchesAndOversizeLinesSkipped) {
  const fs::path f = root_ / "big.jsonl";
  std::int64_t expected_requests = 0, oversize = 0;
  {
    std::ofstream o(f, std::ios::binary);
    for (int i = 0; i < 3000; ++i) {
      json line = {{"role", i % 2 == 0 ? "user" : "assistant"},
                   {"content", "message " + std::to_string(i) + " " + std::string(100, 'x')},
                   {"timestamp", "2026-02-01T10:00:00Z"}};
      if (i % 2 == 0) ++expected_requests;
      if (i % 500 == 250) {
        line["content"] = std::string(10'000, 'y');  // over max_line_bytes
        --expected_requests;
        ++oversize;
      }
      o << line.dump() << "\n";
    }
  }
  json r = IngestOk(f);
  EXPECT_EQ(r["files"][0]["oversize_lines"], oversize);
  EXPECT_EQ(r["skipped_lines"], oversize);
  EXPECT_EQ(Count("episodic_log", "type = 'request'"), expected_requests);
  EXPECT_EQ(Scalar("SELECT byte_offset FROM episodic_ingest_files"),
            static_cast<std::int64_t>(fs::file_size(f)));
  EXPECT_EQ(Scalar("SELECT line_no FROM episodic_ingest_files"), 3000);
}

class NoLayersTest : public IngestTest {
 protected:
  bool WithLayers() const override { return false; }
};

TEST_F(NoLayersTest, DisabledLayersAreReportedAndSkipped) {
  auto r = Ingest(Copy(kClaude, root_ / "claude"));
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["suggested_memories"], 0);
  EXPECT_NE(r.text.find("affective layer disabled"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("semantic layer disabled"), std::string::npos) << r.text;
  EXPECT_EQ(Count("episodic_outbox"), 0);
  EXPECT_EQ(Count("episodic_log", "type = 'decision'"), 2);  // still logged here
}

TEST(LineReader, NeverSplitsALineBeingWritten) {
  const fs::path f = fs::temp_directory_path() / ("episodic-lr-" + std::to_string(::getpid()));
  std::ofstream(f, std::ios::binary | std::ios::trunc) << "{\"a\":1}\n{\"b\":";
  std::string line;
  LineReader r1(f, 0, 1024);
  ASSERT_EQ(r1.Next(line), LineReader::Status::kLine);
  EXPECT_EQ(line, "{\"a\":1}");
  EXPECT_EQ(r1.Next(line), LineReader::Status::kEnd);
  EXPECT_EQ(r1.Tail(), "{\"b\":");
  EXPECT_EQ(r1.Offset(), 8u);  // stops before the partial line
  Append(f, "2}\r\n{\"c\":3}\n");
  LineReader r2(f, r1.Offset(), 1024);
  ASSERT_EQ(r2.Next(line), LineReader::Status::kLine);
  EXPECT_EQ(line, "{\"b\":2}");
  ASSERT_EQ(r2.Next(line), LineReader::Status::kLine);
  EXPECT_EQ(line, "{\"c\":3}");
  EXPECT_EQ(r2.Next(line), LineReader::Status::kEnd);
  EXPECT_EQ(r2.Offset(), fs::file_size(f));
  fs::remove(f);
}

TEST(LineReader, SkipsOversizeLinesWithBoundedBuffer) {
  const fs::path f = fs::temp_directory_path() / ("episodic-lr2-" + std::to_string(::getpid()));
  std::ofstream(f, std::ios::binary | std::ios::trunc)
      << "short\n" << std::string(300'000, 'z') << "\nafter\n";
  LineReader r(f, 0, 1000);
  std::string line;
  ASSERT_EQ(r.Next(line), LineReader::Status::kLine);
  ASSERT_EQ(r.Next(line), LineReader::Status::kOversize);
  EXPECT_EQ(r.Offset(), 6u + 300'001u);
  ASSERT_EQ(r.Next(line), LineReader::Status::kLine);
  EXPECT_EQ(line, "after");
  fs::remove(f);
}

TEST_F(IngestTest, WatchPicksUpAppendedLinesWithoutSplittingThem) {
  const fs::path dir = root_ / "watched";
  fs::create_directories(dir);
  const fs::path f = dir / "11111111-aaaa-4bbb-8ccc-000000000001.jsonl";
  const auto all = ReadLines(kClaude);
  TestHost host(rt_);
  Settings settings;
  Ingester ingester(host, settings, caller_);
  std::map<std::string, std::uint64_t> sizes;
  // Writer is in the middle of line 16.
  std::string first;
  for (std::size_t i = 0; i < 15; ++i) first += all[i] + "\n";
  first += all[15].substr(0, all[15].size() / 2);
  std::ofstream(f, std::ios::binary) << first;
  auto reports = PollOnce(ingester, dir, sizes);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].lines, 15);
  EXPECT_EQ(reports[0].skipped_lines, 1);  // line 14 of the sample is malformed; the half line is not read
  EXPECT_TRUE(PollOnce(ingester, dir, sizes).empty());  // no growth, no work
  std::string rest = all[15].substr(all[15].size() / 2) + "\n";
  for (std::size_t i = 16; i < all.size(); ++i) rest += all[i] + "\n";
  Append(f, rest);
  reports = PollOnce(ingester, dir, sizes);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].skipped_lines, 0);  // line 16 arrived whole
  EXPECT_EQ(Count("episodic_log", "type = 'request'"), 4);
  EXPECT_EQ(Scalar("SELECT SUM(calls) FROM episodic_tool_stats"), 6);
  EXPECT_EQ(Captured::Suggest().size(), 2u);

  // The loop itself: bounded by max_polls, sleeping through the injected function.
  std::ostringstream out, err;
  WatchOptions w;
  w.dir = dir;
  w.max_polls = 3;
  int sleeps = 0;
  w.sleep = [&](std::chrono::milliseconds) { ++sleeps; };
  Append(f, R"({"type":"summary","summary":"x","leafUuid":"y"})" "\n");
  EXPECT_EQ(RunWatch(ingester, w, out, err), 0);
  EXPECT_EQ(sleeps, 2);
  EXPECT_NE(out.str().find("[claude-code]"), std::string::npos) << out.str();
  std::atomic<bool> stop{true};
  w.stop = &stop;
  w.max_polls = -1;
  EXPECT_EQ(RunWatch(ingester, w, out, err), 0);  // returns at once when stopped
  w.dir = dir / "nope";
  EXPECT_EQ(RunWatch(ingester, w, out, err), 1);
}

TEST_F(IngestTest, IngestCommandRunsFromTheCli) {
  const fs::path f = Copy(kCodex, rt_.dir / "anywhere");
  const sdk::CommandSpec* cmd = nullptr;
  for (const auto& c : rt_.runtime->Commands()) {
    if (c.name == "ingest") cmd = &c;
  }
  ASSERT_NE(cmd, nullptr);
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(cmd->run({f.string()}, in, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("1 session"), std::string::npos) << out.str();
  EXPECT_EQ(cmd->run({"--bogus"}, in, out, err), 2);
  EXPECT_EQ(cmd->run({(rt_.dir / "missing.jsonl").string()}, in, out, err), 1);
}

}  // namespace
}  // namespace kioku::episodic::testing

namespace kioku::episodic::testing {
namespace {

// One Claude Code line of session `sid` (uuid given), at second `t` of 2025-11-03T10:00.
std::string ClaudeLine(const std::string& sid, const std::string& uuid, int t, json message,
                       const char* type = "user", json extra = json::object()) {
  char ts[40];
  std::snprintf(ts, sizeof ts, "2025-11-03T10:%02d:%02d.000Z", t / 60, t % 60);
  json l = {{"parentUuid", nullptr}, {"isSidechain", false}, {"userType", "external"},
            {"cwd", "/home/dev/shop"}, {"sessionId", sid}, {"version", "2.0.31"},
            {"gitBranch", "main"}, {"type", type}, {"message", message}, {"uuid", uuid},
            {"timestamp", ts}};
  l.update(extra);
  return l.dump() + "\n";
}

// A prompt, one Bash call and its result: the unit a resumed file repeats.
std::string ClaudeTurn(const std::string& sid, const std::string& tag, int t,
                       const std::string& prompt, const std::string& uuid_prefix) {
  const std::string call = "toolu_" + tag;
  return ClaudeLine(sid, uuid_prefix + tag + "-1", t, {{"role", "user"}, {"content", prompt}}) +
         ClaudeLine(sid, uuid_prefix + tag + "-2", t + 1,
                    {{"model", "claude-sonnet-4-5"}, {"id", "msg_" + tag}, {"role", "assistant"},
                     {"content", json::array({{{"type", "tool_use"}, {"id", call}, {"name", "Bash"},
                                               {"input", {{"command", "make test"}}}}})}},
                    "assistant") +
         ClaudeLine(sid, uuid_prefix + tag + "-3", t + 2,
                    {{"role", "user"},
                     {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", call},
                                               {"content", "ok"}}})}});
}

TEST(Transcript, ImagePlaceholdersLeaveThePromptsWords) {
  EXPECT_EQ(transcript::StripImagePlaceholders("[Image #1] Two people got the same plot"), "Two people got the same plot");
  EXPECT_EQ(transcript::StripImagePlaceholders("before [Image #2] and [Image #12]after"), "before and after");
  EXPECT_EQ(transcript::StripImagePlaceholders("see [Image #] and [Image #3x] and [Image #4"),
            "see [Image #] and [Image #3x] and [Image #4");
}

// The title and the request a session is summarized by start with the human's words, not
// Claude Code's "[Image #1]"; a prompt that is only an image stays a prompt.
TEST_F(IngestTest, ImagePlaceholdersAreNotPartOfTitlesOrRequests) {
  const json image = {{"type", "image"}, {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", "iVBORw0KGgo="}}}};
  const std::string lines =
      ClaudeLine("sess-img", "i-1", 0,
                 {{"role", "user"},
                  {"content", json::array({image, {{"type", "text"}, {"text", "[Image #1] Two people got the same plot"}}})}}) +
      ClaudeLine("sess-img", "i-2", 10,
                 {{"role", "user"}, {"content", json::array({image, {{"type", "text"}, {"text", "[Image #2]"}}})}});
  fs::create_directories(root_ / "claude");
  std::ofstream(root_ / "claude" / "sess-img.jsonl", std::ios::binary) << lines;
  IngestOk(root_ / "claude" / "sess-img.jsonl");
  auto s = LoadSession(rt_.Db(), "sess-img");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->title, "Two people got the same plot");
  EXPECT_EQ(Count("episodic_log", "type = 'request' AND entry = 'Two people got the same plot'"), 1);
  EXPECT_EQ(Count("episodic_log", "type = 'request' AND entry = '[Image #2]'"), 1);
}

class ResumedSessionTest : public IngestTest {
 protected:
  // Session A, then a file that resumes it: A's lines carried over (same session id,
  // timestamps, and uuids unless `rewrite_uuids`), followed by session B's own lines.
  void Write(bool rewrite_uuids) {
    const std::string a = ClaudeTurn("sess-a", "a1", 0, "From now on use pnpm, not npm.", "u-");
    const std::string carried =
        ClaudeTurn("sess-a", "a1", 0, "From now on use pnpm, not npm.", rewrite_uuids ? "r-" : "u-");
    const std::string b =
        ClaudeTurn("sess-b", "b1", 30, "Always run the linter before committing.", "u-");
    fs::create_directories(root_ / "claude");
    std::ofstream(root_ / "claude" / "sess-a.jsonl", std::ios::binary) << a;
    std::ofstream(root_ / "claude" / "sess-b.jsonl", std::ios::binary) << carried << b;
  }
  void ExpectCountedOnce() {
    EXPECT_EQ(Count("episodic_sessions"), 2);  // the earlier session and its continuation
    EXPECT_EQ(Count("episodic_log", "type = 'decision' AND session_id = 'sess-a'"), 1);
    EXPECT_EQ(Count("episodic_log", "type = 'decision' AND session_id = 'sess-b'"), 1);
    EXPECT_EQ(Count("episodic_log", "type = 'request'"), 2);
    EXPECT_EQ(Scalar("SELECT SUM(calls) FROM episodic_tool_stats"), 2);
    EXPECT_EQ(Scalar("SELECT SUM(calls) FROM episodic_tool_stats WHERE session_id = 'sess-a'"), 1);
    std::size_t outcomes = 0;
    for (const auto& f : Captured::Feedback()) outcomes += f["records"].size();
    EXPECT_EQ(outcomes, 2u);
    EXPECT_EQ(Captured::Suggest().size(), 2u);
  }
};

TEST_F(ResumedSessionTest, EarlierFileFirstCountsCarriedLinesOnce) {
  Write(false);
  IngestOk(root_ / "claude" / "sess-a.jsonl");
  const json r = IngestOk(root_ / "claude" / "sess-b.jsonl");
  ExpectCountedOnce();
  EXPECT_EQ(r["files"][0]["duplicates"], 3);  // the carried-over prompt, call and result
}

TEST_F(ResumedSessionTest, ResumingFileFirstGivesTheSameRecord) {
  Write(false);
  IngestOk(root_ / "claude" / "sess-b.jsonl");
  IngestOk(root_ / "claude" / "sess-a.jsonl");
  ExpectCountedOnce();
}

TEST_F(ResumedSessionTest, RewrittenUuidsAreStillRecognizedAsCarriedOver) {
  Write(true);
  IngestOk(root_ / "claude" / "sess-a.jsonl");
  IngestOk(root_ / "claude" / "sess-b.jsonl");
  ExpectCountedOnce();
}

TEST_F(IngestTest, LaterValueForASubjectSupersedesAQueuedOne) {
  fs::create_directories(root_ / "claude");
  const fs::path p = root_ / "claude" / "sess-c.jsonl";
  std::ofstream(p, std::ios::binary)
      << ClaudeTurn("sess-c", "c1", 0, "We use npm in this repo.", "u-")
      << ClaudeTurn("sess-c", "c2", 10,
                    "We decided on npm last month, but scratch that: from now on use pnpm, not npm.",
                    "u-");
  IngestOk(p);
  ASSERT_EQ(Captured::Suggest().size(), 1u);
  EXPECT_EQ(Captured::Suggest()[0]["subject"], "package-manager");
  EXPECT_EQ(Captured::Suggest()[0]["value"], "pnpm");
  EXPECT_EQ(Captured::Suggest()[0]["text"], "from now on use pnpm, not npm.");
  EXPECT_EQ(Count("episodic_log", "type = 'decision'"), 2);  // both said, both logged
}

}  // namespace
}  // namespace kioku::episodic::testing
