// Memory ids computed from captured_at and seq (migration 15, memory.hpp MemoryIdSql):
// the SQL form agrees with sdk::SeqId, the migration keeps every id and every child
// row, and the tools find, list and page memories by computed ids.

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/plugin.hpp"
#include "memory.hpp"
#include "schema.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

TEST(MemoryIdSql, EqualsSeqIdForEveryTimeNonceAndSeq) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t(seq INTEGER PRIMARY KEY, own_id TEXT, captured_at INTEGER, id_nonce INTEGER)");
  db.exec("CREATE VIEW v(seq, id) AS SELECT seq, " + MemoryIdSql() + " FROM t");
  const std::vector<std::int64_t> times = {-5, 0, 1, 31, 32, 1767225600000, 1796513101620, sdk::kMaxIdTimeMs,
                                           sdk::kMaxIdTimeMs + 1, std::int64_t{1} << 60};
  const std::vector<std::int64_t> seqs = {1, 2, 31, 32, 1023, 1024, 123456789, std::int64_t{1} << 53,
                                          (std::int64_t{1} << 60) - 1};
  SQLite::Statement ins(db, "INSERT INTO t(seq, captured_at, id_nonce) VALUES (?, ?, ?)");
  SQLite::Statement get(db, "SELECT id FROM v WHERE seq = ?");
  for (const std::int64_t seq : seqs) {
    for (const std::int64_t ms : times) {
      const std::int64_t nonce = MemoryNonce("agent", "session", "/tmp/project", std::to_string(seq), ms);
      db.exec("DELETE FROM t");
      ins.reset();
      sdk::Bind(ins, seq, ms, nonce);
      ins.exec();
      get.reset();
      sdk::Bind(get, seq);
      ASSERT_TRUE(get.executeStep());
      EXPECT_EQ(get.getColumn(0).getString(), sdk::SeqId(ms, nonce, seq)) << ms << " " << seq;
      EXPECT_EQ(MemoryId("", ms, nonce, seq), sdk::SeqId(ms, nonce, seq));
    }
  }
  db.exec("UPDATE t SET own_id = 'KEPT'");
  EXPECT_EQ(db.execAndGet("SELECT id FROM v").getString(), "KEPT");
}

