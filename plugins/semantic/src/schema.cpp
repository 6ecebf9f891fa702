#include "schema.hpp"

#include "kioku/sdk/project_keys.hpp"

#include "kioku/sdk/db.hpp"

namespace kioku::semantic {
namespace {

// Empty strings rather than NULL for "none" in key columns so equality comparisons and
// composite indexes work without IS.
constexpr const char* kV1 = R"SQL(
CREATE TABLE semantic_memories (
  seq              INTEGER PRIMARY KEY,
  id               TEXT NOT NULL UNIQUE,
  kind             TEXT NOT NULL,
  text             TEXT NOT NULL,
  subject          TEXT NOT NULL DEFAULT '',
  value            TEXT NOT NULL DEFAULT '',
  tags             TEXT NOT NULL DEFAULT '',
  cjk              TEXT NOT NULL DEFAULT '',
  importance       INTEGER NOT NULL DEFAULT 5,
  confidence       REAL NOT NULL DEFAULT 1.0,
  status           TEXT NOT NULL,
  prior_status     TEXT NOT NULL DEFAULT '',
  source           TEXT NOT NULL DEFAULT 'agent',
  source_ref       TEXT NOT NULL DEFAULT '',
  scope            TEXT NOT NULL,
  project_id       TEXT NOT NULL DEFAULT '',
  path             TEXT NOT NULL DEFAULT '',
  anchor           TEXT NOT NULL DEFAULT '',
  expires_at       INTEGER,
  agent_id         TEXT NOT NULL DEFAULT '',
  session_id       TEXT NOT NULL DEFAULT '',
  captured_at      INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  recall_count     INTEGER NOT NULL DEFAULT 0,
  last_recalled_at INTEGER,
  reaffirm_count   INTEGER NOT NULL DEFAULT 0,
  superseded_at    INTEGER,
  superseded_by    TEXT,
  dedup_hash       INTEGER NOT NULL
);
CREATE INDEX semantic_memories_dedup ON semantic_memories(dedup_hash);
CREATE INDEX semantic_memories_subject ON semantic_memories(subject, scope, project_id, path)
  WHERE subject <> '';
CREATE INDEX semantic_memories_updated ON semantic_memories(updated_at);
CREATE INDEX semantic_memories_captured ON semantic_memories(captured_at);
CREATE INDEX semantic_memories_importance ON semantic_memories(importance, updated_at);
CREATE INDEX semantic_memories_kind ON semantic_memories(kind, updated_at);
CREATE INDEX semantic_memories_successor ON semantic_memories(superseded_by)
  WHERE superseded_by IS NOT NULL;

CREATE TABLE semantic_memory_history (
  seq       INTEGER PRIMARY KEY,
  memory_id TEXT NOT NULL,
  action    TEXT NOT NULL,
  at        INTEGER NOT NULL,
  agent_id  TEXT NOT NULL DEFAULT '',
  detail    TEXT NOT NULL DEFAULT '',
  snapshot  TEXT
);
CREATE INDEX semantic_memory_history_memory ON semantic_memory_history(memory_id, at);

CREATE TABLE semantic_memory_tags (
  tag        TEXT NOT NULL,
  memory_seq INTEGER NOT NULL REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  PRIMARY KEY (tag, memory_seq)
) WITHOUT ROWID;
CREATE INDEX semantic_memory_tags_memory ON semantic_memory_tags(memory_seq);

CREATE VIRTUAL TABLE semantic_fts USING fts5(
  text, subject, value, tags,
  content='semantic_memories', content_rowid='seq',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE semantic_fts_trigram USING fts5(
  text, content='semantic_memories', content_rowid='seq', tokenize='trigram');
CREATE VIRTUAL TABLE semantic_fts_cjk USING fts5(
  cjk, content='semantic_memories', content_rowid='seq', tokenize='unicode61');

CREATE TRIGGER semantic_memories_ai AFTER INSERT ON semantic_memories BEGIN
  INSERT INTO semantic_fts(rowid, text, subject, value, tags)
    VALUES (new.seq, new.text, new.subject, new.value, new.tags);
  INSERT INTO semantic_fts_trigram(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER semantic_memories_ai_cjk AFTER INSERT ON semantic_memories
  WHEN new.cjk <> '' BEGIN
  INSERT INTO semantic_fts_cjk(rowid, cjk) VALUES (new.seq, new.cjk);
END;
CREATE TRIGGER semantic_memories_ad AFTER DELETE ON semantic_memories BEGIN
  INSERT INTO semantic_fts(semantic_fts, rowid, text, subject, value, tags)
    VALUES ('delete', old.seq, old.text, old.subject, old.value, old.tags);
  INSERT INTO semantic_fts_trigram(semantic_fts_trigram, rowid, text)
    VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER semantic_memories_ad_cjk AFTER DELETE ON semantic_memories
  WHEN old.cjk <> '' BEGIN
  INSERT INTO semantic_fts_cjk(semantic_fts_cjk, rowid, cjk) VALUES ('delete', old.seq, old.cjk);
END;
CREATE TRIGGER semantic_memories_au AFTER UPDATE OF text, subject, value, tags
  ON semantic_memories BEGIN
  INSERT INTO semantic_fts(semantic_fts, rowid, text, subject, value, tags)
    VALUES ('delete', old.seq, old.text, old.subject, old.value, old.tags);
  INSERT INTO semantic_fts(rowid, text, subject, value, tags)
    VALUES (new.seq, new.text, new.subject, new.value, new.tags);
END;
CREATE TRIGGER semantic_memories_au_trigram AFTER UPDATE OF text ON semantic_memories BEGIN
  INSERT INTO semantic_fts_trigram(semantic_fts_trigram, rowid, text)
    VALUES ('delete', old.seq, old.text);
  INSERT INTO semantic_fts_trigram(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER semantic_memories_au_cjk_old AFTER UPDATE OF cjk ON semantic_memories
  WHEN old.cjk <> '' BEGIN
  INSERT INTO semantic_fts_cjk(semantic_fts_cjk, rowid, cjk) VALUES ('delete', old.seq, old.cjk);
END;
CREATE TRIGGER semantic_memories_au_cjk_new AFTER UPDATE OF cjk ON semantic_memories
  WHEN new.cjk <> '' BEGIN
  INSERT INTO semantic_fts_cjk(rowid, cjk) VALUES (new.seq, new.cjk);
END;

CREATE TABLE semantic_entities (
  seq        INTEGER PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,
  type       TEXT NOT NULL,
  name       TEXT NOT NULL,
  norm_name  TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (norm_name, type)
);
CREATE VIRTUAL TABLE semantic_entities_fts USING fts5(
  name, content='semantic_entities', content_rowid='seq', tokenize='trigram');
CREATE TRIGGER semantic_entities_ai AFTER INSERT ON semantic_entities BEGIN
  INSERT INTO semantic_entities_fts(rowid, name) VALUES (new.seq, new.name);
END;
CREATE TRIGGER semantic_entities_ad AFTER DELETE ON semantic_entities BEGIN
  INSERT INTO semantic_entities_fts(semantic_entities_fts, rowid, name)
    VALUES ('delete', old.seq, old.name);
END;

CREATE TABLE semantic_memory_entities (
  memory_seq INTEGER NOT NULL REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  entity_seq INTEGER NOT NULL REFERENCES semantic_entities(seq),
  PRIMARY KEY (memory_seq, entity_seq)
) WITHOUT ROWID;
CREATE INDEX semantic_memory_entities_entity ON semantic_memory_entities(entity_seq, memory_seq);

CREATE TABLE semantic_relations (
  seq         INTEGER PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  from_seq    INTEGER NOT NULL REFERENCES semantic_entities(seq),
  type        TEXT NOT NULL,
  to_seq      INTEGER NOT NULL REFERENCES semantic_entities(seq),
  valid_from  INTEGER NOT NULL,
  valid_to    INTEGER,
  recorded_at INTEGER NOT NULL,
  expired_at  INTEGER,
  agent_id    TEXT NOT NULL DEFAULT '',
  replaces    TEXT
);
CREATE INDEX semantic_relations_from ON semantic_relations(from_seq, type);
CREATE INDEX semantic_relations_to ON semantic_relations(to_seq, type);
)SQL";

// FTS5 flushes its pending index data at every statement savepoint (xSavepoint/xRelease
// call sqlite3Fts5StorageSync in SQLite 3.40), so a per-row AFTER INSERT trigger writes one
// tiny segment per row and then merges them: ~70% of a batch write's time. Writers now index
// the rows a transaction added in one INSERT … SELECT per FTS table just before COMMIT
// (MemoryWriter::Finish, IndexNewEntities). Update and delete triggers stay.
//
// Also: the two CJK update triggers of version 1 ran newest-first (SQLite fires triggers of
// one event in reverse creation order), inserting the new terms before deleting the old
// ones and losing the row's docsize entry. One trigger now does delete-then-insert, each
// step conditional through INSERT … SELECT … WHERE.
constexpr const char* kV2 = R"SQL(
DROP TRIGGER semantic_memories_ai;
DROP TRIGGER semantic_memories_ai_cjk;
DROP TRIGGER semantic_entities_ai;
DROP TRIGGER semantic_memories_au_cjk_old;
DROP TRIGGER semantic_memories_au_cjk_new;
CREATE TRIGGER semantic_memories_au_cjk AFTER UPDATE OF cjk ON semantic_memories BEGIN
  INSERT INTO semantic_fts_cjk(semantic_fts_cjk, rowid, cjk)
    SELECT 'delete', old.seq, old.cjk WHERE old.cjk <> '';
  INSERT INTO semantic_fts_cjk(rowid, cjk) SELECT new.seq, new.cjk WHERE new.cjk <> '';
END;
)SQL";

}  // namespace

std::vector<sdk::Migration> SemanticMigrations(const sdk::ProjectOptions& projects) {
  std::vector<sdk::Migration> out;
  out.push_back({1, "memories, history, tags, FTS (porter, trigram, CJK bigram), entities, "
                    "bi-temporal relations",
                 kV1, nullptr});
  out.push_back({2, "index new rows in FTS at the end of each write transaction instead of "
                    "per-row insert triggers",
                 kV2, nullptr});
  out.push_back(sdk::ProjectKeysMigration(3, {{"semantic_memories", "project_id", "path"}}, projects));
  return out;
}

void ApplyMigrations(SQLite::Database& db) {
  for (const sdk::Migration& m : SemanticMigrations()) {
    sdk::WithWriteTransaction(db, [&] {
      if (!m.sql.empty()) db.exec(m.sql);
      if (m.apply) m.apply(db);
    });
  }
}

}  // namespace kioku::semantic
