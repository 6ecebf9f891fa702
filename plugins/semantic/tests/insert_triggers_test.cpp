// Memory inserts without a statement journal (migration 19, schema.cpp kJournalFreeInsertsSql;
// MemoryWriter's INSERT OR FAIL): the insert triggers' bodies cannot abort, and they still
// queue for embedding and count inserts below the newest memory as before.

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "memory_store.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

constexpr const char* kColumns = "kind, text, status, scope, captured_at, updated_at, dedup_hash";

// Rows written as a writer does: its text indexes follow (MemoryWriter::Finish), so the
// update and delete triggers find them there.
void Insert(SQLite::Database& db, const std::string& values, const std::string& columns = kColumns) {
  db.exec("INSERT INTO semantic_memories(" + columns + ") VALUES " + values);
  db.exec("INSERT INTO semantic_fts(semantic_fts) VALUES ('rebuild');"
          "INSERT INTO semantic_fts_trigram(semantic_fts_trigram) VALUES ('rebuild')");
}

// Seen through FTS5: every statement that opens a statement journal calls each FTS5 table
// of the transaction's xSavepoint, which writes the table's pending terms out as a segment.
// A remember must leave them pending (the write's FTS inserts come at its end).
TEST(JournalFreeInserts, ARememberWritesNoPendingIndexTermsOut) {
  SQLite::Database db = MigratedTo(Migrations().size());
  sdk::ManualClock clock;
  const Settings settings;
  sdk::StatementCache statements;
  Env env{db, clock, settings, statements};
  db.exec("INSERT INTO semantic_embed_on(id, since) VALUES (1, 0)");  // the queue trigger runs too
  const auto segments = [&] { return Int(db, "SELECT count(*) FROM semantic_fts_data"); };
  EXPECT_THROW(WithMemoryWriter(env,
                                [&](MemoryWriter& writer) {
                                  db.exec("INSERT INTO semantic_fts(rowid, text, subject, value, tags) "
                                          "VALUES (1000000, 'pending probe', '', '', '')");
                                  const std::int64_t before = segments();
                                  for (const char* text : {"The api signs tokens with jose", "Deploys run on fridays"}) {
                                    MemoryDraft d;
                                    d.text = text;
                                    d.kind = "fact";
                                    EXPECT_EQ(writer.Remember(d, Author{"agent", "s1"}).action, "remembered");
                                  }
                                  EXPECT_EQ(segments(), before);
                                  // The probe sees a savepoint when there is one.
                                  db.exec("SAVEPOINT probe; RELEASE probe");
                                  EXPECT_GT(segments(), before);
                                  throw std::runtime_error("roll back");
                                }),
               std::runtime_error);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_memories"), 0);
}

TEST(JournalFreeInsertsMigration, KeepsTheQueueWithoutItsForeignKeyAndQueuesAsBefore) {
  const auto migrations = Migrations();
  constexpr std::size_t version = 19;  // kJournalFreeInsertsSql
  ASSERT_GE(migrations.size(), version);
  SQLite::Database db = MigratedTo(version - 1);
  db.exec("INSERT INTO semantic_embed_on(id, since) VALUES (1, 0)");
  Insert(db, "('fact', 'one', 'active', 'global', 1, 1, 1), ('fact', 'two', 'active', 'global', 2, 2, 2)");
  db.exec("UPDATE semantic_embed_queue SET attempts = 2, next_at = 99, last_error = 'HTTP 500' WHERE memory_seq = 2");
  const std::string queue_before =
      db.execAndGet("SELECT group_concat(memory_seq || ':' || ticket || ':' || attempts || ':' || last_error) "
                    "FROM semantic_embed_queue")
          .getString();
  sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, migrations[version - 1]); });

  EXPECT_EQ(db.execAndGet("SELECT group_concat(memory_seq || ':' || ticket || ':' || attempts || ':' || last_error) "
                          "FROM semantic_embed_queue")
                .getString(),
            queue_before);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_foreign_key_list('semantic_embed_queue')"), 0);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_index_list('semantic_embed_queue') WHERE name = 'semantic_embed_queue_due'"),
            1);
  // A new memory is queued with ticket 0; an edit of its text queues it again with another.
  Insert(db, "('fact', 'three', 'active', 'global', 3, 3, 3)");
  EXPECT_EQ(Int(db, "SELECT ticket FROM semantic_embed_queue WHERE memory_seq = 3"), 0);
  db.exec("UPDATE semantic_embed_queue SET attempts = 1 WHERE memory_seq = 3");
  db.exec("UPDATE semantic_memories SET text = 'three, edited' WHERE seq = 3");
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_embed_queue WHERE memory_seq = 3 AND ticket <> 0 AND attempts = 0"), 1);
  // A deleted memory leaves the queue, as the foreign key's CASCADE did.
  db.exec("DELETE FROM semantic_memories WHERE seq IN (2, 3)");
  EXPECT_EQ(Int(db, "SELECT group_concat(memory_seq) FROM semantic_embed_queue"), 1);
  // While no embedder has started on the store, nothing is queued.
  db.exec("DELETE FROM semantic_embed_on");
  Insert(db, "('fact', 'four', 'active', 'global', 4, 4, 4)");
  EXPECT_EQ(Int(db, "SELECT count(*) FROM semantic_embed_queue WHERE memory_seq = 4"), 0);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  EXPECT_EQ(Int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'"), 0);
}

// An insert below the newest memory (an import reusing a free seq) moves the text epoch,
// also when its row is not there yet; an insert at the top does not.
TEST(JournalFreeInsertsMigration, AnInsertBelowTheNewestMemoryMovesTheTextEpoch) {
  SQLite::Database db = MigratedTo(Migrations().size());
  const auto epoch = [&] { return Int(db, "SELECT coalesce((SELECT epoch FROM semantic_text_epoch WHERE id = 1), -1)"); };
  Insert(db, "('fact', 'one', 'active', 'global', 1, 1, 1), ('fact', 'two', 'active', 'global', 2, 2, 2)");
  EXPECT_EQ(epoch(), -1);
  db.exec("DELETE FROM semantic_memories WHERE seq = 1");  // the delete trigger makes the row
  const std::int64_t after_delete = epoch();
  EXPECT_GE(after_delete, 1);
  Insert(db, "(1, 'fact', 'one again', 'active', 'global', 1, 1, 1)", std::string("seq, ") + kColumns);
  EXPECT_EQ(epoch(), after_delete + 1);
  db.exec("DELETE FROM semantic_text_epoch");
  db.exec("DELETE FROM semantic_memories WHERE seq = 1");
  db.exec("DELETE FROM semantic_text_epoch");
  Insert(db, "(1, 'fact', 'one once more', 'active', 'global', 1, 1, 1)", std::string("seq, ") + kColumns);
  EXPECT_EQ(epoch(), 1);
  Insert(db, "('fact', 'three', 'active', 'global', 3, 3, 3)");
  EXPECT_EQ(epoch(), 1);
}

}  // namespace
}  // namespace kioku::semantic::testing
