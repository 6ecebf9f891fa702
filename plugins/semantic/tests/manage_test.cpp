// memory_get, memory_list, memory_edit, memory_forget, memory_pin/unpin: history, paging,
// id prefixes, soft vs purge, and bad ids.

#include <set>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/text.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

TEST_F(SemanticTest, GetShowsFullMemoryHistoryEntitiesAndSupersession) {
  const std::string old_id = Remember("Use npm in scripts/build.sh", "decision",
                                      {{"subject", "pm"}, {"value", "npm"}});
  AdvanceDays(1);
  const std::string id = Remember("Use pnpm in scripts/build.sh", "decision",
                                  {{"subject", "pm"}, {"value", "pnpm"}, {"tags", {"build"}}});
  Ok("memory_edit", {{"id", id}, {"importance", 8}});
  sdk::ToolResult r = Call("memory_get", {{"id", id.substr(0, 20)}});
  ASSERT_FALSE(r.is_error) << r.text;
  const Json& m = r.structured["memory"];
  EXPECT_EQ(m["id"], id);
  EXPECT_EQ(m["importance"], 8);
  EXPECT_EQ(m["tags"], Json::array({"build"}));
  EXPECT_EQ(m["supersedes"], Json::array({old_id}));
  ASSERT_EQ(m["history"].size(), 1u);
  EXPECT_EQ(m["history"][0]["action"], "edited");
  EXPECT_EQ(m["history"][0]["previous"]["importance"], 5);
  bool has_file = false;
  for (const Json& e : m["entities"]) has_file |= e["name"] == "scripts/build.sh";
  EXPECT_TRUE(has_file);
  Json old = Ok("memory_get", {{"id", old_id}})["memory"];
  EXPECT_EQ(old["status"], "superseded");
  EXPECT_EQ(old["superseded_by"], id);
}

TEST_F(SemanticTest, IdPrefixesUnknownAndAmbiguous) {
  // Memories made in the same millisecond share their first 10 characters (the time); the
  // next four are a nonce (sdk::SeqId) that differs between them.
  Json s = Ok("memory_remember", {{"memories", {{{"text", "one"}, {"kind", "fact"}},
                                                {{"text", "two"}, {"kind", "fact"}}}}});
  const std::string a = s["results"][0]["id"];
  const std::string before = Snapshot();
  std::string msg = Err("memory_get", {{"id", a.substr(0, 10)}});
  EXPECT_NE(msg.find("matches several"), std::string::npos) << msg;
  EXPECT_NE(msg.find(a), std::string::npos) << msg;  // lists the matches
  msg = Err("memory_forget", {{"id", "ZZZZZZZZ"}});
  EXPECT_NE(msg.find("unknown memory id"), std::string::npos) << msg;
  msg = Err("memory_edit", {{"id", "01"}, {"text", "x"}});
  EXPECT_NE(msg.find("at least 4"), std::string::npos) << msg;
  msg = Err("memory_pin", {{"id", "0000000000000000000000000Z"}});
  EXPECT_NE(msg.find("unknown"), std::string::npos) << msg;
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(Ok("memory_get", {{"id", a}})["memory"]["text"], "one");
}

TEST_F(SemanticTest, ListPagesNewestFirstWithFilters) {
  std::vector<std::string> ids;
  for (int i = 0; i < 7; ++i) {
    ids.push_back(Remember("list item " + std::to_string(i), i % 2 ? "fact" : "todo"));
    AdvanceDays(0.01);
  }
  Json p1 = Ok("memory_list", {{"limit", 3}});
  ASSERT_EQ(p1["memories"].size(), 3u);
  EXPECT_EQ(p1["memories"][0]["id"], ids[6]);
  ASSERT_TRUE(p1.contains("next_cursor"));
  Json p2 = Ok("memory_list", {{"limit", 3}, {"cursor", p1["next_cursor"]}});
  EXPECT_EQ(p2["memories"][0]["id"], ids[3]);
  Json p3 = Ok("memory_list", {{"limit", 3}, {"cursor", p2["next_cursor"]}});
  EXPECT_EQ(p3["memories"].size(), 1u);
  EXPECT_FALSE(p3.contains("next_cursor"));
  EXPECT_EQ(Ok("memory_list", {{"kinds", {"todo"}}})["memories"].size(), 4u);
  Ok("memory_forget", {{"id", ids[0]}});
  EXPECT_EQ(Ok("memory_list", Json::object())["memories"].size(), 6u);
  EXPECT_EQ(Ok("memory_list", {{"status", {"superseded"}}})["memories"].size(), 1u);
  EXPECT_NE(Err("memory_list", {{"cursor", "garbage"}}).find("cursor"), std::string::npos);
}

