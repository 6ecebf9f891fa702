// Procedure embeddings against the fake OpenAI-compatible server: background embedding,
// restart resume, model mismatch, endpoint down, a query sharing no word with the
// procedure, export without vectors, and the migration over existing procedures.
#include <chrono>
#include <random>
#include <thread>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "documented_settings.hpp"
#include "exporter.hpp"
#include "kioku/sdk/db.hpp"
#include "procedural_plugin.hpp"
#include "schema.hpp"
#include "store_fixture.hpp"
#include "test_runtime.hpp"
#include "vector_test_support.hpp"

namespace kioku::procedural {
namespace {

using Json = nlohmann::json;
using kioku::testing::FakeOpenAiServer;
using kioku::testing::LayerVectorsTest;
using kioku::testing::TestRuntime;
using Mode = FakeOpenAiServer::Mode;

class ProcedureVectorsTest : public LayerVectorsTest<ProceduralPlugin> {
 protected:
  ProcedureVectorsTest() : LayerVectorsTest("procedural") {}

  sdk::ToolResult Save(const std::string& name, const std::string& when, const std::vector<std::string>& steps) {
    return rt->Call("procedure_save", {{"name", name}, {"when", when}, {"steps", steps}});
  }
  sdk::ToolResult Find(const std::string& query) { return rt->Call("procedure_find", {{"query", query}}); }
};

TEST_F(ProcedureVectorsTest, BackgroundWorkerEmbedsANewProcedure) {
  settings["vectors"]["start_delay_ms"] = 0;
  Restart(MakeEmbedder());
  ASSERT_FALSE(Save("release", "shipping a new version", {"tag the commit", "push the tag"}).is_error);
  // The save returned before any embedding; the worker thread catches up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Count("SELECT count(*) FROM procedural_vectors") < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(Count("SELECT count(*) FROM procedural_vectors WHERE model = 'fake-embed' AND dim = 32"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_embed_queue"), 0);
  const sdk::ToolResult r = Find("push the tag");
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "hybrid");
  ASSERT_EQ(r.structured["procedures"].size(), 1u);
  EXPECT_EQ(r.structured["procedures"][0]["name"], "release");
}

TEST_F(ProcedureVectorsTest, WithoutAnEmbedderFindSaysNothingAboutVectors) {
  Restart(nullptr);
  Save("deploy", "deploying the api", {"make release"});
  const sdk::ToolResult r = Find("deploy");
  EXPECT_FALSE(r.structured.contains("vectors")) << r.structured.dump();
  EXPECT_EQ(r.structured["procedures"].size(), 1u);
  // Nothing is queued while no embedder has started on the database; the first one to
  // start queues what was written before it (sdk::VectorStore::StartQueueing).
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_embed_queue"), 0);
  EXPECT_NE(Embed().second.find("no embedding provider configured"), std::string::npos);
  Restart(MakeEmbedder());
  EXPECT_EQ(Count("SELECT (SELECT count(*) FROM procedural_embed_queue) + (SELECT count(*) FROM procedural_vectors)"), 1);
}

TEST_F(ProcedureVectorsTest, QueueSurvivesARestartAndEmbedBackfills) {
  server.SetMode(Mode::kHttp500);
  Restart(MakeEmbedder());
  Save("alpha", "starting the alpha service", {"run alpha on port 8080"});
  Save("beta", "starting the beta service", {"run beta on port 9090"});
  const auto [code, text] = Embed();
  EXPECT_EQ(code, 1);
  EXPECT_NE(text.find("HTTP 500"), std::string::npos) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_embed_queue WHERE attempts = 1"), 2);

  server.SetMode(Mode::kOk);
  Restart(MakeEmbedder());
  rt->clock->Advance(60'000);  // past the rows' backoff
  const auto [code2, text2] = Embed();
  EXPECT_EQ(code2, 0) << text2;
  EXPECT_NE(text2.find("procedures: embedded 2"), std::string::npos) << text2;
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_vectors"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_embed_queue"), 0);
  // A new version is a new row: queued again.
  Save("alpha", "starting the alpha service", {"run alpha on port 8081"});
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_embed_queue"), 1);
}

