// Interned keys (migration 16, keys.hpp): a memory's project, agent and session are keys of
// semantic_keys. The migration keeps every memory's texts, the code reads and filters by
// them, and an interner's keys do not outlive a rolled-back transaction.

#include <SQLiteCpp/Database.h>

#include "entity_store.hpp"
#include "keys.hpp"
#include "memory.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

TEST(InternedKeysMigration, KeepsEveryMemorysProjectAgentAndSession) {
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), static_cast<std::size_t>(kInternedKeysVersion));
  SQLite::Database db = MigratedTo(kInternedKeysVersion - 1);
  db.exec("INSERT INTO semantic_memories(kind, text, subject, value, status, scope, project_id, agent_id, session_id, "
          "captured_at, updated_at, dedup_hash, id_nonce) VALUES "
          "('fact', 'api uses jose', 'jwt', 'jose', 'active', 'project', 'github.com/acme/api', 'claude', 's1', 5, 5, 1, 9), "
          "('fact', 'web uses jose', 'jwt', 'jose', 'active', 'project', 'github.com/acme/web', 'claude', 's2', 6, 6, 2, 9), "
          "('preference', 'tabs, never spaces', '', '', 'active', 'global', '', 'codex', '', 7, 7, 3, 9), "
          "('fact', 'no session', '', '', 'active', 'global', '', '', '', 8, 8, 4, 9)");
  const std::string ids_before = db.execAndGet("SELECT group_concat(id) FROM semantic_memory_ids").getString();
  sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[kInternedKeysVersion - 1]); });

  for (const char* gone : {"project_id", "agent_id", "session_id"}) {
    EXPECT_EQ(Int(db, std::string("SELECT count(*) FROM pragma_table_info('semantic_memories') WHERE name = '") + gone + "'"), 0)
        << gone;
  }
  // One key a distinct text; "" is seq 0, which no row holds and every empty column has.
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_keys"), 6);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_keys WHERE seq = 0 OR text = ''"), 0);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_memories WHERE project_key = 0 AND session_key = 0"), 2);
  EXPECT_EQ(db.execAndGet("SELECT group_concat(id) FROM semantic_memory_ids").getString(), ids_before);
  const std::optional<Memory> api = LoadMemoryBySeq(db, 1);
  ASSERT_TRUE(api);
  EXPECT_EQ(api->scope.project_id, "github.com/acme/api");
  EXPECT_EQ(api->agent_id, "claude");
  EXPECT_EQ(api->session_id, "s1");
  const std::optional<Memory> global = LoadMemoryBySeq(db, 4);
  ASSERT_TRUE(global);
  EXPECT_EQ(global->scope.project_id, "");
  EXPECT_EQ(global->agent_id, "");
  EXPECT_EQ(global->session_id, "");
  // The subject index is made again over the key, and the row epoch watches it.
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_index_info('semantic_memories_subject') WHERE name = 'project_key'"), 1);
  const auto epoch = [&] { return Int(db, "SELECT coalesce(max(epoch), 0) FROM semantic_row_epoch"); };
  const std::int64_t e0 = epoch();
  db.exec("UPDATE semantic_memories SET project_key = (SELECT project_key FROM semantic_memories WHERE seq = 1) WHERE seq = 2");
  EXPECT_EQ(epoch(), e0 + 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'"), 0);
}

TEST(KeyInterner, GivesOneKeyATextAndNothingOfARolledBackTransaction) {
  SQLite::Database db = MigratedTo(Migrations().size());
  sdk::StatementCache statements;
  std::int64_t a = 0, b = 0;
  sdk::WithWriteTransaction(db, [&] {
    KeyInterner keys;
    a = keys.Key(db, statements, "github.com/acme/api");
    EXPECT_EQ(keys.Key(db, statements, "github.com/acme/api"), a);
    b = keys.Key(db, statements, "s1");
    EXPECT_EQ(keys.Key(db, statements, ""), 0);
  });
  EXPECT_NE(a, b);
  EXPECT_GT(a, 0);
  EXPECT_THROW(sdk::WithWriteTransaction(db, [&] {
                 KeyInterner keys;
                 EXPECT_GT(keys.Key(db, statements, "rolled back"), b);
                 throw std::runtime_error("abort");
               }),
               std::runtime_error);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_keys WHERE text = 'rolled back'"), 0);
  sdk::WithWriteTransaction(db, [&] {
    KeyInterner keys;  // a new one per transaction: finds what is there, adds what is not
    EXPECT_EQ(keys.Key(db, statements, "github.com/acme/api"), a);
    const std::int64_t c = keys.Key(db, statements, "s2");
    EXPECT_EQ(db.execAndGet("SELECT text FROM " + std::string("semantic_keys WHERE seq = ") + std::to_string(c)).getString(),
              "s2");
  });
}

