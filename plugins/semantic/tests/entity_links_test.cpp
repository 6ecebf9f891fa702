// Entity links and tags without foreign keys (migration 20, schema.cpp
// kLinksWithoutForeignKeysSql): both are carried over, and a deleted memory's links and tags
// go with it as ON DELETE CASCADE did. That a write links each memory to the entities it
// names: graph_test.cpp.

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/db.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

// "memory seq>entity name …", by memory, then name (entity seqs may have gaps).
std::string Links(SQLite::Database& db) {
  return db.execAndGet("SELECT coalesce(group_concat(l, ' '), '') FROM (SELECT me.memory_seq || '>' || e.norm_name AS l "
                       "FROM semantic_memory_entities me JOIN semantic_entities e ON e.seq = me.entity_seq "
                       "ORDER BY me.memory_seq, e.norm_name)")
      .getString();
}

std::string Tags(SQLite::Database& db) {
  return db.execAndGet("SELECT coalesce(group_concat(l, ' '), '') FROM (SELECT memory_seq || '>' || tag AS l "
                       "FROM semantic_memory_tags ORDER BY memory_seq, tag)")
      .getString();
}

TEST(LinksWithoutForeignKeysMigration, CarriesLinksAndTagsOverAndDeletesAMemorysWithIt) {
  const auto migrations = Migrations();
  constexpr std::size_t version = 20;
  ASSERT_GE(migrations.size(), version);
  SQLite::Database db = MigratedTo(version - 1);
  db.exec("INSERT INTO semantic_memories(kind, text, status, scope, captured_at, updated_at, dedup_hash) VALUES "
          "('fact', 'one', 'active', 'global', 1, 1, 1), ('fact', 'two', 'active', 'global', 2, 2, 2)");
  db.exec("INSERT INTO semantic_fts(semantic_fts) VALUES ('rebuild');"  // as a writer indexes them
          "INSERT INTO semantic_fts_trigram(semantic_fts_trigram) VALUES ('rebuild')");
  db.exec("INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (1, '', 'a', 1), (1, '', 'b', 1)");
  db.exec("INSERT INTO semantic_memory_entities(memory_seq, entity_seq) VALUES (1, 1), (1, 2), (2, 2)");
  db.exec("INSERT INTO semantic_memory_tags(tag, memory_seq) VALUES ('api', 1), ('db', 1), ('api', 2)");
  const sdk::MigrationForeignKeys keys(db, migrations[version - 1]);
  sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[version - 1]); });

  EXPECT_EQ(Links(db), "1>a 1>b 2>b");
  EXPECT_EQ(Tags(db), "1>api 1>db 2>api");
  for (const char* table : {"semantic_memory_entities", "semantic_memory_tags"}) {
    EXPECT_EQ(Int(db, std::string("SELECT count(*) FROM pragma_foreign_key_list('") + table + "')"), 0) << table;
  }
  EXPECT_EQ(Int(db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('semantic_memory_entities_entity', "
                    "'semantic_memory_tags_memory')"),
            2);
  db.exec("DELETE FROM semantic_memories WHERE seq = 1");
  EXPECT_EQ(Links(db), "2>b");
  EXPECT_EQ(Tags(db), "2>api");
}

}  // namespace
}  // namespace kioku::semantic::testing
