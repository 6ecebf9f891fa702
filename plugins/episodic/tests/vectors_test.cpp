// Summary embeddings against the fake OpenAI-compatible server: background embedding,
// restart resume, model mismatch, endpoint down, a query sharing no word with a summary,
// export without vectors, and the migration of a kioku 0.1.0 database.
#include <chrono>
#include <thread>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "documented_settings.hpp"
#include "episodic_plugin.hpp"
#include "exporter.hpp"
#include "schema.hpp"
#include "kioku/sdk/db.hpp"
#include "test_runtime.hpp"
#include "vector_test_support.hpp"

namespace kioku::episodic {
namespace {

using Json = nlohmann::json;
using kioku::testing::FakeOpenAiServer;
using kioku::testing::LayerVectorsTest;
using kioku::testing::TestRuntime;
using Mode = FakeOpenAiServer::Mode;

class SummaryVectorsTest : public LayerVectorsTest<EpisodicPlugin> {
 protected:
  SummaryVectorsTest() : LayerVectorsTest("episodic") {}

  sdk::ToolResult Summary(const std::string& session, const std::string& text) {
    rt->Call("session_start", {{"session_id", session}});
    return rt->Call("session_summary_add", {{"session_id", session}, {"summary", text}});
  }
  sdk::ToolResult Recall(const std::string& query) { return rt->Call("session_recall", {{"query", query}}); }
};

TEST_F(SummaryVectorsTest, BackgroundWorkerEmbedsANewSummary) {
  settings["vectors"]["start_delay_ms"] = 0;
  Restart(MakeEmbedder());
  ASSERT_FALSE(Summary("s1", "moved the build to ninja and ccache").is_error);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Count("SELECT count(*) FROM episodic_vectors") < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(Count("SELECT count(*) FROM episodic_vectors WHERE model = 'fake-embed' AND dim = 32"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), 0);
  const sdk::ToolResult r = Recall("ninja build");
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "hybrid");
  ASSERT_EQ(r.structured["summaries"].size(), 1u);
  EXPECT_EQ(r.structured["summaries"][0]["session_id"], "s1");
}

TEST_F(SummaryVectorsTest, WithoutAnEmbedderRecallSaysNothingAboutVectors) {
  Restart(nullptr);
  Summary("s1", "fixed the login race");
  const sdk::ToolResult r = Recall("login");
  EXPECT_FALSE(r.structured.contains("vectors")) << r.structured.dump();
  EXPECT_EQ(r.structured["summaries"].size(), 1u);
  // Nothing is queued while no embedder has started on the database; the first one to
  // start queues what was written before it (sdk::VectorStore::StartQueueing).
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), 0);
  Restart(MakeEmbedder());
  EXPECT_EQ(Count("SELECT (SELECT count(*) FROM episodic_embed_queue) + (SELECT count(*) FROM episodic_vectors)"), 1);
}