TEST_F(SemanticTest, EditKeepsPreviousVersionAndReindexes) {
  const std::string id = Remember("Staging DB is db-1.internal", "fact", {{"tags", {"infra"}}});
  sdk::ToolResult r = Call("memory_edit", {{"id", id}, {"text", "Staging DB is db-2.internal"},
                                           {"tags", {"infra", "db"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["changed"], Json::array({"text", "tags"}));
  EXPECT_NE(r.text.find("previous version kept"), std::string::npos);
  EXPECT_EQ(RecallIds({{"query", "db-2"}}), std::vector<std::string>{id});
  EXPECT_EQ(Count("semantic_fts_trigram", "semantic_fts_trigram MATCH '" + *sdk::TrigramMatch("db-1") + "'"), 0);
  EXPECT_EQ(Count("semantic_fts_trigram", "semantic_fts_trigram MATCH '" + *sdk::TrigramMatch("db-2") + "'"), 1);
  EXPECT_EQ(RecallIds({{"query", "staging"}, {"tags", {"db"}}}), std::vector<std::string>{id});
  Json m = Ok("memory_get", {{"id", id}})["memory"];
  ASSERT_EQ(m["history"].size(), 1u);
  EXPECT_EQ(m["history"][0]["previous"]["text"], "Staging DB is db-1.internal");
  // The same edit again changes nothing.
  EXPECT_EQ(Ok("memory_edit", {{"id", id}, {"text", "Staging DB is db-2.internal"}})["changed"],
            Json::array());
}

TEST_F(SemanticTest, EditSubjectValueSupersedesRivalsAndConfirmsPending) {
  const std::string a = Remember("CI runs on GitHub Actions", "fact", {{"subject", "ci"}, {"value", "gha"}});
  Json s = Ok("memory_suggest", {{"text", "CI might be Buildkite"}, {"kind", "fact"},
                                 {"subject", "ci"}, {"value", "buildkite"}});
  const std::string b = s["results"][0]["id"];
  Json e = Ok("memory_edit", {{"id", b}, {"status", "active"}});
  EXPECT_EQ(e["replaced"], Json::array({a}));
  EXPECT_EQ(e["memory"]["status"], "active");
  EXPECT_EQ(Ok("memory_get", {{"id", a}})["memory"]["status"], "superseded");
  // Editing a superseded memory is refused and names its successor.
  const std::string msg = Err("memory_edit", {{"id", a}, {"text", "x"}});
  EXPECT_NE(msg.find(b), std::string::npos) << msg;
}

TEST_F(SemanticTest, EditBadInputChangesNothing) {
  const std::string id = Remember("Edit target", "fact");
  const std::string other = Remember("Other memory", "fact");
  const std::string before = Snapshot();
  EXPECT_NE(Err("memory_edit", {{"id", id}}).find("nothing to change"), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"kind", "gossip"}}).find("kind"), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"importance", 42}}).find("importance"), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"text", "  "}}).find("empty"), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"value", "v"}}).find("subject"), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"expires", "soon"}}).find("RFC 3339"), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"text", "Other memory"}}).find(other), std::string::npos);
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"text", "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD"}})
                .find("secret"),
            std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(SemanticTest, ForgetIsSoftAndAuditedPurgeDeletes) {
  const std::string id = Remember("Wrong fact about src/x.ts", "fact");
  sdk::ToolResult r = Call("memory_forget", {{"id", id}});
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(r.structured["action"], "forgotten");
  EXPECT_TRUE(RecallIds({{"query", "wrong fact"}}).empty());
  EXPECT_EQ(Count("semantic_memories", IdIs(id) + " AND status = 'superseded'"), 1);
  EXPECT_EQ(Count("semantic_memory_history", "action = 'forgotten'"), 1);
  EXPECT_EQ(Ok("memory_forget", {{"id", id}})["action"], "already_forgotten");

  r = Call("memory_forget", {{"id", id}, {"purge", true}});
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(r.structured["action"], "purged");
  EXPECT_NE(r.text.find("deleted for real"), std::string::npos);
  EXPECT_EQ(Count("semantic_memories"), 0);
  EXPECT_EQ(Count("semantic_memory_entities"), 0);
  EXPECT_EQ(Count("semantic_memory_history", "memory_id = '" + id + "'"), 1);  // 'purged' row
  EXPECT_EQ(Count("semantic_memory_history", "snapshot IS NOT NULL"), 0);
  // FTS rows went with it.
  EXPECT_EQ(Count("semantic_fts", "semantic_fts MATCH 'wrong'"), 0);
  EXPECT_EQ(Count("semantic_fts_trigram", "semantic_fts_trigram MATCH '" + *sdk::TrigramMatch("wrong") + "'"), 0);
  EXPECT_NE(Err("memory_get", {{"id", id}}).find("unknown"), std::string::npos);
}