TEST_F(ProcedureVectorsTest, AnotherModelsVectorsAreNeverComparedUntilReEmbedded) {
  Restart(MakeEmbedder("model-a"));
  Save("lint", "before a commit", {"run clang-tidy"});
  ASSERT_EQ(Embed().first, 0);
  Restart(MakeEmbedder("model-b"));
  const sdk::ToolResult r = Find("clang-tidy");
  EXPECT_EQ(r.structured["vectors"], "text-only");
  EXPECT_NE(r.text.find("stored vectors are from model model-a"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("kioku embed --all"), std::string::npos);
  EXPECT_EQ(r.structured["procedures"].size(), 1u);  // text search unaffected
  const auto [code, text] = Embed({"--all"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_vectors WHERE model = 'model-b'"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_vector_store WHERE model = 'model-b' AND dim = 32"), 1);
  EXPECT_EQ(Find("clang-tidy").structured["vectors"], "hybrid");
}

TEST_F(ProcedureVectorsTest, EndpointDownLeavesSavesAndTextSearchWorking) {
  Restart(MakeEmbedder());
  Save("staging", "resetting staging", {"drop the staging database"});
  ASSERT_EQ(Embed().first, 0);
  server.SetMode(Mode::kHttp500);
  const sdk::ToolResult r = Find("staging database");
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "degraded");
  EXPECT_NE(r.text.find("degraded (text search only)"), std::string::npos) << r.text;
  ASSERT_EQ(r.structured["procedures"].size(), 1u);
  const sdk::ToolResult w = Save("production", "resetting production", {"page the on-call first"});
  ASSERT_FALSE(w.is_error) << w.text;
  EXPECT_NE(w.text.find("embedding deferred"), std::string::npos) << w.text;
  EXPECT_EQ(Count("SELECT count(*) FROM procedural_procedures"), 2);
}

TEST_F(ProcedureVectorsTest, AQuerySharingNoWordFindsTheProcedureThroughVectors) {
  Restart(MakeEmbedder());
  const std::string name = "release", when = "shipping a new version";
  const std::vector<std::string> steps = {"tag the commit", "push the tag", "publish the notes"};
  Save(name, when, steps);
  Save("coffee", "the machine is empty", {"refill beans", "descale monthly"});
  ASSERT_EQ(Embed().first, 0);
  // A made-up word whose fake vector points the most towards the release procedure's
  // text: no text index holds it, only the vector list can find the procedure.
  std::string text = name + " " + when;
  for (const auto& s : steps) text += " " + s;
  const auto [best, best_score] = kioku::testing::NearestMadeUpWord(text, kDim);
  ASSERT_GT(best_score, 0.2f);
  const sdk::ToolResult r = Find(best);
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["vectors"], "hybrid");
  ASSERT_GE(r.structured["procedures"].size(), 1u) << r.text;
  EXPECT_EQ(r.structured["procedures"][0]["name"], "release");
  // Without vectors the same query finds nothing.
  Restart(nullptr);
  EXPECT_EQ(Find(best).structured["procedures"].size(), 0u);
}

// procedural.vectors.min_score: a vector hit under it leaves the vector list (the query
// shares no word, so nothing finds the procedure); a keyword hit is unaffected by it.
TEST_F(ProcedureVectorsTest, TheFloorDropsAWeakVectorHitAndKeepsKeywordHits) {
  const std::string name = "release", when = "shipping a new version";
  const std::vector<std::string> steps = {"tag the commit", "push the tag", "publish the notes"};
  std::string text = name + " " + when;
  for (const auto& s : steps) text += " " + s;
  const auto [best, best_score] = kioku::testing::NearestMadeUpWord(text, kDim);
  ASSERT_GT(best_score, 0.2f);
  ASSERT_LT(best_score, 0.9f);

  settings["vectors"]["min_score"] = best_score + 0.05;  // just above the hit
  Restart(MakeEmbedder());
  Save(name, when, steps);
  Save("coffee", "the machine is empty", {"refill beans", "descale monthly"});
  ASSERT_EQ(Embed().first, 0);
  const sdk::ToolResult dropped = Find(best);
  ASSERT_FALSE(dropped.is_error) << dropped.text;
  EXPECT_EQ(dropped.structured["vectors"], "hybrid");
  EXPECT_EQ(dropped.structured["procedures"].size(), 0u) << dropped.text;

  settings["vectors"]["min_score"] = 1.0;  // no vector hit passes
  Restart(MakeEmbedder());
  EXPECT_EQ(Find(best).structured["procedures"].size(), 0u);
  const sdk::ToolResult keyword = Find("descale");
  ASSERT_EQ(keyword.structured["procedures"].size(), 1u) << keyword.text;
  EXPECT_EQ(keyword.structured["procedures"][0]["name"], "coffee");

  settings["vectors"]["min_score"] = best_score - 0.05;  // just below: the same query finds it
  Restart(MakeEmbedder());
  const sdk::ToolResult kept = Find(best);
  ASSERT_EQ(kept.structured["procedures"].size(), 1u) << kept.text;
  EXPECT_EQ(kept.structured["procedures"][0]["name"], "release");
}

