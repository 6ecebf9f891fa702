// memory_reflect, entity_extract_deep and memory_consolidate synthesize against the fake OpenAI-compatible server's
// scripted chat replies: good answers are stored with their sources, every bad answer
// (unknown ids, not JSON, wrong shape, endpoint down) is refused with nothing written.
#include <gtest/gtest.h>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include "config.hpp"
#include "context/context_block.hpp"
#include "fake_openai_server.hpp"
#include "providers/openai_chat.hpp"
#include "semantic_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku::semantic {
namespace {

using Json = nlohmann::json;
using kioku::testing::FakeOpenAiServer;
using kioku::testing::TestRuntime;
using Mode = FakeOpenAiServer::Mode;

class ModelToolsTest : public ::testing::Test {
 protected:
  FakeOpenAiServer server;
  std::unique_ptr<TestRuntime> rt = std::make_unique<TestRuntime>();

  void SetUp() override { Start(true); }

  void Start(bool with_chat) {
    rt->runtime.reset();
    host::RuntimeOptions o;
    o.data_dir = rt->dir;
    o.clock = rt->clock;
    if (with_chat) {
      host::ChatConfig c;
      c.url = server.Url();
      c.model = "fake-chat";
      c.timeout_ms = 2000;
      c.max_retries = 1;
      c.backoff_ms = 0;
      c.breaker_failures = 100;
      o.chat = host::providers::MakeOpenAiChat(c, rt->clock);
    }
    rt->runtime = std::make_unique<host::Runtime>(o);
    rt->Add<SemanticPlugin>("semantic");
    rt->Start();
  }

  Json Ok(std::string_view tool, const Json& args) {
    const sdk::ToolResult r = rt->Call(tool, args);
    EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
    return r.structured;
  }
  std::string Err(std::string_view tool, const Json& args) {
    const sdk::ToolResult r = rt->Call(tool, args);
    EXPECT_TRUE(r.is_error) << tool << " unexpectedly succeeded: " << r.text;
    return r.text;
  }
  std::string Remember(const std::string& text) {
    return Ok("memory_remember", {{"text", text}, {"kind", "fact"}})["results"][0]["id"].get<std::string>();
  }
  int Count(const std::string& sql) {
    SQLite::Statement q(rt->Db(), sql);
    q.executeStep();
    return q.getColumn(0).getInt();
  }
  // Every row of the tables these tools may write, to prove a refusal wrote nothing.
  std::string Snapshot() {
    std::string out;
    for (const char* t : {"semantic_memories", "semantic_memory_history", "semantic_entities",
                          "semantic_memory_entities", "semantic_relations"}) {
      SQLite::Statement q(rt->Db(), std::string("SELECT * FROM ") + t + " ORDER BY 1");
      while (q.executeStep()) {
        for (int i = 0; i < q.getColumnCount(); ++i) out += q.getColumn(i).getString() + "|";
        out += "\n";
      }
    }
    return out;
  }
  std::vector<std::string> Pnpm() {
    return {Remember("The web app uses pnpm workspaces for its JavaScript dependencies"),
            Remember("CI installs JavaScript dependencies with pnpm install --frozen-lockfile"),
            Remember("Renovate updates the pnpm lockfile every Monday")};
  }
  static std::string Reply(const std::string& observation, const std::vector<std::string>& cited) {
    return Json{{"observation", observation}, {"cited", cited}}.dump();
  }
};

TEST_F(ModelToolsTest, ReflectStoresAnObservationCitingItsSourcesAsDerived) {
  const auto ids = Pnpm();
  server.PushChatReply(Reply("The project manages JavaScript dependencies with pnpm, locked in CI.", {ids[0], ids[1]}));
  const Json out = Ok("memory_reflect", {{"query", "pnpm dependencies"}});
  EXPECT_EQ(out["action"], "remembered");
  EXPECT_EQ(out["sources"], Json({ids[0], ids[1]}));
  EXPECT_EQ(out["derived"], true);
  // The model saw the recalled memories with their ids, and was asked for the JSON shape.
  const Json body = Json::parse(server.LastBody());
  EXPECT_NE(body["messages"][1]["content"].get<std::string>().find("[" + ids[1] + "]"), std::string::npos);
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "observation");