TEST_F(SummaryVectorsTest, QueueSurvivesARestartAndEmbedBackfills) {
  server.SetMode(Mode::kHttp500);
  Restart(MakeEmbedder());
  Summary("s1", "alpha service moved to port 8080");
  Summary("s2", "beta service moved to port 9090");
  const auto [code, text] = Embed();
  EXPECT_EQ(code, 1);
  EXPECT_NE(text.find("HTTP 500"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue WHERE attempts = 1"), 2);
  server.SetMode(Mode::kOk);
  Restart(MakeEmbedder());
  rt->clock->Advance(60'000);  // past the rows' backoff
  const auto [code2, text2] = Embed();
  EXPECT_EQ(code2, 0) << text2;
  EXPECT_NE(text2.find("summaries: embedded 2"), std::string::npos) << text2;
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_vectors"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), 0);
  // A change of a summary's text queues it again; deleting it drops its vector.
  rt->Db().exec("UPDATE episodic_summaries SET summary = 'alpha service moved to port 8081' WHERE session_id = 's1'");
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), 1);
  rt->Db().exec("DELETE FROM episodic_summaries WHERE session_id = 's1'");
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_vectors"), 1);
}

TEST_F(SummaryVectorsTest, AnotherModelsVectorsAreNeverComparedUntilReEmbedded) {
  Restart(MakeEmbedder("model-a"));
  Summary("s1", "linted everything with clang-tidy");
  ASSERT_EQ(Embed().first, 0);
  Restart(MakeEmbedder("model-b"));
  const sdk::ToolResult r = Recall("clang-tidy");
  EXPECT_EQ(r.structured["vectors"], "text-only");
  EXPECT_NE(r.text.find("stored vectors are from model model-a"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["summaries"].size(), 1u);  // text recall unaffected
  const auto [code, text] = Embed({"--all"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_vectors WHERE model = 'model-b'"), 1);
  EXPECT_EQ(Recall("clang-tidy").structured["vectors"], "hybrid");
}

TEST_F(SummaryVectorsTest, EndpointDownLeavesWritesAndTextRecallWorking) {
  Restart(MakeEmbedder());
  Summary("s1", "reset the staging database");
  ASSERT_EQ(Embed().first, 0);
  server.SetMode(Mode::kHttp500);
  const sdk::ToolResult r = Recall("staging database");
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "degraded");
  EXPECT_NE(r.text.find("degraded (text search only)"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["summaries"].size(), 1u);
  EXPECT_FALSE(Summary("s2", "paged the on-call about production").is_error);
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), 1);
}

TEST_F(SummaryVectorsTest, AQuerySharingNoWordFindsTheSummaryThroughVectors) {
  Restart(MakeEmbedder());
  const std::string text = "tagged the release and published the notes";
  Summary("s-release", text);
  Summary("s-coffee", "refilled beans and descaled the machine");
  ASSERT_EQ(Embed().first, 0);
  const auto [best, best_score] = kioku::testing::NearestMadeUpWord(text, kDim);
  ASSERT_GT(best_score, 0.2f);
  const sdk::ToolResult r = Recall(best);
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "hybrid");
  ASSERT_GE(r.structured["summaries"].size(), 1u) << r.text;
  EXPECT_EQ(r.structured["summaries"][0]["session_id"], "s-release");
  Restart(nullptr);
  EXPECT_EQ(Recall(best).structured["summaries"].size(), 0u);
}

// episodic.vectors.min_score: a vector hit under it leaves session_recall's vector list
// (the query shares no word, so nothing finds the summary); a keyword hit is unaffected.
TEST_F(SummaryVectorsTest, TheFloorDropsAWeakVectorHitAndKeepsKeywordHits) {
  const std::string text = "tagged the release and published the notes";
  const auto [best, best_score] = kioku::testing::NearestMadeUpWord(text, kDim);
  ASSERT_GT(best_score, 0.2f);
  ASSERT_LT(best_score, 0.9f);

  settings["vectors"]["min_score"] = best_score + 0.05;  // just above the hit
  Restart(MakeEmbedder());
  Summary("s-release", text);
  Summary("s-coffee", "refilled beans and descaled the machine");
  ASSERT_EQ(Embed().first, 0);
  const sdk::ToolResult dropped = Recall(best);
  ASSERT_FALSE(dropped.is_error) << dropped.text;
  EXPECT_EQ(dropped.structured["vectors"], "hybrid");
  EXPECT_EQ(dropped.structured["summaries"].size(), 0u) << dropped.text;

  settings["vectors"]["min_score"] = 1.0;  // no vector hit passes
  Restart(MakeEmbedder());
  EXPECT_EQ(Recall(best).structured["summaries"].size(), 0u);
  const sdk::ToolResult keyword = Recall("descaled");
  ASSERT_EQ(keyword.structured["summaries"].size(), 1u) << keyword.text;
  EXPECT_EQ(keyword.structured["summaries"][0]["session_id"], "s-coffee");

  settings["vectors"]["min_score"] = best_score - 0.05;  // just below: the same query finds it
  Restart(MakeEmbedder());
  const sdk::ToolResult kept = Recall(best);
  ASSERT_EQ(kept.structured["summaries"].size(), 1u) << kept.text;
  EXPECT_EQ(kept.structured["summaries"][0]["session_id"], "s-release");
}

TEST_F(SummaryVectorsTest, CalibrateReportsThisLayersFloor) {
  Restart(MakeEmbedder());
  Summary("s0", "only one summary so far");
  ASSERT_EQ(Embed().first, 0);
  auto [code, text] = Embed({"--calibrate"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(text, "summaries: embed --calibrate: needs at least 10 embedded summaries, found 1\n");
  for (int i = 1; i < 11; ++i) {
    const std::string n = std::to_string(i);
    Summary("s" + n, "fixed f" + n + " in module m" + n + " then ran tests t" + n);
  }
  ASSERT_EQ(Embed().first, 0);
  std::tie(code, text) = Embed({"--calibrate"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("summaries: on-topic  (11): p10 "), std::string::npos) << text;
  EXPECT_NE(text.find("summaries: suggested episodic.vectors.min_score: "), std::string::npos) << text;
}

TEST_F(SummaryVectorsTest, ExportLeavesVectorsOutAndImportQueuesTheSummaries) {
  Restart(MakeEmbedder());
  Summary("s1", "moved the build to ninja");
  ASSERT_EQ(Embed().first, 0);
  const sdk::ExporterSpec exporter = EpisodicExporter();
  EXPECT_EQ(exporter.doctor_counts(rt->Db()), Json({{"embedded", 1}, {"embed_queued", 0}, {"embed_failing", 0}}));
  const Json body = exporter.export_section(rt->Db());
  ASSERT_TRUE(body["tables"].contains("episodic_summaries"));
  for (const char* t : {"episodic_vectors", "episodic_vector_store", "episodic_embed_queue", "episodic_embed_on"}) {
    EXPECT_FALSE(body["tables"].contains(t)) << t;
  }
  TestRuntime other;
  other.Add<EpisodicPlugin>("episodic");
  other.Start();
  sdk::WithWriteTransaction(other.Db(), [&] { sdk::ImportLayerTables(other.Db(), "episodic", body); });
  const sdk::VectorStore store(SummaryVectorTables());
  EXPECT_EQ(store.CountQueue(other.Db()).queued, 0);  // no embedder has started there yet
  EXPECT_EQ(store.StartQueueing(other.Db(), "fake-embed", 1), 1);
  EXPECT_EQ(store.CountQueue(other.Db()).queued, 1);
}

// A database made by kioku 0.1.0 migrates: its active summaries are queued and embedded.
TEST_F(SummaryVectorsTest, ReleaseDatabaseMigratesAndQueuesItsSummaries) {
  std::filesystem::copy_file(KIOKU_RELEASE_DB, rt->dir / "kioku.db", std::filesystem::copy_options::overwrite_existing);
  Restart(MakeEmbedder());
  const int active = Count("SELECT count(*) FROM episodic_summaries WHERE status = 'active'");
  ASSERT_GT(active, 0);
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_embed_queue"), active);
  const auto [code, text] = Embed();
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM episodic_vectors"), active);
}

TEST(EpisodicVectorSettings, KiokuYamlDocumentsTheSchemaDefaults) {
  EXPECT_THAT(kioku::testing::DocumentedSettingsProblems("episodic", EpisodicPlugin::SettingsSchema()),
              ::testing::IsEmpty());
}

}  // namespace
}  // namespace kioku::episodic
