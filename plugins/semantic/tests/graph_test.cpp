// entity_relate / entity_unrelate / entity_graph: functional vs many-valued relations,
// as_of on the valid and transaction axes, traversal depth and caps, bad input.

#include <SQLiteCpp/Database.h>

#include <set>

#include "kioku/sdk/db.hpp"
#include "memory_store.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

std::vector<std::string> Targets(const Json& graph, const std::string& from, const std::string& type) {
  std::vector<std::string> out;
  for (const Json& r : graph["relations"]) {
    if (r["from"] == from && r["type"] == type) out.push_back(r["to"]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class GraphTest : public SemanticTest {
 protected:
  std::string At(double days_from_start) {
    return sdk::FormatRfc3339(start_ + static_cast<std::int64_t>(days_from_start * sdk::kMsPerDay));
  }
  Json GraphOf(const std::string& entity, Json extra = Json::object()) {
    extra["entity"] = entity;
    return Ok("entity_graph", extra);
  }
  std::int64_t start_ = 0;
  void SetUp() override {
    SemanticTest::SetUp();
    start_ = rt_->clock->NowMs();
  }
};

TEST_F(GraphTest, RelateCreatesEntitiesAndIsIdempotent) {
  Json r = Ok("entity_relate", {{"from", "api-service"}, {"type", "depends_on"}, {"to", "postgres"}});
  EXPECT_EQ(r["action"], "related");
  EXPECT_EQ(r["relation"]["from"], "api-service");
  EXPECT_EQ(r["relation"]["valid_from"], At(0));
  EXPECT_TRUE(r["relation"]["valid_to"].is_null());
  EXPECT_TRUE(r["relation"]["expired_at"].is_null());
  EXPECT_EQ(Count("semantic_entities"), 2);
  Json again = Ok("entity_relate", {{"from", "API-Service"}, {"type", "Depends On"}, {"to", "postgres"}});
  EXPECT_EQ(again["action"], "already_known");
  EXPECT_EQ(Count("semantic_relations"), 1);
  EXPECT_EQ(Count("semantic_entities"), 2);
}

TEST_F(GraphTest, SingleValuedTypeClosesThePreviousTarget) {
  Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "webpack"}});
  AdvanceDays(10);
  Json r = Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "vite"}});
  ASSERT_EQ(r["closed"].size(), 1u);
  EXPECT_EQ(r["closed"][0]["to"], "webpack");
  EXPECT_EQ(r["closed"][0]["valid_to"], At(10));
  EXPECT_EQ(Targets(GraphOf("web"), "web", "uses"), std::vector<std::string>{"vite"});
  EXPECT_EQ(Targets(GraphOf("web", {{"as_of", At(5)}}), "web", "uses"),
            std::vector<std::string>{"webpack"});
  // History is never deleted: original webpack row (expired), its corrected copy, vite.
  Json h = GraphOf("web", {{"history", true}});
  EXPECT_EQ(h["relations"].size(), 3u);
  EXPECT_EQ(Count("semantic_relations", "expired_at IS NOT NULL"), 1);
}

TEST_F(GraphTest, OutOfOrderSingleValuedAssertionsBuildTheSameTimeline) {
  AdvanceDays(100);
  // Learned in reverse: first "uses vite since day 60", then "uses webpack since day 10".
  Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "vite"}, {"valid_from", At(60)}});
  Json r = Ok("entity_relate",
              {{"from", "web"}, {"type", "uses"}, {"to", "webpack"}, {"valid_from", At(10)}});
  EXPECT_EQ(r["relation"]["valid_to"], At(60));  // until the next known change
  EXPECT_EQ(Targets(GraphOf("web"), "web", "uses"), std::vector<std::string>{"vite"});
  EXPECT_EQ(Targets(GraphOf("web", {{"as_of", At(30)}}), "web", "uses"),
            std::vector<std::string>{"webpack"});
  EXPECT_EQ(Targets(GraphOf("web", {{"as_of", At(70)}}), "web", "uses"),
            std::vector<std::string>{"vite"});
  EXPECT_EQ(Count("semantic_relations", "expired_at IS NULL AND valid_to IS NULL"), 1);
}

