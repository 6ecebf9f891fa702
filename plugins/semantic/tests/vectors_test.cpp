// Embeddings and vector recall against the fake OpenAI-compatible server: background
// embedding, restart resume, model mismatch refusal, degraded endpoint, invalid vectors,
// near-duplicate folding, HNSW persistence.
#include <chrono>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include "config.hpp"
#include "fake_openai_server.hpp"
#include "providers/openai_embedder.hpp"
#include "semantic_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku::semantic {
namespace {

using Json = nlohmann::json;
using kioku::testing::FakeOpenAiServer;
using kioku::testing::TestRuntime;
using Mode = FakeOpenAiServer::Mode;

class VectorsTest : public ::testing::Test {
 protected:
  FakeOpenAiServer server{32};
  std::unique_ptr<TestRuntime> rt = std::make_unique<TestRuntime>();
  Json settings = {{"vectors", {{"start_delay_ms", 3600000}, {"poll_ms", 10}, {"min_score", 0.1}}}};

  std::shared_ptr<sdk::Embedder> MakeEmbedder(const std::string& model = "fake-embed", std::string url = "") {
    host::EmbeddingConfig c;
    c.url = url.empty() ? server.Url() : url;
    c.model = model;
    c.timeout_ms = 1000;
    c.connect_timeout_ms = 500;
    c.max_retries = 0;
    c.backoff_ms = 0;
    c.breaker_failures = 2;
    c.breaker_cooldown_ms = 60000;
    return host::providers::MakeOpenAiEmbedder(c, rt->clock);
  }

  // (Re)starts the runtime on the same directory and database: a process restart.
  void Restart(std::shared_ptr<sdk::Embedder> embedder) {
    rt->runtime.reset();
    host::RuntimeOptions o;
    o.data_dir = rt->dir;
    o.clock = rt->clock;
    o.embedder = std::move(embedder);
    rt->runtime = std::make_unique<host::Runtime>(o);
    rt->Add<SemanticPlugin>("semantic", settings);
    rt->Start();
  }

  Json Ok(std::string_view tool, const Json& args) {
    const sdk::ToolResult r = rt->Call(tool, args);
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    return r.structured;
  }
  std::string Remember(const std::string& text, const std::string& kind = "fact") {
    return Ok("memory_remember", {{"text", text}, {"kind", kind}})["results"][0]["id"].get<std::string>();
  }
  sdk::ToolResult Recall(const std::string& query) { return rt->Call("memory_recall", {{"query", query}}); }

  int Count(const std::string& sql) {
    SQLite::Statement q(rt->Db(), sql);
    q.executeStep();
    return q.getColumn(0).getInt();
  }

  // Runs `kioku embed ARGS` in-process; returns {exit code, stdout + stderr}.
  std::pair<int, std::string> Embed(std::vector<std::string> args = {}) {
    for (const auto& c : rt->runtime->Commands()) {
      if (c.name != "embed") continue;
      std::istringstream in;
      std::ostringstream out, err;
      const int code = c.run(args, in, out, err);
      return {code, out.str() + err.str()};
    }
    ADD_FAILURE() << "no embed command";
    return {-1, ""};
  }
};

TEST_F(VectorsTest, BackgroundWorkerEmbedsNewMemoriesAndRecallBecomesHybrid) {
  settings["vectors"]["start_delay_ms"] = 0;
  Restart(MakeEmbedder());
  const std::string id = Remember("the frontend installs packages with pnpm workspaces");
  // The write returned before any embedding; the worker thread catches up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Count("SELECT count(*) FROM semantic_vectors") < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(Count("SELECT count(*) FROM semantic_vectors WHERE model = 'fake-embed' AND dim = 32"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue"), 0);
  const sdk::ToolResult r = Recall("pnpm workspaces");
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "hybrid");
  ASSERT_EQ(r.structured["memories"].size(), 1u);
  EXPECT_EQ(r.structured["memories"][0]["id"], id);
  EXPECT_TRUE(r.structured["memories"][0]["ranks"].contains("vector"));
}