// Through the tools: memories of two projects, agents and sessions are each seen where they
// belong, and a recall's neighbours come from the hit's own session.
TEST_F(SemanticTest, ProjectsAgentsAndSessionsReadBackAsText) {
  const std::string id = Remember("the api signs tokens with jose", "fact");
  const Json got = Ok("memory_get", {{"id", id}});
  EXPECT_EQ(got["memory"].value("agent_id", ""), "test-agent") << got.dump();
  EXPECT_EQ(got["memory"].value("session_id", ""), "test-session") << got.dump();
  EXPECT_EQ(Int(rt_->Db(), "SELECT count(*) FROM semantic_keys WHERE text IN ('test-agent', 'test-session')"), 2);
}

// Reaffirm keys of 31 bits (migration 17): a store's 64-bit keys are cut to the bits a new
// write computes, so saying a memory again reaffirms it instead of storing it twice.
TEST(ShortDedupHashMigration, CutsStoredKeysToTheBitsWritesCompute) {
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), static_cast<std::size_t>(kInternedKeysVersion + 1));
  SQLite::Database db = MigratedTo(kInternedKeysVersion);
  Scope global;
  const std::int64_t full = KeyHash({"fact", "global", "", "", "", NormalizeText("deploys on fridays"),
                                     NormalizeText("deploys on fridays")});
  ASSERT_TRUE(full < 0 || full > kDedupHashMask) << "the example needs a key over 31 bits";
  SQLite::Statement ins(db, "INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash) "
                            "VALUES ('fact', 'deploys on fridays', 'active', 'global', 5, 5, ?)");
  sdk::Bind(ins, full);
  ins.exec();
  sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[kInternedKeysVersion]); });
  EXPECT_EQ(Int(db, "SELECT dedup_hash FROM semantic_memories"), DedupHash("fact", global, "", "deploys on fridays",
                                                                           "deploys on fridays"));
}

// Entity types interned (migration 18): the rebuilt table keeps every entity's seq, type and
// kept id, the links and relations pointing at it, and its AUTOINCREMENT counter, so a
// purged entity's seq (and with it its id) is never given again.
TEST(InternedEntityTypesMigration, KeepsEveryEntityItsLinksAndItsCounter) {
  const auto migrations = Migrations();
  const std::size_t step = kInternedKeysVersion + 1;  // 18: after the reaffirm keys
  ASSERT_GT(migrations.size(), step);
  ASSERT_TRUE(migrations[step].foreign_keys_off);
  SQLite::Database db = MigratedTo(step);
  db.exec("INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash) "
          "VALUES ('fact', 'session.ts uses jose', 'active', 'global', 5, 5, 1)");
  db.exec("INSERT INTO semantic_entities(type, name, norm_name, created_at) VALUES "
          "('file', '', 'src/auth/session.ts', 5), ('library', 'Jose', 'jose', 5), ('library', '', 'gone', 5)");
  db.exec("INSERT INTO semantic_entities_fts(rowid, norm_name) SELECT seq, norm_name FROM semantic_entities");
  db.exec("DELETE FROM semantic_entities WHERE seq = 3");  // the counter stays at 3
  db.exec("INSERT INTO semantic_memory_entities(memory_seq, entity_seq) VALUES (1, 1), (1, 2)");
  db.exec("INSERT INTO semantic_relations(id, from_seq, type, to_seq, valid_from, recorded_at) "
          "VALUES ('R1', 1, 'uses', 2, 0, 0)");
  db.exec("INSERT INTO semantic_entity_ids(id, entity_seq, shown) VALUES ('01JF0000000000000000000AAA', 1, 1)");
  {
    const sdk::MigrationForeignKeys keys(db, migrations[step]);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[step]); });
  }
  EXPECT_EQ(Int(db, "PRAGMA foreign_keys"), 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_table_info('semantic_entities') WHERE name = 'type'"), 0);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_memory_entities"), 2);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_relations"), 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_entity_ids"), 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  db.exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
  const std::optional<Entity> file = LoadEntity(db, 1), jose = LoadEntity(db, 2);
  ASSERT_TRUE(file && jose);
  EXPECT_EQ(file->type, "file");
  EXPECT_EQ(file->id, "01JF0000000000000000000AAA");
  EXPECT_EQ(jose->type, "library");
  EXPECT_EQ(jose->name, "Jose");
  // One (name, type) an entity still; the next seq is past the purged one.
  EXPECT_THROW(db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) SELECT type_key, '', "
                       "'jose', 6 FROM semantic_entities WHERE seq = 2"),
               SQLite::Exception);
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'sign', 6)");
  EXPECT_EQ(Int(db, "SELECT max(seq) FROM semantic_entities"), 4);
  // A delete still takes its entity out of the name index.
  db.exec("DELETE FROM semantic_entities WHERE seq = 4");
  db.exec("INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('integrity-check')");
}