TEST_F(GraphTest, OverlappingReassertionMergesInsteadOfDuplicating) {
  AdvanceDays(100);
  Ok("entity_relate", {{"from", "api"}, {"type", "depends_on"}, {"to", "redis"},
                       {"valid_from", At(10)}, {"valid_to", At(40)}});
  Json r = Ok("entity_relate", {{"from", "api"}, {"type", "depends_on"}, {"to", "redis"},
                                {"valid_from", At(30)}, {"valid_to", At(70)}});
  EXPECT_EQ(r["action"], "related");
  EXPECT_EQ(r["relation"]["valid_from"], At(10));
  EXPECT_EQ(r["relation"]["valid_to"], At(70));
  Json inside = Ok("entity_relate", {{"from", "api"}, {"type", "depends_on"}, {"to", "redis"},
                                     {"valid_from", At(20)}, {"valid_to", At(50)}});
  EXPECT_EQ(inside["action"], "already_known");
  // Listed once, now and at any time inside the interval.
  EXPECT_EQ(Targets(GraphOf("api", {{"as_of", At(35)}}), "api", "depends_on"),
            std::vector<std::string>{"redis"});
  EXPECT_EQ(Count("semantic_relations", "expired_at IS NULL"), 1);
  // An open re-assertion overlapping an open row is already known.
  Ok("entity_relate", {{"from", "api"}, {"type", "depends_on"}, {"to", "pg"}, {"valid_from", At(5)}});
  EXPECT_EQ(Ok("entity_relate", {{"from", "api"}, {"type", "depends_on"}, {"to", "pg"},
                                 {"valid_from", At(8)}})["action"],
            "already_known");
}

TEST_F(GraphTest, NewerAssertionWinsInsideItsIntervalAndKeepsTheRest) {
  AdvanceDays(100);
  Ok("entity_relate", {{"from", "svc"}, {"type", "uses"}, {"to", "mysql"}, {"valid_from", At(0)}});
  Json r = Ok("entity_relate", {{"from", "svc"}, {"type", "uses"}, {"to", "pg"},
                                {"valid_from", At(20)}, {"valid_to", At(30)}});
  EXPECT_EQ(r["closed"].size(), 2u);  // mysql before day 20 and from day 30 on
  EXPECT_EQ(Targets(GraphOf("svc", {{"as_of", At(10)}}), "svc", "uses"), std::vector<std::string>{"mysql"});
  EXPECT_EQ(Targets(GraphOf("svc", {{"as_of", At(25)}}), "svc", "uses"), std::vector<std::string>{"pg"});
  EXPECT_EQ(Targets(GraphOf("svc"), "svc", "uses"), std::vector<std::string>{"mysql"});
}

TEST_F(GraphTest, EpochValidToIsNotReadAsOpen) {
  const auto r = Call("entity_relate", {{"from", "a1"}, {"type", "uses"}, {"to", "b1"},
                                        {"valid_to", "1970-01-01T00:00:00Z"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("valid_to"), std::string::npos) << r.text;
}

TEST_F(GraphTest, ManyValuedTypesAccumulate) {
  Ok("entity_relate", {{"from", "web"}, {"type", "depends_on"}, {"to", "react"}});
  AdvanceDays(1);
  Json r = Ok("entity_relate", {{"from", "web"}, {"type", "depends_on"}, {"to", "zod"}});
  EXPECT_TRUE(r["closed"].empty());
  EXPECT_EQ(Targets(GraphOf("web"), "web", "depends_on"), (std::vector<std::string>{"react", "zod"}));
}

TEST_F(GraphTest, SingleValuedListIsConfigurable) {
  Start({{"graph", {{"single_valued", {"depends_on"}}}}});
  start_ = rt_->clock->NowMs();
  Ok("entity_relate", {{"from", "web"}, {"type", "depends_on"}, {"to", "react"}});
  AdvanceDays(1);
  Ok("entity_relate", {{"from", "web"}, {"type", "depends_on"}, {"to", "preact"}});
  EXPECT_EQ(Targets(GraphOf("web"), "web", "depends_on"), std::vector<std::string>{"preact"});
  Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "a"}});
  Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "b"}});
  EXPECT_EQ(Targets(GraphOf("web"), "web", "uses"), (std::vector<std::string>{"a", "b"}));
}