TEST_F(ProcedureVectorsTest, CalibrateReportsThisLayersFloor) {
  Restart(MakeEmbedder());
  for (int i = 0; i < 3; ++i) Save("chore" + std::to_string(i), "when w" + std::to_string(i), {"do d" + std::to_string(i)});
  ASSERT_EQ(Embed().first, 0);
  auto [code, text] = Embed({"--calibrate"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_EQ(text, "procedures: embed --calibrate: needs at least 10 embedded procedures, found 3\n");
  for (int i = 3; i < 12; ++i) {
    const std::string n = std::to_string(i);
    Save("chore" + n, "when w" + n + " x" + n, {"do d" + n, "then t" + n});
  }
  ASSERT_EQ(Embed().first, 0);
  std::tie(code, text) = Embed({"--calibrate", "50"});
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("procedures: on-topic  (12): p10 "), std::string::npos) << text;
  EXPECT_NE(text.find("procedures: suggested procedural.vectors.min_score: "), std::string::npos) << text;
  EXPECT_NE(text.find(" (now 0.100)"), std::string::npos) << text;
  EXPECT_EQ(Embed({"--calibrate", "many"}).first, 2);
}

TEST_F(ProcedureVectorsTest, ExportLeavesVectorsOutAndImportQueuesTheProcedures) {
  Restart(MakeEmbedder());
  Save("release", "shipping a new version", {"tag the commit"});
  ASSERT_EQ(Embed().first, 0);
  const sdk::ExporterSpec exporter = ProceduralExporter();
  EXPECT_EQ(exporter.doctor_counts(rt->Db()), Json({{"embedded", 1}, {"embed_queued", 0}, {"embed_failing", 0}}));
  const Json body = exporter.export_section(rt->Db());
  ASSERT_TRUE(body.contains("tables"));
  EXPECT_TRUE(body["tables"].contains("procedural_procedures"));
  for (const char* t : {"procedural_vectors", "procedural_vector_store", "procedural_embed_queue", "procedural_embed_on"}) {
    EXPECT_FALSE(body["tables"].contains(t)) << t;
  }
  testing::TempDb other;
  sdk::WithWriteTransaction(other.Db(), [&] { sdk::ImportLayerTables(other.Db(), "procedural", body); });
  const sdk::VectorStore store(ProcedureVectorTables());
  EXPECT_EQ(store.CountQueue(other.Db()).queued, 0);  // no embedder has started there yet
  EXPECT_EQ(store.StartQueueing(other.Db(), "fake-embed", 1), 1);
  EXPECT_EQ(store.CountQueue(other.Db()).queued, 1);
}

// A database with procedures made before the vector tables existed (every earlier
// migration applied) queues its current ones; the next migration empties that queue while
// no vector was ever stored, and the first embedder to start queues them again, once.
TEST(ProcedureVectorsMigration, QueuesTheCurrentProceduresOfAnExistingDatabase) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("kioku-procvec-" + std::to_string(std::random_device{}()) + ".db"))
                               .string();
  {
    SQLite::Database db = sdk::OpenDatabase(path);
    const auto migrations = Migrations();
    ASSERT_EQ(migrations.size(), 4u);
    auto apply = [&](const sdk::Migration& m) {
      if (!m.sql.empty()) db.exec(m.sql);
      if (m.apply) m.apply(db);
    };
    for (std::size_t i = 0; i < 2; ++i) apply(migrations[i]);
    // `kioku doctor` on a database not yet migrated this far: no counts, no error.
    EXPECT_EQ(sdk::VectorDoctorCounts(db, ProcedureVectorTables()), nlohmann::json::object());
    db.exec(
        "INSERT INTO procedural_procedures (id, project_id, name, version, when_text, steps, created_by, "
        "created_at, current) VALUES ('a1', '', 'deploy', 1, 'old', '[{\"text\":\"x\"}]', 'me', 1, 0), "
        "('a2', '', 'deploy', 2, 'new', '[{\"text\":\"y\"}]', 'me', 2, 1)");
    const auto count = [&](const std::string& sql) {
      SQLite::Statement q(db, sql);
      q.executeStep();
      return q.getColumn(0).getInt();
    };
    apply(migrations[2]);  // the vector tables
    SQLite::Statement q(db,
                        "SELECT count(*), max(q.procedure_seq = p.seq) FROM procedural_embed_queue q JOIN "
                        "procedural_procedures p ON p.id = 'a2'");
    q.executeStep();
    EXPECT_EQ(q.getColumn(0).getInt(), 1);
    EXPECT_EQ(q.getColumn(1).getInt(), 1);
    const sdk::VectorStore store(ProcedureVectorTables());
    const auto due = store.DuePending(db, 10, 10);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].text, "deploy\nnew\ny");  // name, when, the steps' text

    apply(migrations[3]);  // queue only once an embedder started: no vector yet, so emptied
    EXPECT_FALSE(store.Queueing(db));
    EXPECT_EQ(count("SELECT count(*) FROM procedural_embed_queue"), 0);
    db.exec("INSERT INTO procedural_procedures (id, project_id, name, version, when_text, steps, created_by, "
            "created_at, current) VALUES ('b1', '', 'review', 1, 'always', '[]', 'me', 3, 1)");
    EXPECT_EQ(count("SELECT count(*) FROM procedural_embed_queue"), 0);
    EXPECT_EQ(store.StartQueueing(db, "fake-embed", 10), 2);  // a2 and b1, the current ones
    EXPECT_TRUE(store.Queueing(db));
    EXPECT_EQ(store.StartQueueing(db, "fake-embed", 11), 0);
    db.exec("INSERT INTO procedural_procedures (id, project_id, name, version, when_text, steps, created_by, "
            "created_at, current) VALUES ('c1', '', 'triage', 1, 'bugs', '[]', 'me', 4, 1)");
    EXPECT_EQ(count("SELECT count(*) FROM procedural_embed_queue"), 3);  // the trigger queues now
  }
  std::filesystem::remove(path);
  {
    // A store with vectors keeps its queue and queues on.
    SQLite::Database db = sdk::OpenDatabase(path);
    const auto migrations = Migrations();
    for (std::size_t i = 0; i < 3; ++i) {
      if (!migrations[i].sql.empty()) db.exec(migrations[i].sql);
      if (migrations[i].apply) migrations[i].apply(db);
    }
    db.exec("INSERT INTO procedural_procedures (id, project_id, name, version, when_text, steps, created_by, "
            "created_at, current) VALUES ('a2', '', 'deploy', 2, 'new', '[]', 'me', 2, 1)");
    db.exec("INSERT INTO procedural_vector_store(id, model, dim, updated_at) VALUES (1, 'fake-embed', 32, 5)");
    db.exec(migrations[3].sql);
    EXPECT_TRUE(sdk::VectorStore(ProcedureVectorTables()).Queueing(db));
    SQLite::Statement q(db, "SELECT count(*) FROM procedural_embed_queue");
    q.executeStep();
    EXPECT_EQ(q.getColumn(0).getInt(), 1);
  }
  std::filesystem::remove(path);
}

TEST(ProceduralSettings, KiokuYamlDocumentsTheSchemaDefaults) {
  EXPECT_THAT(kioku::testing::DocumentedSettingsProblems("procedural", ProceduralPlugin::SettingsSchema()),
              ::testing::IsEmpty());
}

}  // namespace
}  // namespace kioku::procedural