TEST_F(SemanticTest, PinAndUnpin) {
  const std::string id = Remember("Always run make check before pushing", "preference");
  Json p = Ok("memory_pin", {{"id", id}});
  EXPECT_EQ(p["status"], "pinned");
  EXPECT_TRUE(p["changed"]);
  EXPECT_FALSE(Ok("memory_pin", {{"id", id}})["changed"]);
  Json u = Ok("memory_pin", {{"id", id}, {"pinned", false}});
  EXPECT_EQ(u["status"], "active");
  EXPECT_FALSE(Ok("memory_pin", {{"id", id}, {"pinned", false}})["changed"]);
  Ok("memory_forget", {{"id", id}});
  EXPECT_NE(Err("memory_pin", {{"id", id}}).find("superseded"), std::string::npos);
}

TEST_F(SemanticTest, FtsStaysInSyncThroughEveryWrite) {
  const std::string id = Remember("東京 cache lives in var/cache", "fact");
  Ok("memory_edit", {{"id", id}, {"text", "大阪 cache lives in var/tmp"}});
  EXPECT_EQ(Count("semantic_fts_cjk", "semantic_fts_cjk MATCH '\"大阪\"'"), 1);
  EXPECT_EQ(Count("semantic_fts_cjk", "semantic_fts_cjk MATCH '\"東京\"'"), 0);
  // FTS5 integrity check of external-content tables compares index and content.
  for (const char* t : {"semantic_fts", "semantic_fts_trigram", "semantic_fts_cjk"}) {
    rt_->Db().exec(std::string("INSERT INTO ") + t + "(" + t + ") VALUES('integrity-check')");
  }
  Ok("memory_forget", {{"id", id}, {"purge", true}});
  for (const char* t : {"semantic_fts", "semantic_fts_trigram", "semantic_fts_cjk"}) {
    rt_->Db().exec(std::string("INSERT INTO ") + t + "(" + t + ") VALUES('integrity-check')");
  }
}

// Every result fits the host's byte cap (RuntimeOptions::max_result_bytes, 48 KiB here):
// before, memory_list {"limit":100} of 600-character memories returned ~260 KB.
std::size_t ResultBytes(const sdk::ToolResult& r) { return r.text.size() + sdk::DumpJson(r.structured).size(); }

std::string Long(int i) {
  std::string t = "memory " + std::to_string(i) + ":";
  while (t.size() < 600) t += " lambda mu nu xi omicron " + std::to_string(i);
  return t.substr(0, 600);
}

TEST_F(SemanticTest, MemoryListPagesUnderTheResultCapWithoutLosingAny) {
  for (int start = 0; start < 100; start += 50) {
    Json batch = Json::array();
    for (int i = start; i < start + 50; ++i) batch.push_back({{"text", Long(i)}, {"kind", "fact"}});
    Ok("memory_remember", {{"memories", batch}});
  }
  std::set<std::string> seen;
  Json args = {{"limit", 100}};
  int pages = 0;
  for (;; ++pages) {
    sdk::ToolResult r = Call("memory_list", args);
    ASSERT_FALSE(r.is_error) << r.text;
    EXPECT_LE(ResultBytes(r), 48u * 1024);
    for (const Json& m : r.structured["memories"]) EXPECT_TRUE(seen.insert(m["id"]).second);
    if (!r.structured.contains("next_cursor")) break;
    args["cursor"] = r.structured["next_cursor"];
  }
  EXPECT_GE(pages, 1);  // one page could not hold them all
  EXPECT_EQ(seen.size(), 100u);
}

TEST_F(SemanticTest, MemoryGetOfAMuchEditedMemoryFitsAndKeepsTheLatest) {
  const std::string id = Remember(Long(0), "fact");
  for (int k = 1; k <= 200; ++k) Ok("memory_edit", {{"id", id}, {"text", "edit " + std::to_string(k) + " " + Long(k)}});
  sdk::ToolResult r = Call("memory_get", {{"id", id}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_LE(ResultBytes(r), 48u * 1024);  // before: ~3.4 MB with 200 previous versions
  const Json& m = r.structured["memory"];
  EXPECT_EQ(m["text"].get<std::string>().rfind("edit 200 ", 0), 0u);
  EXPECT_GT(m.value("history_omitted", 0) + m.value("previous_versions_omitted", 0), 0);
  EXPECT_FALSE(m["history"].empty());
}

TEST_F(SemanticTest, EntityGraphFitsTheResultCapAndCountsWhatItLeftOut) {
  Start(Json{{"graph", {{"max_relations", 5000}}}});
  for (int k = 0; k < 600; ++k) {
    Ok("entity_relate", {{"from", "postgres"}, {"type", "depends_on"},
                         {"to", "a-rather-long-service-name-number-" + std::to_string(k)}});
  }
  sdk::ToolResult r = Call("entity_graph", {{"entity", "postgres"}, {"limit", 5000}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_LE(ResultBytes(r), 48u * 1024);
  EXPECT_TRUE(r.structured["truncated"].get<bool>());
  EXPECT_EQ(r.structured["omitted"].get<int>() + static_cast<int>(r.structured["relations"].size()), 600);
}

}  // namespace
}  // namespace kioku::semantic::testing
