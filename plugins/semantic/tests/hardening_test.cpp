// Issue 9 (data side) for the semantic layer: secrets in every argument, Unicode matching
// keys (and their migration), anchors confined through symlinks, epoch time filters, and
// operator-only queries.

#include <filesystem>
#include <fstream>

#include <SQLiteCpp/Database.h>

#include "anchors.hpp"
#include "entity_store.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/ids.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "schema.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

constexpr const char* kStripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

class HardeningTest : public SemanticTest {};

TEST_F(HardeningTest, SecretsInAnyArgumentAreRefusedWithTheirPath) {
  const std::string before = Snapshot();
  for (const auto& [args, path] : std::vector<std::pair<Json, std::string>>{
           {{{"text", "deploy key rotated"}, {"kind", "fact"}, {"tags", {"ops", kStripe}}}, "tags[1]"},
           {{{"text", "deploy key rotated"}, {"kind", "fact"}, {"subject", kStripe}, {"value", "x"}}, "subject"},
           {{{"text", "deploy key rotated"}, {"kind", "fact"}, {"path", std::string("src/") + kStripe}}, "path"},
           {{{"text", "deploy key rotated"}, {"kind", "fact"},
             {"anchor", std::string("file-contains .env ") + kStripe}}, "anchor"},
           {{{"text", "the DB password is hunter2hunter2 for staging"}, {"kind", "fact"}}, "text"},
       }) {
    const std::string msg = Err("memory_remember", args);
    EXPECT_NE(msg.find("`" + path + "`"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(kStripe), std::string::npos) << msg;
    EXPECT_EQ(msg.find("hunter2hunter2"), std::string::npos) << msg;
  }
  const std::string batch = Err("memory_remember",
                                {{"memories", {{{"text", "ok"}, {"kind", "fact"}},
                                               {{"text", "ok 2"}, {"kind", "fact"}, {"tags", {kStripe}}}}}});
  EXPECT_NE(batch.find("tags[0]"), std::string::npos) << batch;
  EXPECT_NE(batch.find("stripe-key"), std::string::npos) << batch;
  const std::string id = Remember("plain fact");
  EXPECT_NE(Err("memory_edit", {{"id", id}, {"tags", {kStripe}}}).find("`tags[0]`"), std::string::npos);
  EXPECT_NE(Err("entity_relate", {{"from", "svc"}, {"type", "uses"}, {"to", kStripe}}).find("`to`"),
            std::string::npos);
  EXPECT_EQ(Count("semantic_memories"), 1);
  EXPECT_NE(Snapshot(), before);  // only the plain fact was stored
}

TEST_F(HardeningTest, UnicodeVariantsShareOneKey) {
  EXPECT_EQ(NormalizeText("Taro\u00A0"), NormalizeText("taro"));
  EXPECT_EQ(NormalizeText("\uFF34\uFF41\uFF52\uFF4F"), "taro");  // fullwidth Ｔａｒｏ
  EXPECT_EQ(NormalizeText("cafe\u0301"), NormalizeText("caf\u00E9"));
  EXPECT_EQ(NormalizeText("STRASSE"), NormalizeText("stra\u00DFe"));
  EXPECT_EQ(NormalizeText("a\u3000\u2003b"), "a b");
  EXPECT_EQ(NormalizeTag("#Caf\u00E9\u00A0Bar"), NormalizeTag("cafe\u0301-bar"));

  Remember("Taro prefers the caf\u00E9 on 3rd street");
  const Json again = Ok("memory_remember",
                        {{"text", "\uFF34\uFF41\uFF52\uFF4F\u00A0prefers the cafe\u0301 on 3rd street"},
                         {"kind", "fact"}});
  EXPECT_EQ(again["results"][0]["action"], "reaffirmed");
  EXPECT_EQ(Count("semantic_memories"), 1);
  // Stored text stays as written.
  EXPECT_EQ(Count("semantic_memories", "text = 'Taro prefers the caf\u00E9 on 3rd street'"), 1);

  Ok("entity_relate", {{"from", "Taro\u00A0"}, {"type", "works_on"}, {"to", "kioku"}});
  Ok("entity_relate", {{"from", "\uFF34\uFF41\uFF52\uFF4F"}, {"type", "works_on"}, {"to", "kioku"}});
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'taro'"), 1);
  EXPECT_EQ(Count("semantic_relations"), 1);
}

TEST(UnicodeMigration, RekeysStoredKeysAndMergesEntities) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), 4u);
  db.exec(migrations[0].sql);
  db.exec(migrations[1].sql);
  // Rows as version 2 keyed them (ASCII folding only).
  db.exec(
      "INSERT INTO semantic_entities(seq, id, type, name, norm_name, created_at) VALUES "
      "(1, 'E1', 'concept', 'Taro', 'taro', 0), "
      "(2, 'E2', 'concept', '\uFF34\uFF41\uFF52\uFF4F', '\uFF34\uFF41\uFF52\uFF4F', 0), "
      "(3, 'E3', 'concept', 'kioku', 'kioku', 0)");
  db.exec(
      "INSERT INTO semantic_relations(id, from_seq, type, to_seq, valid_from, recorded_at) "
      "VALUES ('R1', 2, 'works_on', 3, 0, 0)");
  db.exec(
      "INSERT INTO semantic_memories(id, kind, text, subject, tags, status, scope, captured_at, "
      "updated_at, dedup_hash) VALUES ('M1', 'fact', 'x', 'Caf\u00E9\u00A0Menu', "
      "'Caf\u00E9', 'active', 'global', 0, 0, 0)");
  db.exec("INSERT INTO semantic_memory_tags(tag, memory_seq) VALUES ('Caf\u00E9', 1)");
  // Indexed as the writers index new rows (version 2 has no insert triggers).
  db.exec("INSERT INTO semantic_entities_fts(rowid, name) SELECT seq, name FROM semantic_entities");
  db.exec("INSERT INTO semantic_fts(rowid, text, subject, value, tags) SELECT seq, text, subject, "
          "value, tags FROM semantic_memories");
  db.exec("INSERT INTO semantic_fts_trigram(rowid, text) SELECT seq, text FROM semantic_memories");
  migrations[3].apply(db);  // 3 rewrites project keys (nothing to move here)
  db.exec("INSERT INTO semantic_fts(semantic_fts) VALUES ('integrity-check')");
  db.exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
  SQLite::Statement e(db, "SELECT COUNT(*) FROM semantic_entities");
  e.executeStep();
  EXPECT_EQ(e.getColumn(0).getInt(), 2);
  SQLite::Statement r(db, "SELECT from_seq FROM semantic_relations");
  r.executeStep();
  EXPECT_EQ(r.getColumn(0).getInt(), 1);
  SQLite::Statement m(db, "SELECT subject, tags, dedup_hash FROM semantic_memories");
  m.executeStep();
  EXPECT_EQ(m.getColumn(0).getString(), "caf\u00E9-menu");
  EXPECT_EQ(m.getColumn(1).getString(), "caf\u00E9");
  Scope global;
  global.kind = "global";
  EXPECT_EQ(m.getColumn(2).getInt64(), DedupHash("fact", global, "caf\u00E9-menu", "", "x"));
  SQLite::Statement t(db, "SELECT tag FROM semantic_memory_tags");
  t.executeStep();
  EXPECT_EQ(t.getColumn(0).getString(), "caf\u00E9");
}