TEST_F(GraphTest, UnrelateEndsValidityWithoutDeleting) {
  Ok("entity_relate", {{"from", "svc"}, {"type", "depends_on"}, {"to", "redis"}});
  AdvanceDays(3);
  Json u = Ok("entity_unrelate", {{"from", "svc"}, {"type", "depends_on"}, {"to", "redis"}});
  ASSERT_EQ(u["ended"].size(), 1u);
  EXPECT_EQ(u["ended"][0]["valid_to"], At(3));
  EXPECT_TRUE(Targets(GraphOf("svc"), "svc", "depends_on").empty());
  EXPECT_EQ(Targets(GraphOf("svc", {{"as_of", At(1)}}), "svc", "depends_on"),
            std::vector<std::string>{"redis"});
  EXPECT_EQ(Count("semantic_relations"), 2);
  const std::string before = Snapshot();
  const std::string msg = Err("entity_unrelate", {{"from", "svc"}, {"type", "depends_on"}, {"to", "redis"}});
  EXPECT_NE(msg.find("not open"), std::string::npos) << msg;
  EXPECT_NE(Err("entity_unrelate", {{"from", "svc"}, {"type", "uses"}, {"to", "redis"}})
                .find("no relation"),
            std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(GraphTest, AsOfOnValidAndTransactionAxesDiffer) {
  // Day 0: web uses webpack. Day 20 we learn it switched to vite on day 10.
  Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "webpack"}});
  AdvanceDays(20);
  Ok("entity_relate", {{"from", "web"}, {"type", "uses"}, {"to", "vite"}, {"valid_from", At(10)}});
  AdvanceDays(1);
  // Valid axis (what we now know): on day 15 web used vite.
  EXPECT_EQ(Targets(GraphOf("web", {{"as_of", At(15)}}), "web", "uses"),
            std::vector<std::string>{"vite"});
  // Transaction axis (what kioku believed on day 15): still webpack.
  EXPECT_EQ(Targets(GraphOf("web", {{"as_of", At(15)}, {"as_of_axis", "transaction"}}), "web", "uses"),
            std::vector<std::string>{"webpack"});
  // Before anything was recorded, kioku believed nothing.
  EXPECT_TRUE(Targets(GraphOf("web", {{"as_of", At(-1)}, {"as_of_axis", "transaction"}}), "web", "uses")
                  .empty());
  // Valid axis on day 5: webpack (closed at day 10 in the corrected row).
  EXPECT_EQ(Targets(GraphOf("web", {{"as_of", At(5)}}), "web", "uses"),
            std::vector<std::string>{"webpack"});
}

TEST_F(GraphTest, TraversalHonoursDepthAndCaps) {
  Ok("entity_relate", {{"from", "a"}, {"type", "calls"}, {"to", "b"}});
  Ok("entity_relate", {{"from", "b"}, {"type", "calls"}, {"to", "c"}});
  Ok("entity_relate", {{"from", "c"}, {"type", "calls"}, {"to", "d"}});
  EXPECT_EQ(GraphOf("a")["relations"].size(), 1u);
  EXPECT_EQ(GraphOf("a", {{"depth", 2}})["relations"].size(), 2u);
  EXPECT_EQ(GraphOf("a", {{"depth", 5}})["relations"].size(), 3u);
  EXPECT_EQ(GraphOf("d", {{"depth", 5}})["entities"].size(), 4u);  // both directions
  Json capped = GraphOf("a", {{"depth", 5}, {"limit", 2}});
  EXPECT_EQ(capped["relations"].size(), 2u);
  EXPECT_TRUE(capped["truncated"]);
  EXPECT_TRUE(Call("entity_graph", {{"entity", "a"}, {"depth", 6}}).is_error);
}

TEST_F(GraphTest, SearchFindsEntitiesExtractedFromMemories) {
  const std::string id = Remember("Token refresh lives in src/auth/session.ts", "fact");
  Json s = Ok("entity_graph", {{"query", "session"}});
  ASSERT_GE(s["entities"].size(), 1u);
  EXPECT_EQ(s["entities"][0]["name"], "src/auth/session.ts");
  EXPECT_EQ(s["entities"][0]["type"], "file");
  EXPECT_EQ(s["entities"][0]["memories"], Json::array({id}));
  EXPECT_EQ(Ok("entity_graph", {{"query", "sr"}})["entities"].size(), 1u);  // short: prefix
  EXPECT_NE(Call("entity_graph", {{"query", "ts"}}).text.find("3 or more characters search inside names"),
            std::string::npos);
  EXPECT_TRUE(Ok("entity_graph", {{"query", "nothing-like-this"}})["entities"].empty());
  // The name index has no positions: "ession" and "SESSION" (case folded) are substrings,
  // "ssionss.tion.t" holds every trigram of "ssion.t" but not adjacent, so is not found.
  Ok("entity_relate", {{"from", "ssionss.tion.t"}, {"type", "uses"}, {"to", "x"}});
  EXPECT_EQ(Ok("entity_graph", {{"query", "SESSION"}})["entities"][0]["name"], "src/auth/session.ts");
  Json sub = Ok("entity_graph", {{"query", "ssion.t"}});
  ASSERT_EQ(sub["entities"].size(), 1u);
  EXPECT_EQ(sub["entities"][0]["name"], "src/auth/session.ts");
  // Relations can use an extracted entity by name; the type stays "file".
  Ok("entity_relate", {{"from", "src/auth/session.ts"}, {"type", "depends_on"}, {"to", "jsonwebtoken"}});
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'src/auth/session.ts'"), 1);
  Json g = GraphOf("src/auth/session.ts");
  EXPECT_EQ(Targets(g, "src/auth/session.ts", "depends_on"), std::vector<std::string>{"jsonwebtoken"});
  // An entity id (or prefix) works wherever a name does.
  const std::string eid = g["entities"][0]["id"];
  EXPECT_EQ(GraphOf(eid)["relations"].size(), 1u);
  EXPECT_NE(Err("entity_graph", {{"entity", eid.substr(0, 24)}}).find("matches several"), std::string::npos);
}