TEST(DerivedMemoryIdsMigration, KeepsEveryIdAndEveryRowThatPointsAtAMemory) {
  const auto migrations = Migrations();
  ASSERT_GE(migrations.size(), static_cast<std::size_t>(kDerivedMemoryIdsVersion));
  const sdk::Migration& step = migrations[kDerivedMemoryIdsVersion - 1];
  ASSERT_EQ(step.version, kDerivedMemoryIdsVersion);
  ASSERT_TRUE(step.foreign_keys_off);
  SQLite::Database db = MigratedTo(kDerivedMemoryIdsVersion - 1);
  db.exec("INSERT INTO semantic_memories(id, kind, text, tags, status, scope, captured_at, updated_at, dedup_hash) VALUES "
          "('01JF00000000000000000000M1', 'fact', 'session.ts uses jose', 'auth', 'active', 'global', 5, 5, 1), "
          "('01JF00000000000000000000M2', 'fact', 'session.ts uses paseto', '', 'contested', 'global', 6, 6, 2)");
  db.exec("INSERT INTO semantic_fts(rowid, text, subject, value, tags) SELECT seq, text, subject, value, tags FROM "
          "semantic_memories");
  db.exec("INSERT INTO semantic_fts_trigram(rowid, text) SELECT seq, text FROM semantic_memories");
  db.exec("INSERT INTO semantic_memory_tags(tag, memory_seq) VALUES ('auth', 1)");
  db.exec("INSERT INTO semantic_entities(type, name, norm_name, created_at) VALUES ('library', '', 'jose', 5)");
  db.exec("INSERT INTO semantic_memory_entities(memory_seq, entity_seq) VALUES (1, 1)");
  db.exec("INSERT INTO semantic_rivals(a_seq, b_seq, a_prior, b_prior, reason, detected_at) "
          "VALUES (2, 1, 'active', 'active', 'library: jose vs paseto', 6)");
  const std::int64_t rivals = Int(db, "SELECT count(*) FROM semantic_rivals");
  {
    const sdk::MigrationForeignKeys keys(db, step);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, step); });
  }
  EXPECT_EQ(Int(db, "PRAGMA foreign_keys"), 1);  // on again
  // Children of the rebuilt table kept (a drop with foreign keys on would cascade into them).
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_memory_tags"), 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_memory_entities"), 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_rivals"), rivals);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  EXPECT_EQ(db.execAndGet("SELECT group_concat(id) FROM (SELECT id FROM semantic_memory_ids ORDER BY seq)").getString(),
            "01JF00000000000000000000M1,01JF00000000000000000000M2");
  EXPECT_EQ(*MemorySeqOfId(db, "01JF00000000000000000000M2"), 2);
  db.exec("INSERT INTO semantic_fts(semantic_fts) VALUES ('integrity-check')");
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_table_info('semantic_memories') WHERE name = 'id'"), 0);
  // Triggers made again: an edit of the text reaches the word index.
  db.exec("UPDATE semantic_memories SET text = 'session.ts uses branca' WHERE seq = 1");
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_fts WHERE semantic_fts MATCH 'branca'"), 1);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_text_epoch"), 1);

  // A new memory has no stored id: it answers to its computed one.
  db.exec("INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash, id_nonce) "
          "VALUES ('fact', 'deploys on fridays', 'active', 'global', 1796513101620, 1796513101620, 3, 77)");
  EXPECT_TRUE(db.execAndGet("SELECT own_id FROM semantic_memories WHERE seq = 3").isNull());
  const std::string made = sdk::SeqId(1796513101620, 77, 3);
  EXPECT_EQ(db.execAndGet("SELECT id FROM semantic_memory_ids WHERE seq = 3").getString(), made);
  EXPECT_EQ(*MemorySeqOfId(db, made), 3);
  EXPECT_EQ(MemorySeqOfId(db, sdk::SeqId(1796513101621, 77, 3)), std::nullopt);  // another time
  EXPECT_EQ(MemorySeqOfId(db, sdk::SeqId(1796513101620, 78, 3)), std::nullopt);  // another nonce
  EXPECT_EQ(MemorySeqOfId(db, sdk::SeqId(5, 0, 1)), std::nullopt);  // a kept id's memory has no computed one
  for (std::size_t i = kDerivedMemoryIdsVersion; i < migrations.size(); ++i) {  // the code reads today's schema
    const sdk::MigrationForeignKeys keys(db, migrations[i]);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[i]); });
  }
  EXPECT_EQ(ResolveMemory(db, made.substr(0, 20)).seq, 3);
  // A purged memory's seq is never given again, so its id names nothing even when the next
  // memory is made in the same millisecond.
  db.exec("DELETE FROM semantic_memories WHERE seq = 3");
  db.exec("INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash, id_nonce) "
          "VALUES ('fact', 'deploys on mondays', 'active', 'global', 1796513101620, 1796513101620, 4, 77)");
  EXPECT_EQ(Int(db, "SELECT max(seq) FROM semantic_memories"), 4);
  EXPECT_EQ(MemorySeqOfId(db, made), std::nullopt);
  // The row epoch moves with what an id is made of (own_id, captured_at, id_nonce).
  const auto epoch = [&] { return Int(db, "SELECT coalesce(max(epoch), 0) FROM semantic_row_epoch"); };
  const std::int64_t e0 = epoch();
  db.exec("UPDATE semantic_memories SET own_id = (SELECT id FROM semantic_memory_ids WHERE seq = 4) WHERE seq = 4");
  EXPECT_EQ(epoch(), e0 + 1);
  db.exec("UPDATE semantic_memories SET captured_at = captured_at + 1 WHERE seq = 4");
  EXPECT_EQ(epoch(), e0 + 2);
  db.exec("UPDATE semantic_memories SET id_nonce = id_nonce + 1 WHERE seq = 4");
  EXPECT_EQ(epoch(), e0 + 3);
  db.exec("UPDATE semantic_memories SET recall_count = 3 WHERE seq = 4");
  EXPECT_EQ(epoch(), e0 + 3);
  // Kept ids stay unique.
  EXPECT_THROW(db.exec("UPDATE semantic_memories SET own_id = '01JF00000000000000000000M1' WHERE seq = 2"),
               SQLite::Exception);
}