// Version 7 rebuilds the substring indexes without positions; what version 6 indexed is
// found again, and the indexes agree with their content tables.
TEST(SubstringIndexMigration, RebuildsTheTrigramIndexesWithoutPositions) {
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), 7u);
  ASSERT_EQ(migrations[6].version, 7);
  SQLite::Database db = MigratedTo(6);
  db.exec("INSERT INTO semantic_memories(id, kind, text, status, scope, captured_at, updated_at, dedup_hash) "
          "VALUES ('M1', 'fact', 'Authentication uses PKCE', 'active', 'global', 0, 0, 0)");
  db.exec("INSERT INTO semantic_entities(id, type, name, norm_name, created_at) "
          "VALUES ('E1', 'file', 'src/auth/session.ts', 'src/auth/session.ts', 0)");
  db.exec("INSERT INTO semantic_fts_trigram(rowid, text) SELECT seq, text FROM semantic_memories");
  db.exec("INSERT INTO semantic_entities_fts(rowid, name) SELECT seq, name FROM semantic_entities");
  db.exec(migrations[6].sql);
  for (const char* t : {"semantic_fts_trigram", "semantic_entities_fts"}) {
    db.exec(std::string("INSERT INTO ") + t + "(" + t + ") VALUES ('integrity-check')");
    SQLite::Statement q(db, std::string("SELECT sql FROM sqlite_schema WHERE name = '") + t + "'");
    ASSERT_TRUE(q.executeStep());
    EXPECT_NE(q.getColumn(0).getString().find("detail=none"), std::string::npos) << t;
  }
  SQLite::Statement m(db, "SELECT rowid, kioku_substrings(semantic_fts_trigram, 'thentic') FROM semantic_fts_trigram "
                          "WHERE semantic_fts_trigram MATCH ?");
  m.bind(1, *sdk::TrigramMatch("thentic"));
  ASSERT_TRUE(m.executeStep());
  EXPECT_EQ(m.getColumn(1).getInt(), 1);
  SQLite::Statement e(db, "SELECT count(*) FROM semantic_entities_fts WHERE semantic_entities_fts MATCH ?");
  e.bind(1, *sdk::TrigramMatch("session.ts"));
  e.executeStep();
  EXPECT_EQ(e.getColumn(0).getInt(), 1);
}