  const Json got = Ok("memory_get", {{"id", out["id"]}});
  const Json& m = got.contains("memory") ? got["memory"] : got;
  EXPECT_EQ(m["kind"], "observation");
  EXPECT_EQ(m["source"], "derived");
  EXPECT_EQ(m["source_ref"], "reflect:" + ids[0] + "," + ids[1]);

  // Recall labels it derived, never confirmed.
  const sdk::ToolResult r = rt->Call("memory_recall", {{"query", "JavaScript dependencies pnpm"}});
  bool seen = false;
  for (const Json& j : r.structured["memories"]) {
    if (j["id"] == out["id"]) {
      seen = true;
      EXPECT_EQ(j["trust"], "derived");
    } else {
      EXPECT_EQ(j["trust"], "confirmed");
    }
  }
  EXPECT_TRUE(seen);
  EXPECT_NE(r.text.find("[observation|derived]"), std::string::npos) << r.text;

  // A second reflection does not build on the derived observation.
  server.PushChatReply(Reply("", {}));
  const Json again = Ok("memory_reflect", {{"query", "pnpm dependencies"}});
  EXPECT_EQ(again["action"], "none");
  EXPECT_EQ(Json::parse(server.LastBody())["messages"][1]["content"].get<std::string>().find(out["id"].get<std::string>()),
            std::string::npos);
}