TEST_F(VectorsTest, WithoutAnEmbedderRecallSaysNothingAboutVectors) {
  Restart(nullptr);
  Remember("we deploy with make release");
  const sdk::ToolResult r = Recall("deploy");
  EXPECT_FALSE(r.structured.contains("vectors"));
  EXPECT_EQ(r.structured["memories"].size(), 1u);
  // Nothing is queued while no embedder has started on the database; the first one to
  // start queues what was written before it (sdk::VectorStore::StartQueueing).
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue"), 0);
  EXPECT_NE(Embed().second.find("no embedding provider configured"), std::string::npos);
  Restart(MakeEmbedder());
  EXPECT_EQ(Count("SELECT (SELECT count(*) FROM semantic_embed_queue) + (SELECT count(*) FROM semantic_vectors)"), 1);
}

TEST_F(VectorsTest, QueueSurvivesARestartAndEmbedBackfills) {
  server.SetMode(Mode::kHttp500);
  Restart(MakeEmbedder());
  Remember("alpha service runs on port 8080");
  Remember("beta service runs on port 9090");
  const auto [code, text] = Embed();
  EXPECT_EQ(code, 1);
  EXPECT_NE(text.find("HTTP 500"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue WHERE attempts = 1"), 2);

  server.SetMode(Mode::kOk);
  Restart(MakeEmbedder());
  rt->clock->Advance(60'000);  // past the rows' backoff
  const auto [code2, text2] = Embed();
  EXPECT_EQ(code2, 0) << text2;
  EXPECT_NE(text2.find("embedded 2"), std::string::npos) << text2;
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_vectors"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue"), 0);
  // An edit of the text queues the memory again.
  const std::string id = Ok("memory_recall", {{"query", "alpha"}})["memories"][0]["id"];
  Ok("memory_edit", {{"id", id}, {"text", "alpha service runs on port 8081"}});
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue"), 1);
}

TEST_F(VectorsTest, EndpointDownLeavesWritesAndTextRecallWorkingAndSaysDegraded) {
  Restart(MakeEmbedder());
  Remember("the staging database is postgres 15");
  ASSERT_EQ(Embed().first, 0);
  server.SetMode(Mode::kHttp500);
  const std::string id = Remember("the production database is postgres 16");
  const sdk::ToolResult r = Recall("production database");
  // After the failure, writes still succeed and say vectors are degraded.
  const sdk::ToolResult w = rt->Call("memory_remember", {{"text", "the test database is sqlite"}, {"kind", "fact"}});
  ASSERT_FALSE(w.is_error) << w.text;
  EXPECT_EQ(w.structured["vectors"], "degraded");
  EXPECT_NE(w.text.find("embedding deferred"), std::string::npos) << w.text;
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "degraded");
  EXPECT_NE(r.text.find("degraded (text search only)"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["memories"][0]["id"], id);
  // Repeated failures open the circuit: later recalls do not even try the endpoint.
  Recall("production database");
  const int requests = server.Requests();
  const sdk::ToolResult again = Recall("production database");
  EXPECT_EQ(server.Requests(), requests);
  EXPECT_NE(again.text.find("circuit open"), std::string::npos) << again.text;
  // `kioku embed --status` says what recall does now, not what the index could do.
  const auto [code, status] = Embed({"--status"});
  EXPECT_NE(status.find("recall: degraded (text search only while the endpoint's circuit is open"), std::string::npos)
      << status;
}

TEST_F(VectorsTest, AnotherModelsVectorsAreNeverComparedUntilReEmbedded) {
  Restart(MakeEmbedder("model-a"));
  Remember("lint with clang-tidy before commit");
  ASSERT_EQ(Embed().first, 0);
  Restart(MakeEmbedder("model-b"));
  const sdk::ToolResult r = Recall("clang-tidy");
  EXPECT_EQ(r.structured["vectors"], "text-only");
  EXPECT_NE(r.text.find("stored vectors are from model model-a"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("kioku embed --all"), std::string::npos);
  EXPECT_EQ(r.structured["memories"].size(), 1u);  // text recall unaffected
  const auto [code, text] = Embed({"--all"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_vectors WHERE model = 'model-b'"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_vector_store WHERE model = 'model-b' AND dim = 32"), 1);
  EXPECT_EQ(Recall("clang-tidy").structured["vectors"], "hybrid");
}

TEST_F(VectorsTest, ZeroNormAndWrongLengthVectorsAreNeverStored) {
  Restart(MakeEmbedder());
  Remember("first memory to fix the dimension");
  ASSERT_EQ(Embed().first, 0);
  server.SetMode(Mode::kZero);
  Remember("a memory the endpoint answers with zeros");
  auto [code, text] = Embed();
  EXPECT_EQ(code, 1);
  EXPECT_NE(text.find("refused 1 invalid"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_vectors"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue WHERE last_error LIKE '%zero norm%'"), 1);
  // A new embedder learning another dimension cannot mix lengths into the store.
  server.SetMode(Mode::kOk);
  server.SetDim(48);
  Restart(MakeEmbedder());
  rt->clock->Advance(60'000);
  std::tie(code, text) = Embed();
  EXPECT_EQ(code, 1);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_vectors WHERE dim <> 32"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue WHERE last_error LIKE '%has 48 values, expected 32%'"), 1);
  EXPECT_EQ(Recall("memory").structured["vectors"], "text-only");
}

TEST_F(VectorsTest, NearIdenticalNewMemoryReaffirmsTheOlderOne) {
  settings["vectors"]["dedup_threshold"] = 0.85;  // the fake vectors of these two: cosine 0.894
  Restart(MakeEmbedder());
  const std::string older = Remember("deploy the api with make release on friday");
  ASSERT_EQ(Embed().first, 0);
  const std::string newer = Remember("deploy the api with make release on friday please");
  const auto [code, text] = Embed();
  EXPECT_EQ(code, 0);
  EXPECT_NE(text.find("folded 1 near-duplicates"), std::string::npos) << text;
  const Json got = Ok("memory_get", {{"id", newer}});
  EXPECT_NE(got.dump().find("superseded"), std::string::npos) << got.dump();
  EXPECT_EQ(Count("SELECT reaffirm_count FROM semantic_memories WHERE seq IN (SELECT seq FROM semantic_memory_ids WHERE id = '" + older + "')"), 1);
  // A different memory is left alone.
  Remember("the api is written in go");
  Embed();
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_memories WHERE status = 'superseded'"), 1);
}

TEST_F(VectorsTest, HnswGraphIsPersistedAndLoadedAfterRestart) {
  settings["vectors"]["exact_below"] = 8;
  Restart(MakeEmbedder());
  for (int i = 0; i < 20; ++i) Remember("service number " + std::to_string(i) + " listens on port " + std::to_string(9000 + i));
  ASSERT_EQ(Embed().first, 0);
  EXPECT_EQ(Recall("service number 7").structured["vectors"], "hybrid");
  const auto graph = rt->dir / "semantic-vectors-fake-embed-32.hnsw";
  EXPECT_TRUE(std::filesystem::exists(graph));
  Restart(MakeEmbedder());
  const auto [code, status] = Embed({"--status"});
  EXPECT_NE(status.find("recall: hybrid (20 vectors, HNSW search)"), std::string::npos) << status;
  const sdk::ToolResult r = Recall("service number 7 port 9007");
  EXPECT_EQ(r.structured["vectors"], "hybrid");
  EXPECT_EQ(r.structured["memories"][0]["ranks"]["vector"], 1);
}

TEST_F(VectorsTest, CalibrationSuggestsAFloorFromTheStore) {
  Restart(MakeEmbedder());
  for (int i = 0; i < 15; ++i) {
    Remember("topic" + std::to_string(i) + " alpha" + std::to_string(i) + " beta" + std::to_string(i) + " gamma" +
             std::to_string(i));
  }
  ASSERT_EQ(Embed().first, 0);
  const auto [code, text] = Embed({"--calibrate"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("suggested semantic.vectors.min_score: "), std::string::npos) << text;
  EXPECT_NE(text.find("on-topic  (15)"), std::string::npos) << text;
}

}  // namespace
}  // namespace kioku::semantic

namespace kioku::semantic {
namespace {

// A database made by kioku 0.1.0 migrates: its memories are queued and then embedded.
TEST_F(VectorsTest, ReleaseDatabaseMigratesAndQueuesItsMemories) {
  std::filesystem::copy_file(KIOKU_SEMANTIC_EVAL_DIR "/../../../tests/fixtures/db/release-0.1.0.db",
                             rt->dir / "kioku.db", std::filesystem::copy_options::overwrite_existing);
  Restart(MakeEmbedder());
  const int memories = Count("SELECT count(*) FROM semantic_memories");
  ASSERT_GT(memories, 0);
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_embed_queue"), memories);
  const auto [code, text] = Embed();
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM semantic_vectors"), memories);
}

}  // namespace
}  // namespace kioku::semantic