// Version 9 stores an entity's name once: emptied where it equals norm_name, and the name
// index rebuilt over the normalized names; a store of version 8 keeps every name readable
// and findable.
TEST(EntityNamesMigration, EmptiesNamesThatEqualTheirNormalFormAndReindexes) {
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), 9u);
  ASSERT_EQ(migrations[8].version, 9);
  SQLite::Database db = MigratedTo(8);
  db.exec("INSERT INTO semantic_entities(id, type, name, norm_name, created_at) VALUES "
          "('E1', 'file', 'src/auth/session.ts', 'src/auth/session.ts', 0), "
          "('E2', 'identifier', 'validateToken', 'validatetoken', 0)");
  db.exec("INSERT INTO semantic_entities_fts(rowid, name) SELECT seq, name FROM semantic_entities");
  db.exec(migrations[8].sql);
  SQLite::Statement names(db, "SELECT name, norm_name FROM semantic_entities ORDER BY seq");
  ASSERT_TRUE(names.executeStep());
  EXPECT_EQ(names.getColumn(0).getString(), "");
  ASSERT_TRUE(names.executeStep());
  EXPECT_EQ(names.getColumn(0).getString(), "validateToken");
  db.exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
  for (const char* needle : {"session.t", "etok"}) {
    SQLite::Statement q(db, "SELECT count(*) FROM semantic_entities_fts WHERE semantic_entities_fts MATCH ? AND "
                            "kioku_substrings(semantic_entities_fts, ?) > 0");
    q.bind(1, *sdk::TrigramMatch(needle));
    q.bind(2, needle);
    q.executeStep();
    EXPECT_EQ(q.getColumn(0).getInt(), 1) << needle;
  }
}