TEST_F(ModelToolsTest, ReflectRejectsAnAnswerCitingUnknownIds) {
  const auto ids = Pnpm();
  const std::string before = Snapshot();
  server.PushChatReply(Reply("pnpm everywhere", {ids[0], "01JZZZZZZZZZZZZZZZZZZZZZZZ"}));
  const std::string e = Err("memory_reflect", {{"query", "pnpm dependencies"}});
  EXPECT_NE(e.find("rejected (nothing was written)"), std::string::npos) << e;
  EXPECT_NE(e.find("\"01JZZZZZZZZZZZZZZZZZZZZZZZ\""), std::string::npos) << e;
  // No citation at all is refused too.
  server.PushChatReply(Reply("pnpm everywhere", {}));
  EXPECT_NE(Err("memory_reflect", {{"query", "pnpm dependencies"}}).find("cites no source"), std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(ModelToolsTest, ReflectRejectsMalformedOrMisshapenAnswers) {
  Pnpm();
  const std::string before = Snapshot();
  server.PushChatReply("{\"observation\": \"pnpm\", \"cited\": [");
  EXPECT_NE(Err("memory_reflect", {{"query", "pnpm"}}).find("answer is not JSON"), std::string::npos);
  server.PushChatReply("{\"observation\": \"pnpm\"}");
  EXPECT_NE(Err("memory_reflect", {{"query", "pnpm"}}).find("does not match the schema"), std::string::npos);
  server.PushChatReply("{\"observation\": 7, \"cited\": []}");
  EXPECT_NE(Err("memory_reflect", {{"query", "pnpm"}}).find("does not match the schema"), std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(ModelToolsTest, ReflectWithTheProviderDownSaysSoAndWritesNothing) {
  Pnpm();
  const std::string before = Snapshot();
  server.SetMode(Mode::kHttp500);
  const std::string e = Err("memory_reflect", {{"query", "pnpm"}});
  EXPECT_NE(e.find("chat model is unavailable (nothing was written)"), std::string::npos) << e;
  EXPECT_NE(e.find("HTTP 500 (after 2 attempts)"), std::string::npos) << e;
  server.SetMode(Mode::kMalformed);
  EXPECT_NE(Err("memory_reflect", {{"query", "pnpm"}}).find("malformed answer"), std::string::npos);
  EXPECT_EQ(Snapshot(), before);
  // Text recall is unaffected.
  EXPECT_EQ(Ok("memory_recall", {{"query", "pnpm"}})["memories"].size(), 3u);
}

TEST_F(ModelToolsTest, WithoutAChatProviderTheToolsSayWhatToConfigure) {
  Start(false);
  Pnpm();
  const std::string e = Err("memory_reflect", {{"query", "pnpm"}});
  EXPECT_NE(e.find("set providers.chat {url, model}"), std::string::npos) << e;
  EXPECT_NE(Err("entity_extract_deep", {{"text", "api uses postgres"}}).find("providers.chat"), std::string::npos);
  Remember("Run the linter before every commit");
  Remember("Before every commit, run the linter");
  EXPECT_NE(Err("memory_consolidate", {{"synthesize", true}}).find("providers.chat"), std::string::npos);
  EXPECT_EQ(server.ChatRequests(), 0);
}

TEST_F(ModelToolsTest, ReflectNeedsTwoConfirmedSources) {
  Remember("The web app uses pnpm workspaces");
  const std::string e = Err("memory_reflect", {{"query", "pnpm"}});
  EXPECT_NE(e.find("at least 2 confirmed memories"), std::string::npos) << e;
  EXPECT_EQ(server.ChatRequests(), 0);
}

TEST_F(ModelToolsTest, AReflectionWhoseSourceIsGoneIsOutdatedAndLeavesTheContextBlock) {
  const auto ids = Pnpm();
  server.PushChatReply(Reply("The project manages JavaScript dependencies with pnpm, locked in CI.", {ids[0], ids[1]}));
  const std::string obs = Ok("memory_reflect", {{"query", "pnpm dependencies"}})["id"];
  const auto trust = [&] {
    const Json found = Ok("memory_recall", {{"query", "JavaScript dependencies pnpm"}});
    for (const Json& j : found["memories"]) {
      if (j["id"] == obs) return j["trust"].get<std::string>();
    }
    return std::string("absent");
  };
  const auto block = [&](const std::string& query) {
    host::ContextOptions o;
    o.query = query;
    o.token_budget = 2000;
    return host::BuildContext(*rt->runtime, TestRuntime::DefaultCaller(), o).text;
  };
  EXPECT_EQ(trust(), "derived");
  EXPECT_NE(block("pnpm dependencies").find("locked in CI"), std::string::npos);
  EXPECT_NE(block("").find("locked in CI"), std::string::npos);
  Ok("memory_forget", {{"id", ids[1]}});
  EXPECT_EQ(trust(), "outdated");
  const sdk::ToolResult r = rt->Call("memory_recall", {{"query", "JavaScript dependencies pnpm"}});
  EXPECT_NE(r.text.find("[observation|outdated]"), std::string::npos) << r.text;
  EXPECT_EQ(block("pnpm dependencies").find("locked in CI"), std::string::npos);
  EXPECT_EQ(block("").find("locked in CI"), std::string::npos);
  // A reflection on live sources stays derived.
  server.PushChatReply(Reply("Renovate keeps the pnpm lockfile current.", {ids[0], ids[2]}));
  const std::string obs2 = Ok("memory_reflect", {{"query", "pnpm lockfile"}})["id"];
  bool derived = false;
  const Json found = Ok("memory_recall", {{"query", "Renovate pnpm lockfile"}});
  for (const Json& j : found["memories"]) {
    if (j["id"] == obs2) derived = j["trust"] == "derived";
  }
  EXPECT_TRUE(derived);
}

TEST_F(ModelToolsTest, ExtractDeepWritesEntitiesAndRelationsIntoTheGraph) {
  const std::string id = Remember("The billing service stores invoices in Postgres and is owned by the payments team");
  server.PushChatReply(Json{{"entities",
                             {{{"name", "billing service"}, {"type", "service"}},
                              {{"name", "Postgres"}, {"type", "tool"}},
                              {{"name", "payments team"}, {"type", "team"}}}},
                            {"relations",
                             {{{"from", "billing service"}, {"type", "stores data in"}, {"to", "postgres"}},
                              {{"from", "billing service"}, {"type", "owned_by"}, {"to", "payments team"}}}}}
                           .dump());
  const Json out = Ok("entity_extract_deep", {{"memory_id", id}});
  EXPECT_EQ(out["entities"].size(), 3u);
  ASSERT_EQ(out["relations"].size(), 2u);
  EXPECT_EQ(out["relations"][0]["type"], "stores_data_in");
  EXPECT_EQ(Count("SELECT COUNT(*) FROM semantic_relations WHERE expired_at IS NULL"), 2);
  const Json g = Ok("entity_graph", {{"entity", "billing service"}});
  EXPECT_EQ(g["relations"].size(), 2u);
  bool linked = false;
  for (const Json& e : g["entities"]) {
    if (e["name"] == "billing service") linked = e["memories"].size() == 1 && e["memories"][0] == id;
  }
  EXPECT_TRUE(linked) << g.dump();
  // Said again: nothing new.
  server.PushChatReply(Json{{"entities", {{{"name", "billing service"}, {"type", "service"}},
                                          {{"name", "payments team"}, {"type", "team"}}}},
                            {"relations", {{{"from", "billing service"}, {"type", "owned_by"}, {"to", "payments team"}}}}}
                           .dump());
  const Json again = Ok("entity_extract_deep", {{"text", "billing service is owned by the payments team"}});
  EXPECT_EQ(again["relations"][0]["action"], "already_known");
  EXPECT_EQ(again["entities"][0]["action"], "known");
  EXPECT_EQ(Count("SELECT COUNT(*) FROM semantic_relations"), 2);
}

TEST_F(ModelToolsTest, ExtractDeepWritesNothingWhenAnyItemFails) {
  Remember("The api service depends on redis");
  const std::string before = Snapshot();
  // A relation to an entity the answer does not list.
  server.PushChatReply(Json{{"entities", {{{"name", "api"}, {"type", "service"}}}},
                            {"relations", {{{"from", "api"}, {"type", "depends_on"}, {"to", "redis"}}}}}
                           .dump());
  std::string e = Err("entity_extract_deep", {{"text", "The api service depends on redis"}});
  EXPECT_NE(e.find("relations[0].to \"redis\" is not in entities"), std::string::npos) << e;
  // An entity type outside the enum, a bad relation type, a self relation.
  server.PushChatReply(Json{{"entities", {{{"name", "api"}, {"type", "spaceship"}}}}, {"relations", Json::array()}}.dump());
  EXPECT_NE(Err("entity_extract_deep", {{"text", "api"}}).find("does not match the schema"), std::string::npos);
  server.PushChatReply(Json{{"entities", {{{"name", "api"}, {"type", "service"}}, {{"name", "redis"}, {"type", "tool"}}}},
                            {"relations", {{{"from", "api"}, {"type", "!!"}, {"to", "redis"}},
                                           {{"from", "api"}, {"type", "uses"}, {"to", "API"}}}}}
                           .dump());
  e = Err("entity_extract_deep", {{"text", "api uses redis"}});
  EXPECT_NE(e.find("relations[0].type"), std::string::npos) << e;
  EXPECT_NE(e.find("relations[1] relates \"api\" to itself"), std::string::npos) << e;
  // A secret in a name.
  server.PushChatReply(Json{{"entities", {{{"name", "AKIAIOSFODNN7EXAMPLE"}, {"type", "env"}}}}, {"relations", Json::array()}}.dump());
  EXPECT_NE(Err("entity_extract_deep", {{"text", "the deploy key"}}).find("rejected"), std::string::npos);
  server.PushChatReply("not json at all");
  EXPECT_NE(Err("entity_extract_deep", {{"text", "api"}}).find("answer is not JSON"), std::string::npos);
  EXPECT_NE(Err("entity_extract_deep", {{"text", "x"}, {"memory_id", "0123"}}).find("exactly one"), std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

// memory_consolidate synthesize: restatements of one fact, merged by the model.
class SynthesizeTest : public ModelToolsTest {
 protected:
  std::vector<std::string> Postgres() {
    return {Remember("Integration tests run against a local Postgres 15 container"),
            Remember("The integration tests run against a Postgres 15 container on the local machine")};
  }
  static std::string Merged(const std::string& text, const std::vector<std::string>& cited) {
    return Json{{"text", text}, {"cited", cited}}.dump();
  }
  Json Merge(const Json& args) {
    Json out = Ok("memory_consolidate", args);
    EXPECT_EQ(out["total"], 1) << out.dump();
    return out.value("clusters", Json::array()).empty() ? Json::object() : out["clusters"][0]["merged"];
  }
};

TEST_F(SynthesizeTest, AVerifiedMergeIsWrittenAsDerivedAndSupersedesItsSources) {
  const auto ids = Postgres();
  // Dry run: proposed, nothing written.
  const std::string before = Snapshot();
  server.PushChatReply(Merged("Integration tests run against a local Postgres 15 container.", {ids[0], ids[1]}));
  const Json dry = Merge({{"synthesize", true}});
  EXPECT_EQ(dry["action"], "proposed") << dry.dump();
  EXPECT_EQ(Snapshot(), before);
  const Json body = Json::parse(server.LastBody());
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "merged_memory");
  EXPECT_NE(body["messages"][1]["content"].get<std::string>().find("[" + ids[1] + "]"), std::string::npos);

  server.PushChatReply(Merged("Integration tests always run against a Postgres 15 container on the local machine.", {ids[0], ids[1]}));
  const Json done = Ok("memory_consolidate", {{"synthesize", true}, {"apply", true}});
  const Json merged = done["clusters"][0]["merged"];
  EXPECT_EQ(merged["action"], "written") << done.dump();
  EXPECT_EQ(done["superseded"], 2);
  const std::string id = merged["id"];
  const Json m = Ok("memory_get", {{"id", id}})["memory"];
  EXPECT_EQ(m["source"], "derived");
  EXPECT_EQ(m["source_ref"], "consolidate:" + ids[0] + "," + ids[1]);
  EXPECT_EQ(m["kind"], "fact");
  for (const std::string& src : ids) {
    const Json s = Ok("memory_get", {{"id", src}})["memory"];
    EXPECT_EQ(s["status"], "superseded");
    EXPECT_EQ(s["superseded_by"], id);
  }
  const Json r = Ok("memory_recall", {{"query", "postgres integration tests"}});
  ASSERT_EQ(r["memories"].size(), 1u) << r.dump();
  EXPECT_EQ(r["memories"][0]["trust"], "derived");
}

TEST_F(SynthesizeTest, AnUnfaithfulAnswerIsRejectedAndNothingIsWritten) {
  const auto ids = Postgres();
  const std::string before = Snapshot();
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
      {"Integration tests run against a local Postgres 16 container.", {ids[0], ids[1]}},  // another value
      {"Integration tests run against a local Postgres container.", {ids[0], ids[1]}},     // drops 15
      {"Integration tests run against a local Postgres 15 container on port 5433.", {ids[0], ids[1]}},  // invents 5433
      {"Postgres 15 backups are copied to object storage every night by cron.", {ids[0], ids[1]}},  // off topic
      {"Integration tests use Postgres 15 locally, password hunter2hunter2 AKIAIOSFODNN7EXAMPLE.", {ids[0], ids[1]}},
      {"Integration tests run against a local Postgres 15 container.", {ids[0], "01JZZZZZZZZZZZZZZZZZZZZZZZ"}},
      {"Integration tests run against a local Postgres 15 container.", {ids[0]}},  // one source is no merge
  };
  const std::vector<std::string> why = {"contradicts", "drops \"15\"", "names \"5433\"", "about something else",
                                        "secret", "not in the cluster", "no two of them"};
  for (std::size_t i = 0; i < bad.size(); ++i) {
    server.PushChatReply(Merged(bad[i].first, bad[i].second));
    const Json out = Ok("memory_consolidate", {{"synthesize", true}, {"apply", true}});
    const Json merged = out["clusters"][0]["merged"];
    EXPECT_EQ(merged["action"], "rejected") << i << ": " << out.dump();
    EXPECT_NE(merged.value("why", "").find(why[i]), std::string::npos) << i << ": " << merged.dump();
    EXPECT_EQ(out["superseded"], 0);
    EXPECT_EQ(Snapshot(), before) << i;
  }
}

TEST_F(SynthesizeTest, TheEndpointDownLeavesTheClustersAsTheyAre) {
  Postgres();
  Remember("Run the linter before every commit");
  Remember("Before every commit, run the linter");
  const std::string before = Snapshot();
  server.SetMode(Mode::kHttp500);
  const Json out = Ok("memory_consolidate", {{"synthesize", true}, {"apply", true}});
  ASSERT_EQ(out["total"], 2) << out.dump();
  for (const Json& c : out["clusters"]) EXPECT_EQ(c["merged"]["action"], "unavailable") << out.dump();
  EXPECT_NE(out["clusters"][0]["merged"]["why"].get<std::string>().find("HTTP 500"), std::string::npos);
  EXPECT_EQ(server.ChatRequests(), 2);  // one cluster tried (two attempts), the next not asked
  EXPECT_EQ(Snapshot(), before);
  server.SetMode(Mode::kMalformed);
  EXPECT_EQ(Ok("memory_consolidate", {{"synthesize", true}, {"apply", true}})["superseded"], 0);
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(SynthesizeTest, ASourceEditedWhileTheModelAnswersIsNotOverwritten) {
  const auto ids = Postgres();
  server.SetChatResponder([&](const std::string&) {
    EXPECT_FALSE(rt->Call("memory_edit", {{"id", ids[1]}, {"text", "Integration tests run against Postgres 15 in CI"}}).is_error);
    return Merged("Integration tests run against a local Postgres 15 container.", {ids[0], ids[1]});
  });
  const Json out = Ok("memory_consolidate", {{"synthesize", true}, {"apply", true}});
  EXPECT_EQ(out["clusters"][0]["merged"]["action"], "changed") << out.dump();
  EXPECT_EQ(out["superseded"], 0);
  EXPECT_EQ(Ok("memory_get", {{"id", ids[0]}})["memory"]["status"], "active");
}

TEST_F(SynthesizeTest, APinnedClusterKeepsItsWordingAndNeedsNoModel) {
  const auto ids = Postgres();
  Ok("memory_pin", {{"id", ids[1]}});
  const Json out = Ok("memory_consolidate", {{"synthesize", true}, {"apply", true}});
  EXPECT_EQ(out["clusters"][0]["merged"]["action"], "pinned") << out.dump();
  EXPECT_EQ(out["superseded"], 1);
  EXPECT_EQ(Ok("memory_get", {{"id", ids[0]}})["memory"]["superseded_by"], ids[1]);
  EXPECT_EQ(server.ChatRequests(), 0);
}

TEST_F(ModelToolsTest, BothToolsAreInTheFullProfileOnly) {
  for (const char* name : {"memory_reflect", "entity_extract_deep"}) {
    const host::RegisteredTool* t = rt->runtime->FindTool(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->spec.profile, sdk::ToolProfile::kFull) << name;
  }
}

}  // namespace
}  // namespace kioku::semantic