TEST_F(GraphTest, PurgingAMemoryDeletesTheNamesOnlyItUsed) {
  const std::string id = Remember("Widget config in pkg/widgetry/zorblax_99.go", "fact");
  Remember("Shared helper in pkg/common/util.go", "fact");
  Ok("memory_edit", {{"id", id}, {"text", "Widget config in pkg/gizmotron/quuxle_42.go and pkg/common/util.go"}});
  Ok("entity_relate", {{"from", "pkg/gizmotron/quuxle_42.go"}, {"type", "depends_on"}, {"to", "kept-dep"}});
  Ok("memory_forget", {{"id", id}, {"purge", true}});
  EXPECT_TRUE(Ok("entity_graph", {{"query", "orblax"}})["entities"].empty());  // the earlier version's
  EXPECT_EQ(Ok("entity_graph", {{"query", "util.go"}})["entities"].size(), 1u);  // another memory links it
  EXPECT_EQ(Ok("entity_graph", {{"query", "izmotr"}})["entities"][0]["name"], "pkg/gizmotron/quuxle_42.go");  // a relation uses it
  rt_->Db().exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
}

// A batch writes its entities and links at its end, in one statement each
// (MemoryWriter::FlushEntityLinks): memories of one batch naming one entity share it, the
// first mention's spelling names it, and each memory links only what it names.
TEST_F(GraphTest, ABatchLinksEachMemoryToTheEntitiesItNames) {
  const Json r = Ok("memory_remember", {{"memories", Json::array({
      {{"text", "validateToken in src/auth/session.ts checks expiry"}, {"kind", "fact"}},
      {{"text", "ValidateToken is called from src/api/login.ts"}, {"kind", "fact"}},
      {{"text", "Nothing named here at all"}, {"kind", "fact"}},
  })}});
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'validatetoken'"), 1);
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'validatetoken' AND name = 'validateToken'"), 1);
  const auto names = [&](const Json& result) {
    std::set<std::string> out;
    const Json got = Ok("memory_get", {{"id", result["id"]}});
    for (const Json& e : got["memory"].value("entities", Json::array())) out.insert(e["name"].get<std::string>());
    return out;
  };
  EXPECT_EQ(names(r["results"][0]), (std::set<std::string>{"src/auth/session.ts", "validateToken"}));
  EXPECT_EQ(names(r["results"][1]), (std::set<std::string>{"src/api/login.ts", "validateToken"}));
  EXPECT_TRUE(names(r["results"][2]).empty());
  EXPECT_EQ(GraphOf("validatetoken")["entities"][0]["memories"].size(), 2u);
  rt_->Db().exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
  // A later batch naming them again adds only the entity that is new.
  Ok("memory_remember", {{"memories", Json::array({
      {{"text", "validateToken and src/api/login.ts again"}, {"kind", "fact"}},
      {{"text", "src/api/login.ts calls src/api/refresh.ts"}, {"kind", "fact"}},
  })}});
  EXPECT_EQ(Count("semantic_entities", "1"), 4);
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'src/api/refresh.ts' AND seq = (SELECT max(seq) FROM semantic_entities)"), 1);
}