TEST_F(SemanticTest, NewMemoriesAreNamedByTheirComputedIdsAndFoundByPrefix) {
  const auto caller = kioku::testing::TestRuntime::DefaultCaller();
  const std::string a = Remember("Deploys go out on Fridays");
  ASSERT_EQ(a.size(), 26u);
  const std::int64_t t0 = rt_->clock->NowMs();
  EXPECT_EQ(a, sdk::SeqId(t0, MemoryNonce(caller.agent_id, caller.session_id, caller.project_id, "Deploys go out on Fridays", t0), 1));
  AdvanceDays(1);
  const std::string b = Remember("The staging database is postgres 16");
  EXPECT_EQ(sdk::ParseSeqId(b)->seq, 2);
  EXPECT_TRUE(rt_->Db().execAndGet("SELECT count(*) FROM semantic_memories WHERE own_id IS NOT NULL").getInt() == 0);
  // Exact, lower case, and a unique prefix; a prefix both share lists both.
  EXPECT_EQ(Ok("memory_get", {{"id", b}})["memory"]["id"], b);
  std::string lower = b;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(Ok("memory_get", {{"id", lower}})["memory"]["id"], b);
  EXPECT_EQ(Ok("memory_get", {{"id", b.substr(0, 10)}})["memory"]["id"], b);  // its time alone
  std::size_t shared = 0;
  while (a[shared] == b[shared]) ++shared;
  ASSERT_GE(shared, 4u);
  const std::string both = Err("memory_get", {{"id", a.substr(0, shared)}});
  EXPECT_NE(both.find("matches several memory ids: " + a + ", " + b), std::string::npos) << both;
  EXPECT_NE(Err("memory_get", {{"id", sdk::SeqId(rt_->clock->NowMs(), 0, 9)}}).find("unknown memory id"),
            std::string::npos);
}

// An id with one character changed names no memory, though the seq it spells is a memory's:
// that memory's nonce differs (sdk::SeqId, MemoryNonce).
TEST_F(SemanticTest, AnIdWithOneCharacterChangedNamesNoMemory) {
  std::vector<std::string> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(Remember("Service " + std::to_string(i) + " listens on its own port"));
  static constexpr const char* kAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  int tried = 0;
  for (const std::string& id : {ids[0], ids[17], ids[39]}) {
    for (std::size_t at = 10; at < id.size(); ++at) {
      for (const char* c = kAlphabet; *c; ++c) {
        if (*c == id[at]) continue;
        std::string slip = id;
        slip[at] = *c;
        ++tried;
        EXPECT_EQ(MemorySeqOfId(rt_->Db(), slip), std::nullopt) << slip << " from " << id;
      }
    }
  }
  EXPECT_EQ(tried, 3 * 16 * 31);
  // Ids of memories written one after another differ beyond their last characters.
  EXPECT_NE(ids[1].substr(10, 4), ids[2].substr(10, 4));
}

TEST_F(SemanticTest, ListPagesNewestFirstAndACursorOutlivesItsMemory) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(Remember("Release train " + std::to_string(i) + " leaves on schedule"));
    if (i % 2 == 0) AdvanceDays(0.001);
  }
  const Json first = Ok("memory_list", {{"limit", 2}});
  ASSERT_EQ(first["memories"].size(), 2u);
  EXPECT_EQ(first["memories"][0]["id"], ids[4]);
  EXPECT_EQ(first["memories"][1]["id"], ids[3]);
  ASSERT_TRUE(first.contains("next_cursor"));
  // The page's last memory is purged before the next page is asked for.
  Ok("memory_forget", {{"id", ids[3]}, {"purge", true}});
  const Json second = Ok("memory_list", {{"limit", 2}, {"cursor", first["next_cursor"]}});
  ASSERT_EQ(second["memories"].size(), 2u);
  EXPECT_EQ(second["memories"][0]["id"], ids[2]);
  EXPECT_EQ(second["memories"][1]["id"], ids[1]);
  const Json third = Ok("memory_list", {{"limit", 2}, {"cursor", second["next_cursor"]}});
  ASSERT_EQ(third["memories"].size(), 1u);
  EXPECT_EQ(third["memories"][0]["id"], ids[0]);
  EXPECT_FALSE(third.contains("next_cursor"));
  EXPECT_NE(Err("memory_list", {{"cursor", "not-a-cursor"}}).find("is not one this tool returned"), std::string::npos);
  // A memory id as cursor (what an earlier kioku returned) still continues after it.
  const Json by_id = Ok("memory_list", {{"limit", 1}, {"cursor", ids[2]}});
  ASSERT_EQ(by_id["memories"].size(), 1u);
  EXPECT_EQ(by_id["memories"][0]["id"], ids[1]);
}

}  // namespace
}  // namespace kioku::semantic::testing
