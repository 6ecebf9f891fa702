// Model-written highlights of consolidated summaries (highlights.hpp) against a fake chat
// model that counts its calls: a checked abstract replaces the extractive highlights only;
// every fault or rejected answer keeps them and says why; the hook never calls the model;
// `kioku summaries refine` refines what the hook folded, once.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "compaction.hpp"
#include "facets.hpp"
#include "highlights.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "store.hpp"
#include "test_util.hpp"

namespace kioku::episodic::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class FakeChat : public sdk::ChatModel {
 public:
  std::string Model() const override { return "fake-model"; }
  sdk::ChatResult Complete(const sdk::ChatRequest& request) override {
    ++calls;
    last = request;
    if (during) during();
    return reply;
  }
  sdk::EmbedderHealth Health() const override { return {}; }
  std::string Endpoint() const override { return "http://fake"; }

  void Answer(const std::string& abstract) {
    reply = {};
    const json j = {{"abstract", abstract}};
    reply.text = j.dump();
    reply.json = j;
  }
  void Fail(sdk::ChatError kind, const std::string& error) {
    reply = {};
    reply.kind = kind;
    reply.error = error;
  }

  std::atomic<int> calls{0};
  sdk::ChatRequest last;
  sdk::ChatResult reply;
  std::function<void()> during;  ///< Runs while "the model answers" (no transaction open).
};

const char* const kA =
    "Investigated slow GET /plots in apps/api/src/routes/plots.ts. We decided to use cursor "
    "pagination. TODO: update the mobile client. The old response shape still works.";
const char* const kB =
    "Decision: keep Postgres for tests. Still need to wire the CI job in .github/workflows/ci.yml. "
    "Shellcheck passes now.";
const char* const kC = "Refactored the booking module. Next step: measure latency.";

class HighlightsTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(json{{"compaction", {{"session_token_budget", 500}, {"model_highlights", true}}}}); }

  void Start(const json& settings, bool with_chat = true) {
    rt_.runtime.reset();
    host::RuntimeOptions o;
    o.data_dir = rt_.dir;
    o.clock = rt_.clock;
    if (with_chat) o.chat = chat_;
    rt_.runtime = std::make_unique<host::Runtime>(o);
    rt_.Add<EpisodicPlugin>("episodic", settings);
    rt_.Start();
    SetNow("2026-03-02T10:00:00Z");
  }
  void SetNow(const char* t) { rt_.clock->Set(Ms(t)); }

  sdk::ToolResult Add(const std::string& session, const char* text, int tokens) {
    rt_.clock->Advance(60'000);
    auto r = rt_.Call("session_summary_add", {{"session_id", session}, {"summary", text}, {"token_count", tokens}});
    EXPECT_FALSE(r.is_error) << r.text;
    return r;
  }
  // Three summaries of 200 tokens over a 500-token budget: the third folds the first two.
  sdk::ToolResult Compact(const std::string& session = "s-1") {
    EXPECT_FALSE(rt_.Call("session_start", {{"session_id", session}}).is_error);
    Add(session, kA, 200);
    Add(session, kB, 200);
    return Add(session, kC, 200);
  }
  Summary Consolidated() {
    SQLite::Statement q(rt_.Db(), "SELECT id FROM episodic_summaries WHERE kind = 'consolidated' AND status = 'active'");
    EXPECT_TRUE(q.executeStep());
    return *LoadSummary(rt_.Db(), q.getColumn(0).getString());
  }
  // The consolidated text as compaction wrote it, read when the model is asked.
  void RememberExtractive() {
    chat_->during = [this] { extractive_ = Consolidated().text; };
  }
  std::int64_t Count(const std::string& where) {
    SQLite::Statement q(rt_.Db(), "SELECT COUNT(*) FROM episodic_summaries WHERE " + where);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  static std::string Head(const std::string& text) { return text.substr(0, text.find("\nHighlights:\n")); }
  int RunCommand(const std::string& name, const std::vector<std::string>& args, std::string* out,
                 const std::string& in = "") {
    for (const auto& c : rt_.runtime->Commands()) {
      if (c.name != name) continue;
      std::istringstream input(in);
      std::ostringstream o, e;
      const int rc = c.run(args, input, o, e);
      *out = o.str() + e.str();
      return rc;
    }
    ADD_FAILURE() << "no command " << name;
    return -1;
  }

  std::shared_ptr<FakeChat> chat_ = std::make_shared<FakeChat>();
  kioku::testing::TestRuntime rt_;
  std::string extractive_;
};

TEST_F(HighlightsTest, ModelAbstractReplacesOnlyTheExtractiveHighlights) {
  // "decided" makes prose a decision; as a highlight bullet it stays a highlight.
  chat_->Answer("The slow plots endpoint in apps/api/src/routes/plots.ts was profiled and reworked.  "
                "Everyone decided the CI setup was tidy.");
  RememberExtractive();
  const sdk::ToolResult r = Compact();
  EXPECT_EQ(chat_->calls, 1);
  EXPECT_NE(r.text.find("; highlights by fake-model"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["compaction"]["highlights_by"], "fake-model");

  // The model read the folded summaries and was asked for the JSON shape.
  EXPECT_EQ(chat_->last.schema_name, "abstract");
  EXPECT_NE(chat_->last.messages.at(1).content.find("cursor pagination"), std::string::npos);
  EXPECT_NE(chat_->last.messages.at(1).content.find("Shellcheck passes now"), std::string::npos);

  const Summary c = Consolidated();
  EXPECT_EQ(c.highlights_model, "fake-model");
  ASSERT_NE(extractive_.find("\nHighlights:\n"), std::string::npos) << extractive_;
  EXPECT_EQ(Head(c.text), Head(extractive_));  // decisions, open items, files: byte for byte
  EXPECT_EQ(c.text.substr(c.text.find("\nHighlights:\n") + 13),
            "- The slow plots endpoint in apps/api/src/routes/plots.ts was profiled and reworked.\n"
            "- Everyone decided the CI setup was tidy.");
  // Read back (a later fold, session_timeline) the facets are the deterministic ones.
  const Facets now = ExtractFacets(c.text), before = ExtractFacets(extractive_);
  EXPECT_EQ(now.decisions, before.decisions);
  EXPECT_EQ(now.open_items, before.open_items);
  EXPECT_EQ(now.files, before.files);
  EXPECT_EQ(c.token_count, static_cast<std::int64_t>(sdk::EstimateTokens(c.text)));

  const sdk::ToolResult recall = rt_.Call("session_recall", {{"session_id", "s-1"}});
  EXPECT_NE(recall.text.find("(consolidated; highlights by fake-model)"), std::string::npos) << recall.text;
  bool labelled = false;
  for (const auto& it : recall.structured["summaries"]) labelled |= it.value("highlights_by", "") == "fake-model";
  EXPECT_TRUE(labelled);
}

TEST_F(HighlightsTest, EndpointFailureKeepsExtractiveAndSaysSo) {
  chat_->Fail(sdk::ChatError::kUnavailable, "chat endpoint http://fake: HTTP 500 (after 2 attempts)");
  RememberExtractive();
  const sdk::ToolResult r = Compact();
  EXPECT_FALSE(r.is_error);
  EXPECT_NE(r.text.find("\ncompaction kept extractive highlights: model unavailable: chat endpoint http://fake: "
                        "HTTP 500"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.structured["compaction"]["folded"], 2);
  const Summary c = Consolidated();
  EXPECT_EQ(c.text, extractive_);
  EXPECT_EQ(c.highlights_model, "");
}

TEST_F(HighlightsTest, InvalidAnswerKeepsExtractive) {
  chat_->Fail(sdk::ChatError::kInvalidAnswer, "answer is not JSON");
  const sdk::ToolResult r = Compact();
  EXPECT_NE(r.text.find("kept extractive highlights: invalid answer: answer is not JSON"), std::string::npos) << r.text;
  EXPECT_EQ(Consolidated().highlights_model, "");
}

TEST_F(HighlightsTest, InventedFilePathIsRejected) {
  chat_->Answer("The plots route moved to apps/api/src/routes/paging.ts.");
  RememberExtractive();
  const sdk::ToolResult r = Compact();
  EXPECT_NE(r.text.find("rejected: it names `apps/api/src/routes/paging.ts`, which no folded summary mentions"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(Consolidated().text, extractive_);
}

TEST_F(HighlightsTest, SecretIsRejected) {
  chat_->Answer("CI now logs in with ghp_1234567890abcdefghijABCDEFGHIJ123456 for the workflow.");
  RememberExtractive();
  const sdk::ToolResult r = Compact();
  EXPECT_NE(r.text.find("rejected: the abstract contains what looks like a secret (github-token)"), std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("ghp_"), std::string::npos);
  EXPECT_EQ(Consolidated().text, extractive_);
}

TEST_F(HighlightsTest, OverBudgetIsRejectedNotCut) {
  Start({{"compaction", {{"session_token_budget", 500}, {"highlight_tokens", 20}, {"model_highlights", true}}}});
  chat_->Answer("The plots endpoint was profiled at length, and the team reworked paging across the API and the "
                "mobile client before tidying up the CI setup.");  // 137 bytes = 35 tokens
  RememberExtractive();
  const sdk::ToolResult r = Compact();
  EXPECT_NE(r.text.find("rejected: the abstract has 35 tokens, over highlight_tokens (20)"), std::string::npos)
      << r.text;
  EXPECT_EQ(Consolidated().text, extractive_);
}

TEST_F(HighlightsTest, SummaryChangedWhileTheModelAnsweredIsNotOverwritten) {
  chat_->Answer("The plots endpoint was profiled and reworked.");
  chat_->during = [this] {
    const Summary c = Consolidated();
    SQLite::Statement q(rt_.Db(), "UPDATE episodic_summaries SET summary = summary || ' (edited)' WHERE id = ?");
    sdk::Bind(q, c.id);
    q.exec();
    extractive_ = c.text + " (edited)";
  };
  const sdk::ToolResult r = Compact();
  EXPECT_NE(r.text.find("kept extractive highlights: the summary changed while the model answered"),
            std::string::npos)
      << r.text;
  const Summary c = Consolidated();
  EXPECT_EQ(c.text, extractive_);
  EXPECT_EQ(c.highlights_model, "");
}

TEST_F(HighlightsTest, SettingOffOrNoChatModelNeverCallsTheModel) {
  Start({{"compaction", {{"session_token_budget", 500}}}});
  sdk::ToolResult r = Compact("off");
  EXPECT_EQ(chat_->calls, 0);
  EXPECT_EQ(r.text.find("highlights"), std::string::npos) << r.text;
  EXPECT_FALSE(r.structured["compaction"].contains("extractive_because"));

  Start({{"compaction", {{"session_token_budget", 500}, {"model_highlights", true}}}}, /*with_chat=*/false);
  r = Compact("no-chat");
  EXPECT_NE(r.text.find("\ncompaction kept extractive highlights: no chat model (providers.chat)"), std::string::npos)
      << r.text;
}

TEST_F(HighlightsTest, HookNeverCallsTheModelAndRefineCommandRefinesOnce) {
  chat_->Answer("The cart work went through checkout and its tests.");
  // Two summaries under the budget (no compaction, no model call); the transcript summary the
  // hook adds pushes the session over it.
  const std::string sid = "11111111-aaaa-4bbb-8ccc-000000000001";
  ASSERT_FALSE(rt_.Call("session_start", {{"session_id", sid}}).is_error);
  Add(sid, kA, 245);
  Add(sid, kB, 245);
  EXPECT_EQ(Count("kind = 'consolidated'"), 0);

  const fs::path transcript = rt_.dir / "t.jsonl";
  fs::copy_file(fs::path(EPISODIC_TEST_DATA) / "claude-code" / (sid + ".jsonl"), transcript);
  const json envelope = {{"session_id", sid},
                         {"transcript_path", transcript.string()},
                         {"cwd", rt_.dir.string()},
                         {"hook_event_name", "Stop"}};
  std::string out;
  EXPECT_EQ(RunCommand("hook capture", {}, &out, envelope.dump()), 0);
  EXPECT_EQ(out, "");
  ASSERT_EQ(Count("kind = 'consolidated' AND status = 'active'"), 1);
  EXPECT_EQ(chat_->calls, 0);  // the hook compacted without the model
  const std::string extractive = Consolidated().text;

  EXPECT_EQ(RunCommand("summaries refine", {"--limit", "5"}, &out), 0);
  EXPECT_EQ(chat_->calls, 1);
  EXPECT_NE(out.find(": highlights by fake-model\nrefined 1 of 1 consolidated summaries\n"), std::string::npos) << out;
  const Summary c = Consolidated();
  EXPECT_EQ(c.highlights_model, "fake-model");
  EXPECT_EQ(Head(c.text), Head(extractive));

  // Idempotent: a refined summary is not sent again.
  EXPECT_EQ(RunCommand("summaries refine", {}, &out), 0);
  EXPECT_EQ(chat_->calls, 1);
  EXPECT_EQ(out, "refined 0 of 0 consolidated summaries\n");
  EXPECT_EQ(Consolidated().text, c.text);

  EXPECT_EQ(RunCommand("summaries refine", {"--limit", "0"}, &out), 2);
}

TEST_F(HighlightsTest, RefineCommandNeedsAChatModel) {
  Start({{"compaction", {{"session_token_budget", 500}}}}, /*with_chat=*/false);
  std::string out;
  EXPECT_EQ(RunCommand("summaries refine", {}, &out), 1);
  EXPECT_NE(out.find("no chat model"), std::string::npos) << out;
}

TEST(CheckAbstract, ProseIsAcceptedInventedIdentifiersAreNot) {
  std::vector<Summary> folded(2);
  folded[0].text = kA;
  folded[1].text = "Renamed parse_config() to LoadConfig in src/config.cpp; getUserById stays.";
  for (const char* ok : {"Paging was reworked, e.g. for the mobile client, and/or the web app.",
                         "JavaScript and PostgreSQL versions 3.14 and v2.1 were read-only checks.",
                         "The `LoadConfig` rename in src/config.cpp kept getUserById (see above).",
                         "parse_config() was renamed."}) {
    EXPECT_EQ(CheckAbstract(ok, folded, 100), "") << ok;
  }
  for (const char* bad : {"It now calls fetch_plots.", "loadPlots was added.", "Plots::Fetch moved.",
                          "It uses render() now.", "Moved to apps/web/src.", "See `Paginator` for details.",
                          "The loader.cache module is new.", "Edited docs/paging.md."}) {
    EXPECT_NE(CheckAbstract(bad, folded, 100), "") << bad;
  }
  EXPECT_EQ(CheckAbstract("", folded, 100), "the abstract is empty");
  // As highlight bullets only labels make a decision or open item of a sentence.
  EXPECT_EQ(CheckAbstract("We decided nothing new; a follow-up is pending.", folded, 100), "");
  EXPECT_EQ(HighlightBullets("One thing. Another one"), "- One thing.\n- Another one");
  EXPECT_EQ(CheckAbstract("Paging was reworked. Decision: drop the cache.", folded, 100),
            "`drop the cache.` would read as a decision");
  EXPECT_EQ(CheckAbstract("TODO: ship it.", folded, 100), "`ship it.` would read as an open item");
}

}  // namespace
}  // namespace kioku::episodic::testing