// What a rolled-back write queued goes with it: the seqs it took are given again, and the
// next write's memories link only their own entities.
TEST_F(GraphTest, ARolledBackWriteLeavesNoLinksForTheNext) {
  sdk::StatementCache statements;
  const Settings settings;
  const Env env{rt_->Db(), *rt_->clock, settings, statements};
  EXPECT_THROW(WithMemoryWriter(env,
                                [&](MemoryWriter& writer) {
                                  MemoryDraft d;
                                  d.text = "Rolled back mention of pkg/ghost/phantom_7.go";
                                  d.kind = "fact";
                                  writer.Remember(d, Author{"agent", "s1"});
                                  throw std::runtime_error("roll back");
                                }),
               std::runtime_error);
  const std::string id = Remember("Kept mention of pkg/real/present.go", "fact");
  EXPECT_EQ(Count("semantic_entities", "norm_name LIKE '%phantom%'"), 0);
  const Json got = Ok("memory_get", {{"id", id}});
  ASSERT_EQ(got["memory"]["entities"].size(), 1u) << got.dump();
  EXPECT_EQ(got["memory"]["entities"][0]["name"], "pkg/real/present.go");
}

// A name is stored once when it is its own normalized form (the row's `name` is empty and
// reads back as norm_name); a name that normalizes to something else keeps its spelling.
// Search folds the query as names are folded, so full-width and upper case find both.
TEST_F(GraphTest, NamesAreStoredOnceAndReadBackWhole) {
  const std::string id = Remember("validateToken in src/auth/session.ts checks expiry", "fact");
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'src/auth/session.ts' AND name = ''"), 1);
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'validatetoken' AND name = 'validateToken'"), 1);
  std::set<std::string> names;
  const Json got = Ok("memory_get", {{"id", id}});
  for (const Json& e : got["memory"]["entities"]) names.insert(e["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"src/auth/session.ts", "validateToken"})) << got.dump();
  EXPECT_EQ(Ok("entity_graph", {{"query", "\uFF33\uFF25\uFF33\uFF33ION.TS"}})["entities"][0]["name"], "src/auth/session.ts");
  EXPECT_EQ(Ok("entity_graph", {{"query", "TETOK"}})["entities"][0]["name"], "validateToken");
  EXPECT_EQ(GraphOf("src/auth/session.ts")["entities"][0]["name"], "src/auth/session.ts");
  // A name as displayed finds it: a leading "./", a trailing '/', full-width or upper case,
  // also under 3 characters (the name-prefix search).
  Ok("entity_relate", {{"from", "./src/Auth/Session.ts"}, {"type", "depends_on"}, {"to", "Ｒｅｄｉｓ/"}});
  EXPECT_EQ(Ok("entity_graph", {{"query", "./src/auth"}})["entities"][0]["name"], "src/auth/session.ts");
  EXPECT_EQ(Ok("entity_graph", {{"query", "ＲＥＤＩＳ/"}})["entities"][0]["name"], "Ｒｅｄｉｓ/");
  EXPECT_EQ(Ok("entity_graph", {{"query", "Ｒｅ"}})["entities"][0]["name"], "Ｒｅｄｉｓ/");
  rt_->Db().exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
}

TEST_F(GraphTest, BadInputIsRefusedAndChangesNothing) {
  Ok("entity_relate", {{"from", "x"}, {"type", "uses"}, {"to", "y"}});
  const std::string before = Snapshot();
  EXPECT_NE(Err("entity_graph", {{"entity", "x"}, {"as_of", "last week"}}).find("RFC 3339"), std::string::npos);
  EXPECT_NE(Err("entity_graph", {{"entity", "x"}, {"query", "x"}}).find("exactly one"), std::string::npos);
  EXPECT_NE(Err("entity_graph", Json::object()).find("exactly one"), std::string::npos);
  EXPECT_NE(Err("entity_graph", {{"entity", "nope"}}).find("unknown entity"), std::string::npos);
  EXPECT_NE(Err("entity_relate", {{"from", "x"}, {"type", "uses!"}, {"to", "z"}}).find("snake_case"), std::string::npos);
  EXPECT_NE(Err("entity_relate", {{"from", "x"}, {"type", "uses"}, {"to", "X"}}).find("same entity"), std::string::npos);
  EXPECT_NE(Err("entity_relate", {{"from", "x"}, {"type", "uses"}, {"to", "z"}, {"valid_from", "2026-02-01"},
                                  {"valid_to", "2026-01-01"}})
                .find("valid_to"),
            std::string::npos);
  EXPECT_NE(Err("entity_relate", {{"from", "x"}, {"type", "uses"}, {"to", "z"}, {"valid_from", "soon"}})
                .find("valid_from"),
            std::string::npos);
  EXPECT_NE(Err("entity_unrelate", {{"from", "x"}, {"type", "uses"}, {"to", "nope"}}).find("unknown entity"),
            std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

}  // namespace
}  // namespace kioku::semantic::testing