// Version 12 drops the stored entity ids: the ids handed out before stay valid (kept in
// semantic_entity_ids, found by id and prefix, deleted with their entity), entities made
// after are named by sdk::DerivedId, and the table rebuild loses no link or relation.
TEST(DerivedEntityIdsMigration, KeepsIdsHandedOutAndNamesNewEntitiesByDerivedIds) {
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), 12u);
  ASSERT_EQ(migrations[11].version, 12);
  SQLite::Database db = MigratedTo(11);  // foreign keys on, as a server has them
  db.exec("INSERT INTO semantic_memories(id, kind, text, status, scope, captured_at, updated_at, dedup_hash) "
          "VALUES ('M1', 'fact', 'session.ts uses jose', 'active', 'global', 0, 0, 0)");
  db.exec("INSERT INTO semantic_entities(id, type, name, norm_name, created_at) VALUES "
          "('01JF0000000000000000000AAA', 'file', '', 'src/auth/session.ts', 5), "
          "('01JF0000000000000000000BBB', 'library', '', 'jose', 5)");
  db.exec("INSERT INTO semantic_entities_fts(rowid, norm_name) SELECT seq, norm_name FROM semantic_entities");
  db.exec("INSERT INTO semantic_memory_entities(memory_seq, entity_seq) VALUES (1, 1), (1, 2)");
  db.exec("INSERT INTO semantic_relations(id, from_seq, type, to_seq, valid_from, recorded_at) "
          "VALUES ('R1', 1, 'uses', 2, 0, 0)");
  db.exec("BEGIN");
  db.exec(migrations[11].sql);
  db.exec("COMMIT");

  EXPECT_FALSE(db.execAndGet("SELECT count(*) FROM pragma_table_info('semantic_entities') WHERE name = 'id'").getInt());
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM pragma_foreign_key_check").getInt(), 0);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM semantic_memory_entities").getInt(), 2);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM semantic_relations").getInt(), 1);
  db.exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
  for (std::size_t i = 12; i < migrations.size(); ++i) {  // the code reads today's schema
    const sdk::MigrationForeignKeys keys(db, migrations[i]);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[i]); });
  }
  EXPECT_EQ(LoadEntity(db, 1)->id, "01JF0000000000000000000AAA");
  EXPECT_EQ(LoadEntity(db, 1)->type, "file");
  EXPECT_EQ(ResolveEntityId(db, "01jf0000000000000000000bbb"), 2);  // either case
  EXPECT_EQ(ResolveEntityId(db, "01JF0000000000000000000B"), 2);     // a prefix
  EXPECT_THROW(ResolveEntityId(db, "01JF0000"), sdk::ToolError);     // both
  EXPECT_EQ(ResolveEntityId(db, "01JG"), std::nullopt);

  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'sign', 1796513101620)");
  const Entity made = *LoadEntity(db, 3);
  EXPECT_EQ(made.id, sdk::DerivedId(1796513101620, 3));
  EXPECT_EQ(ResolveEntityId(db, made.id), 3);
  EXPECT_EQ(ResolveEntityId(db, made.id.substr(0, 12)), 3);
  EXPECT_EQ(ResolveEntityId(db, sdk::DerivedId(5, 1)), 1);  // a kept id's entity answers to its derived id too
  // A purged entity's seq is never given again (AUTOINCREMENT), so its id names nothing
  // even when the next entity is made in the same millisecond.
  db.exec("DELETE FROM semantic_entities WHERE seq = 3");
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'verify', 1796513101620)");
  EXPECT_EQ(db.execAndGet("SELECT max(seq) FROM semantic_entities").getInt(), 4);
  EXPECT_EQ(ResolveEntityId(db, made.id), std::nullopt);
  // A creation time outside what a ULID holds is clamped alike when the id is shown and read.
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'odd', -5)");
  EXPECT_EQ(ResolveEntityId(db, LoadEntity(db, 5)->id), 5);
  db.exec("DELETE FROM semantic_memory_entities WHERE entity_seq = 1");
  db.exec("DELETE FROM semantic_relations");
  db.exec("DELETE FROM semantic_entities WHERE seq = 1");
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM semantic_entity_ids").getInt(), 1);  // went with its entity
}