TEST(InternedEntityTypesMigration, CarriesTheCounterOfAStoreWhoseEntitiesAreAllGone) {
  const auto migrations = Migrations();
  const std::size_t step = kInternedKeysVersion + 1;
  SQLite::Database db = MigratedTo(step);
  db.exec("INSERT INTO semantic_entities(type, name, norm_name, created_at) VALUES ('file', '', 'a.ts', 5), "
          "('file', '', 'b.ts', 5)");
  db.exec("INSERT INTO semantic_entities_fts(rowid, norm_name) SELECT seq, norm_name FROM semantic_entities");
  db.exec("DELETE FROM semantic_entities");
  {
    const sdk::MigrationForeignKeys keys(db, migrations[step]);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[step]); });
  }
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (0, '', 'c.ts', 6)");
  EXPECT_EQ(Int(db, "SELECT seq FROM semantic_entities"), 3);
}

// A purge leaves no trace of a session only its memory named; keys others use stay.
TEST_F(SemanticTest, APurgeDropsTheKeysOnlyItsMemoryUsed) {
  sdk::Caller other = kioku::testing::TestRuntime::DefaultCaller();
  other.session_id = "short-lived-session";
  const Json made = Ok("memory_remember", {{"text", "a note of a short session"}, {"kind", "fact"}}, other);
  const std::string id = made["results"][0]["id"];
  Remember("a note of the usual session", "fact");
  EXPECT_EQ(Count("semantic_keys", "text = 'short-lived-session'"), 1);
  Ok("memory_forget", {{"id", id}, {"purge", true}});
  EXPECT_EQ(Count("semantic_keys", "text = 'short-lived-session'"), 0);
  EXPECT_EQ(Count("semantic_keys", "text IN ('test-agent', 'test-session', '/tmp/project')"), 3);
  EXPECT_EQ(Count("semantic_keys", "seq = 0 OR text = ''"), 0);
  // The session is interned again when it writes again.
  Ok("memory_remember", {{"text", "the short session is back"}, {"kind", "fact"}}, other);
  const Json got = Ok("memory_recall", {{"query", "short session back"}});
  ASSERT_FALSE(got["memories"].empty());
  EXPECT_EQ(Count("semantic_memories", "session_key NOT IN (SELECT seq FROM semantic_keys)"), 0);

  // Nor of a project an edit moved its memory out of before the purge.
  sdk::Caller elsewhere = kioku::testing::TestRuntime::DefaultCaller();
  elsewhere.project_id = elsewhere.project_root = "/tmp/side-project";
  const Json side = Ok("memory_remember", {{"text", "a side project note"}, {"kind", "fact"}, {"scope", "project"}}, elsewhere);
  const std::string moved = side["results"][0]["id"];
  Ok("memory_edit", {{"id", moved}, {"scope", "global"}}, elsewhere);
  EXPECT_EQ(Count("semantic_keys", "text = '/tmp/side-project'"), 1);
  Ok("memory_forget", {{"id", moved}, {"purge", true}}, elsewhere);
  EXPECT_EQ(Count("semantic_keys", "text = '/tmp/side-project'"), 0);
}

}  // namespace
}  // namespace kioku::semantic::testing