TEST_F(HardeningTest, EpochUntilIsAFilterNotUnset) {
  Remember("fact captured now");
  EXPECT_TRUE(RecallIds({{"until", "1970-01-01T00:00:00Z"}}).empty());
  EXPECT_EQ(RecallIds({{"since", "1970-01-01T00:00:00Z"}}).size(), 1u);
}

TEST_F(HardeningTest, OperatorOnlyQueriesAreRefusedLikePunctuation) {
  Remember("we ship on Friday and not before");
  const std::string ops = Err("memory_recall", {{"query", "AND OR NOT"}});
  const std::string punct = Err("memory_recall", {{"query", "?!-- *"}});
  EXPECT_EQ(ops, punct);
  EXPECT_NE(ops.find("no searchable words"), std::string::npos);
  EXPECT_EQ(Err("entity_graph", {{"query", "NOT NEAR"}}), ops);
  // With a real word, operator words are literal words.
  EXPECT_EQ(RecallIds({{"query", "Friday AND NOT"}}).size(), 1u);
}

TEST_F(HardeningTest, AnchorsCannotLeaveTheProjectThroughSymlinks) {
  namespace fs = std::filesystem;
  const fs::path root = rt_->dir / "project";
  const fs::path outside = rt_->dir / "outside";
  fs::create_directories(root);
  fs::create_directories(outside);
  std::ofstream(outside / "secret.txt") << "guess-me";
  fs::create_directory_symlink(outside, root / "leak");
  sdk::Caller caller;
  caller.agent_id = "a";
  caller.project_id = "proj";
  caller.project_root = root.string();
  const std::string msg = Err("memory_remember",
                              {{"text", "leak holds it"}, {"kind", "fact"},
                               {"anchor", "file-contains leak/secret.txt guess-me"}},
                              caller);
  EXPECT_NE(msg.find("outside the project"), std::string::npos) << msg;
  EXPECT_EQ(Count("semantic_memories"), 0);
  // Stored before the link existed, or by an older kioku: recall cannot confirm or deny.
  EXPECT_EQ(EvaluateAnchor("file-contains leak/secret.txt guess-me", root.string(), 0), "unverified");
  EXPECT_EQ(EvaluateAnchor("file-contains leak/secret.txt wrong", root.string(), 0), "unverified");
  EXPECT_EQ(EvaluateAnchor("file-exists leak/secret.txt", root.string(), 0), "unverified");
  std::ofstream(root / "inside.txt") << "hello";
  EXPECT_EQ(EvaluateAnchor("file-contains inside.txt hello", root.string(), 0), "affirmed");
}

// A file past the anchor read bound (1 MiB): a match inside the bound decides; a needle that
// may sit beyond it gives no verdict instead of a wrong one.
TEST_F(HardeningTest, AnchorsOnFilesPastTheReadBoundAreUnverifiedUnlessMatchedEarly) {
  namespace fs = std::filesystem;
  const fs::path root = rt_->dir / "big";
  fs::create_directories(root);
  {
    std::ofstream out(root / "big.txt", std::ios::binary);
    out << "early-marker\n" << std::string((1 << 20) + 4096, 'x') << "\nlate-marker\n";
  }
  EXPECT_EQ(EvaluateAnchor("file-contains big.txt early-marker", root.string(), 0), "affirmed");
  EXPECT_EQ(EvaluateAnchor("file-not-contains big.txt early-marker", root.string(), 0), "contradicted");
  EXPECT_EQ(EvaluateAnchor("file-contains big.txt late-marker", root.string(), 0), "unverified");
  EXPECT_EQ(EvaluateAnchor("file-not-contains big.txt late-marker", root.string(), 0), "unverified");
  std::ofstream(root / "small.txt") << "only this";
  EXPECT_EQ(EvaluateAnchor("file-contains small.txt absent", root.string(), 0), "contradicted");
}

}  // namespace
}  // namespace kioku::semantic::testing
