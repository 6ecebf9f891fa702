#include "schema.hpp"

#include "vectors.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "entities.hpp"
#include "kioku/sdk/project_keys.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/vector_tables.hpp"
#include "memory.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "review_store.hpp"

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
// (MemoryWriter::Finish; since migration 20 the substring and entity-name indexes a little
// later, index_lag.hpp). Update and delete triggers stay.
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

// Version 3: matching keys moved from ASCII folding to sdk::MatchKey (NFKC + full case
// folding + Unicode white space). Stored keys are recomputed: memory subjects and dedupe
// hashes, tags, entity norm_names. Entities whose new keys collide are merged into the
// one that already holds the key (links and relations repointed), so "Ｔａｒｏ" and
// "Taro" become one entity as new writes would make them.
void RekeyUnicode(SQLite::Database& db) {
  {
    struct Row {
      std::int64_t seq;
      std::string kind, scope, project_id, path, subject, value, text;
    };
    std::vector<Row> rows;
    SQLite::Statement q(db,
                        "SELECT seq, kind, scope, project_id, path, subject, value, text FROM "
                        "semantic_memories");
    while (q.executeStep()) {
      rows.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                      q.getColumn(2).getString(), q.getColumn(3).getString(),
                      q.getColumn(4).getString(), q.getColumn(5).getString(),
                      q.getColumn(6).getString(), q.getColumn(7).getString()});
    }
    SQLite::Statement up(db,
                         "UPDATE semantic_memories SET subject = ?, dedup_hash = ? WHERE seq = ?");
    for (const Row& r : rows) {
      const std::string subject = r.subject.empty() ? r.subject : NormalizeSubject(r.subject);
      Scope scope;
      scope.kind = r.scope;
      scope.project_id = r.project_id;
      scope.path = r.path;
      sdk::Bind(up,
                subject, static_cast<int64_t>(DedupHash(r.kind, scope, subject, r.value, r.text)),
                static_cast<int64_t>(r.seq));
      up.exec();
      up.reset();
    }
  }
  {
    std::vector<std::pair<std::string, std::int64_t>> tags;
    SQLite::Statement q(db, "SELECT tag, memory_seq FROM semantic_memory_tags");
    while (q.executeStep()) tags.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt64());
    for (const auto& [tag, seq] : tags) {
      const std::string key = NormalizeTag(tag);
      if (key == tag || key.empty()) continue;
      SQLite::Statement ins(db,
                            "INSERT OR IGNORE INTO semantic_memory_tags(tag, memory_seq) VALUES (?, ?)");
      sdk::Bind(ins, key, static_cast<int64_t>(seq));
      ins.exec();
      SQLite::Statement del(db, "DELETE FROM semantic_memory_tags WHERE tag = ? AND memory_seq = ?");
      sdk::Bind(del, tag, static_cast<int64_t>(seq));
      del.exec();
    }
    std::vector<std::pair<std::int64_t, std::string>> joined;
    SQLite::Statement m(db, "SELECT seq, tags FROM semantic_memories WHERE tags <> ''");
    while (m.executeStep()) joined.emplace_back(m.getColumn(0).getInt64(), m.getColumn(1).getString());
    for (const auto& [seq, text] : joined) {
      std::vector<std::string> keys;
      for (const std::string& t : SplitTags(text)) {
        const std::string key = NormalizeTag(t);
        if (!key.empty() && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      }
      const std::string rejoined = JoinTags(keys);
      if (rejoined == text) continue;
      SQLite::Statement up(db, "UPDATE semantic_memories SET tags = ? WHERE seq = ?");
      sdk::Bind(up, rejoined, static_cast<int64_t>(seq));
      up.exec();
    }
  }
  {
    struct Ent {
      std::int64_t seq;
      std::string type, norm;
    };
    std::vector<Ent> ents;
    SQLite::Statement q(db, "SELECT seq, type, norm_name FROM semantic_entities ORDER BY seq");
    while (q.executeStep()) {
      ents.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getString()});
    }
    for (const Ent& e : ents) {
      const std::string key = NormalizeEntityName(e.norm);
      if (key == e.norm || key.empty()) continue;
      SQLite::Statement holder(db,
                               "SELECT seq FROM semantic_entities WHERE norm_name = ? AND type = ? "
                               "AND seq <> ?");
      sdk::Bind(holder, key, e.type, static_cast<int64_t>(e.seq));
      if (!holder.executeStep()) {
        SQLite::Statement up(db, "UPDATE semantic_entities SET norm_name = ? WHERE seq = ?");
        sdk::Bind(up, key, static_cast<int64_t>(e.seq));
        up.exec();
        continue;
      }
      const std::int64_t keep = holder.getColumn(0).getInt64();
      for (const char* sql :
           {"UPDATE OR IGNORE semantic_memory_entities SET entity_seq = ?1 WHERE entity_seq = ?2",
            "DELETE FROM semantic_memory_entities WHERE entity_seq = ?2",
            "UPDATE semantic_relations SET from_seq = ?1 WHERE from_seq = ?2",
            "UPDATE semantic_relations SET to_seq = ?1 WHERE to_seq = ?2",
            "DELETE FROM semantic_entities WHERE seq = ?2"}) {
        SQLite::Statement st(db, sql);
        sdk::Bind(st, static_cast<int64_t>(keep), static_cast<int64_t>(e.seq));
        st.exec();
      }
    }
  }
}

// Substring indexes without positions: a trigram index with detail=full stores every
// trigram's offset (≈199 B per ~75-character memory, the largest index), detail=none only
// which rows hold it (≈60 B), and columnsize=0 drops the per-row token counts nothing reads.
// Phrase queries need positions, so the substring lists MATCH an AND of the trigrams and
// keep the rows where sdk kioku_substrings finds them adjacent (recall.cpp SubstringList,
// graph_tools.cpp SearchEntities). The update and delete triggers stay as they are.
constexpr const char* kSubstringIndexesSql = R"SQL(
DROP TABLE semantic_fts_trigram;
CREATE VIRTUAL TABLE semantic_fts_trigram USING fts5(
  text, content='semantic_memories', content_rowid='seq', tokenize='trigram', detail=none, columnsize=0);
INSERT INTO semantic_fts_trigram(semantic_fts_trigram) VALUES ('rebuild');
DROP TABLE semantic_entities_fts;
CREATE VIRTUAL TABLE semantic_entities_fts USING fts5(
  name, content='semantic_entities', content_rowid='seq', tokenize='trigram', detail=none, columnsize=0);
INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('rebuild');
)SQL";

// Entity names stored once: `name` is emptied where it equals `norm_name` (entity_store.hpp
// kEntityNameSql reads it back), and the substring index holds the normalized names, which
// a query is folded to as well (sdk::MatchKey: NFKC and full case folding, where the
// trigram tokenizer folds simple case only).
constexpr const char* kEntityNamesOnceSql = R"SQL(
DROP TABLE semantic_entities_fts;
CREATE VIRTUAL TABLE semantic_entities_fts USING fts5(
  norm_name, content='semantic_entities', content_rowid='seq', tokenize='trigram', detail=none, columnsize=0);
INSERT INTO semantic_entities_fts(semantic_entities_fts) VALUES ('rebuild');
DROP TRIGGER semantic_entities_ad;
CREATE TRIGGER semantic_entities_ad AFTER DELETE ON semantic_entities BEGIN
  INSERT INTO semantic_entities_fts(semantic_entities_fts, rowid, norm_name)
    VALUES ('delete', old.seq, old.norm_name);
END;
UPDATE semantic_entities SET name = '' WHERE name = norm_name;
)SQL";

// The word index merged as it grows (MemoryWriter::Finish asks it to merge after a write):
// with usermerge 2 a level's two segments merge into the next, so it keeps about
// log2(writes) segments. Each search probes every segment: at 1,000 memories written in
// batches of 100 the index held 10 segments, and a single-token lookup cost ~120,000
// instructions (~50,000 with one segment).
constexpr const char* kMergedIndexesSql = R"SQL(
INSERT INTO semantic_fts(semantic_fts, rank) VALUES ('usermerge', 2);
)SQL";

// A counter of changes to what the word index holds other than new rows at the top:
// deleted memories, a changed text, subject, value or tags, and a memory inserted below the
// newest (an import keeping its seq). What rival detection keeps of the index across writes
// (rival_cache.hpp) is valid while the counter stands still; new rows at the top it reads
// itself. The row is made by the first change, so a fresh store's tables stay empty.
constexpr const char* kTextEpochSql = R"SQL(
CREATE TABLE semantic_text_epoch (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
);
CREATE TRIGGER semantic_text_epoch_delete AFTER DELETE ON semantic_memories BEGIN
  INSERT OR REPLACE INTO semantic_text_epoch(id, epoch)
    VALUES (1, coalesce((SELECT epoch FROM semantic_text_epoch WHERE id = 1), 0) + 1);
END;
CREATE TRIGGER semantic_text_epoch_update AFTER UPDATE OF text, subject, value, tags ON semantic_memories
  WHEN new.text IS NOT old.text OR new.subject IS NOT old.subject OR new.value IS NOT old.value
    OR new.tags IS NOT old.tags BEGIN
  INSERT OR REPLACE INTO semantic_text_epoch(id, epoch)
    VALUES (1, coalesce((SELECT epoch FROM semantic_text_epoch WHERE id = 1), 0) + 1);
END;
CREATE TRIGGER semantic_text_epoch_insert AFTER INSERT ON semantic_memories
  WHEN new.seq < (SELECT max(seq) FROM semantic_memories) BEGIN
  INSERT OR REPLACE INTO semantic_text_epoch(id, epoch)
    VALUES (1, coalesce((SELECT epoch FROM semantic_text_epoch WHERE id = 1), 0) + 1);
END;
)SQL";

// Entity ids computed, not stored (entity_store.hpp EntityId: sdk::DerivedId of created_at
// and seq): the 26-character id column and its unique index were 39% of an entity's bytes
// (≈66 of 170 B). AUTOINCREMENT so a purged entity's seq, and with it its id, is never
// given to another. Other ids an entity answers to live in semantic_entity_ids: those given
// out before this migration and those an import brought for entities it merged or
// renumbered; `shown` marks the one the entity is shown with (at most one each). The table
// is rebuilt under deferred foreign keys: dropping it leaves the links and relations
// pointing at missing rows until the copy puts every seq back, and a copy that missed one
// fails the commit. DROP TABLE fires no delete trigger, so the name index needs no rebuild.
constexpr const char* kDerivedEntityIdsSql = R"SQL(
PRAGMA defer_foreign_keys = ON;
CREATE TABLE semantic_entities_v11 AS SELECT * FROM semantic_entities;
DROP TABLE semantic_entities;
CREATE TABLE semantic_entities (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  type       TEXT NOT NULL,
  name       TEXT NOT NULL,
  norm_name  TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (norm_name, type)
);
INSERT INTO semantic_entities(seq, type, name, norm_name, created_at)
  SELECT seq, type, name, norm_name, created_at FROM semantic_entities_v11;
CREATE TRIGGER semantic_entities_ad AFTER DELETE ON semantic_entities BEGIN
  INSERT INTO semantic_entities_fts(semantic_entities_fts, rowid, norm_name)
    VALUES ('delete', old.seq, old.norm_name);
END;
CREATE TABLE semantic_entity_ids (
  id         TEXT PRIMARY KEY,
  entity_seq INTEGER NOT NULL REFERENCES semantic_entities(seq) ON DELETE CASCADE,
  shown      INTEGER NOT NULL DEFAULT 0 CHECK (shown IN (0, 1))
) WITHOUT ROWID;
CREATE UNIQUE INDEX semantic_entity_ids_shown ON semantic_entity_ids(entity_seq) WHERE shown = 1;
CREATE INDEX semantic_entity_ids_entity ON semantic_entity_ids(entity_seq);
INSERT INTO semantic_entity_ids(id, entity_seq, shown) SELECT id, seq, 1 FROM semantic_entities_v11;
DROP TABLE semantic_entities_v11;
)SQL";

// The three indexes merged less eagerly by FTS5 itself: automerge 8 (the default is 4)
// lets a level gather eight segments before FTS5 merges them into the next, so a segment is
// rewritten about half as often as the store grows (FTS5 documentation, "The 'automerge'
// configuration option"). The word index stays merged by the writers' bounded 'merge' steps
// (kMergedIndexesSql), so it keeps its ~7 segments at 100,000 memories; the substring and
// name indexes hold ~16 and ~21 instead of ~8 and ~16. Measured (bench/README.md): writes at
// 100,000 memories +8–14%, search p50 unchanged (0.7–0.8 ms). The setting lives in each
// table's %_config: a migration that recreates one of these tables must set it again.
constexpr const char* kLazierFtsMergesSql = R"SQL(
INSERT INTO semantic_fts(semantic_fts, rank) VALUES ('automerge', 8);
INSERT INTO semantic_fts_trigram(semantic_fts_trigram, rank) VALUES ('automerge', 8);
INSERT INTO semantic_entities_fts(semantic_entities_fts, rank) VALUES ('automerge', 8);
)SQL";

// A counter of changes to the rest of what rival detection reads of a memory (its id,
// kind, status, scope, project, path and expiry; the text epoch covers text, subject and
// value, deletes and inserts below the newest). The candidates' rows a process keeps across
// writes (rival_cache.hpp SideCache) are valid while both counters stand still. Recall
// counters and other columns do not move it.
constexpr const char* kRowEpochSql = R"SQL(
CREATE TABLE semantic_row_epoch (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
);
CREATE TRIGGER semantic_row_epoch_update
  AFTER UPDATE OF id, kind, status, scope, project_id, path, expires_at ON semantic_memories
  WHEN new.id IS NOT old.id OR new.kind IS NOT old.kind OR new.status IS NOT old.status
    OR new.scope IS NOT old.scope OR new.project_id IS NOT old.project_id OR new.path IS NOT old.path
    OR new.expires_at IS NOT old.expires_at BEGIN
  INSERT OR REPLACE INTO semantic_row_epoch(id, epoch)
    VALUES (1, coalesce((SELECT epoch FROM semantic_row_epoch WHERE id = 1), 0) + 1);
END;
)SQL";

// Memory ids computed, not stored (memory.hpp MemoryIdSql): a memory written from here on
// has `own_id` NULL and the id sdk::SeqId(captured_at, id_nonce, seq) (memory.hpp MemoryNonce), which the view
// semantic_memory_ids(seq, id) computes in plain SQL (readable by any SQLite, the sqlite3
// shell included; a virtual column would be computed on every insert and update). The
// 26-character id and its unique index were ≈66 of ≈780 bytes a memory (dbstat, bench at
// 100,000); the nonce costs 4. Ids given out before, and those an import brings, stay in `own_id` under a
// partial unique index. AUTOINCREMENT so a purged memory's seq, and with it its id, is
// never given to another. SQLite cannot drop a NOT NULL UNIQUE column in place, so the
// table is rebuilt (https://sqlite.org/lang_altertable.html#otheralter) with foreign key
// enforcement off: dropping the old table with it on would cascade into the tags, links and
// review rows. Its indexes and triggers are made again from their stored SQL, the row epoch
// trigger watching the id's inputs (own_id, captured_at, id_nonce) where it watched id.
void DerivedMemoryIds(SQLite::Database& db) {
  std::vector<std::string> again;
  {
    SQLite::Statement q(db,
                        "SELECT sql FROM sqlite_master WHERE tbl_name = 'semantic_memories' AND type IN ('index', "
                        "'trigger') AND sql IS NOT NULL AND name <> 'semantic_row_epoch_update' ORDER BY rowid");
    while (q.executeStep()) again.push_back(q.getColumn(0).getString());
  }
  constexpr const char* kColumns =
      "kind, text, subject, value, tags, cjk, importance, confidence, status, prior_status, source, source_ref, "
      "scope, project_id, path, anchor, expires_at, agent_id, session_id, captured_at, updated_at, recall_count, "
      "last_recalled_at, reaffirm_count, superseded_at, superseded_by, dedup_hash";
  db.exec(R"SQL(
CREATE TABLE semantic_memories_v15 (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  own_id           TEXT,
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
  dedup_hash       INTEGER NOT NULL,
  id_nonce         INTEGER NOT NULL DEFAULT 0
);
)SQL");
  db.exec(std::string("INSERT INTO semantic_memories_v15(seq, own_id, ") + kColumns + ") SELECT seq, id, " + kColumns +
          " FROM semantic_memories ORDER BY seq");
  db.exec("DROP TABLE semantic_memories");
  db.exec("ALTER TABLE semantic_memories_v15 RENAME TO semantic_memories");
  db.exec("CREATE UNIQUE INDEX semantic_memories_own_id ON semantic_memories(own_id) WHERE own_id IS NOT NULL");
  for (const std::string& sql : again) db.exec(sql);
  db.exec(R"SQL(
CREATE TRIGGER semantic_row_epoch_update
  AFTER UPDATE OF own_id, captured_at, id_nonce, kind, status, scope, project_id, path, expires_at ON semantic_memories
  WHEN new.own_id IS NOT old.own_id OR new.captured_at IS NOT old.captured_at OR new.id_nonce IS NOT old.id_nonce
    OR new.kind IS NOT old.kind OR new.status IS NOT old.status OR new.scope IS NOT old.scope
    OR new.project_id IS NOT old.project_id OR new.path IS NOT old.path OR new.expires_at IS NOT old.expires_at BEGIN
  INSERT OR REPLACE INTO semantic_row_epoch(id, epoch)
    VALUES (1, coalesce((SELECT epoch FROM semantic_row_epoch WHERE id = 1), 0) + 1);
END;
)SQL");
  db.exec("CREATE VIEW semantic_memory_ids(seq, id) AS SELECT seq, " + MemoryIdSql() + " FROM semantic_memories");
}

// Interned keys (keys.hpp): a memory's project, agent and session stored as the seq of their
// text in semantic_keys, seq 0 being "". SQLite drops a column in place when nothing in the
// schema names it (https://sqlite.org/lang_altertable.html#altertabdropcol), so the subject
// index and the row epoch trigger, which name project_id, are made again over project_key.
// Rows keep their seq, so ids, FTS rowids and every link stand.
constexpr const char* kInternedKeysSql = R"SQL(
CREATE TABLE semantic_keys (
  seq  INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO semantic_keys(text)
  SELECT t FROM (SELECT project_id AS t FROM semantic_memories UNION SELECT agent_id FROM semantic_memories
  UNION SELECT session_id FROM semantic_memories) WHERE t <> '';
DROP INDEX semantic_memories_subject;
DROP TRIGGER semantic_row_epoch_update;
ALTER TABLE semantic_memories ADD COLUMN project_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE semantic_memories ADD COLUMN agent_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE semantic_memories ADD COLUMN session_key INTEGER NOT NULL DEFAULT 0;
UPDATE semantic_memories SET
  project_key = coalesce((SELECT seq FROM semantic_keys WHERE text = project_id), 0),
  agent_key = coalesce((SELECT seq FROM semantic_keys WHERE text = agent_id), 0),
  session_key = coalesce((SELECT seq FROM semantic_keys WHERE text = session_id), 0);
ALTER TABLE semantic_memories DROP COLUMN project_id;
ALTER TABLE semantic_memories DROP COLUMN agent_id;
ALTER TABLE semantic_memories DROP COLUMN session_id;
CREATE INDEX semantic_memories_subject ON semantic_memories(subject, scope, project_key, path)
  WHERE subject <> '';
CREATE TRIGGER semantic_row_epoch_update
  AFTER UPDATE OF own_id, captured_at, id_nonce, kind, status, scope, project_key, path, expires_at ON semantic_memories
  WHEN new.own_id IS NOT old.own_id OR new.captured_at IS NOT old.captured_at OR new.id_nonce IS NOT old.id_nonce
    OR new.kind IS NOT old.kind OR new.status IS NOT old.status OR new.scope IS NOT old.scope
    OR new.project_key IS NOT old.project_key OR new.path IS NOT old.path OR new.expires_at IS NOT old.expires_at BEGIN
  INSERT OR REPLACE INTO semantic_row_epoch(id, epoch)
    VALUES (1, coalesce((SELECT epoch FROM semantic_row_epoch WHERE id = 1), 0) + 1);
END;
)SQL";

// Entity types interned (keys.hpp): `type_key` holds the seq of the type's text in
// semantic_keys where `type` held the text, in the row and in the (norm_name, type) unique
// index (24 of 621 bytes a memory at 100,000 bench items, two entities each). The unique
// constraint names the column, so the table is rebuilt
// (https://sqlite.org/lang_altertable.html#otheralter) with foreign key enforcement off:
// dropping it with enforcement on would cascade into semantic_entity_ids. Rows keep their
// seq, so links, relations, kept ids and the name index (external content, by rowid) stand;
// the AUTOINCREMENT counter is carried over, so a purged entity's seq stays unused.
void InternedEntityTypes(SQLite::Database& db) {
  const std::int64_t counter =
      db.execAndGet("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'semantic_entities'), 0)").getInt64();
  db.exec(R"SQL(
INSERT OR IGNORE INTO semantic_keys(text) SELECT DISTINCT type FROM semantic_entities WHERE type <> '';
CREATE TABLE semantic_entities_v18 (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  type_key   INTEGER NOT NULL,
  name       TEXT NOT NULL,
  norm_name  TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (norm_name, type_key)
);
INSERT INTO semantic_entities_v18(seq, type_key, name, norm_name, created_at)
  SELECT seq, coalesce((SELECT k.seq FROM semantic_keys k WHERE k.text = e.type), 0), name, norm_name, created_at
  FROM semantic_entities e ORDER BY seq;
DROP TABLE semantic_entities;
ALTER TABLE semantic_entities_v18 RENAME TO semantic_entities;
CREATE TRIGGER semantic_entities_ad AFTER DELETE ON semantic_entities BEGIN
  INSERT INTO semantic_entities_fts(semantic_entities_fts, rowid, norm_name)
    VALUES ('delete', old.seq, old.norm_name);
END;
)SQL");
  for (const char* sql : {"UPDATE sqlite_sequence SET seq = max(seq, ?1) WHERE name = 'semantic_entities'",
                          "INSERT INTO sqlite_sequence(name, seq) SELECT 'semantic_entities', ?1 WHERE ?1 > 0 AND NOT "
                          "EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'semantic_entities')"}) {
    SQLite::Statement q(db, sql);
    sdk::Bind(q, counter);
    q.exec();
  }
}

// The memory insert opens no statement journal (MemoryWriter's INSERT OR FAIL). SQLite
// opens one for a statement that has triggers and may abort, and every statement that opens
// one calls each FTS5 table of the transaction's xSavepoint: 26,000 instructions a memory,
// 6% of a batch write at 1,000 memories. A trigger body may abort when it calls a function
// (random()), checks a foreign key, or meets a NOT NULL or CHECK constraint under REPLACE; so
// the two insert triggers get bodies that cannot:
// - the text epoch ensures its row and bumps it under IGNORE (its CHECK and NOT NULL hold);
// - the embed queue loses its foreign key (a delete trigger does what CASCADE did) and queues
//   an inserted memory under IGNORE with ticket 0: a new seq has no queue row (seqs are never
//   reused), and a text edit queues it again with a random() ticket, which a worker that
//   embedded the first text does not dequeue.
// The queue is copied aside and back, not renamed: a rename checks every trigger, and
// semantic_embed_on_text names the table.
constexpr const char* kJournalFreeInsertsSql = R"SQL(
DROP TRIGGER semantic_text_epoch_insert;
CREATE TRIGGER semantic_text_epoch_insert AFTER INSERT ON semantic_memories
  WHEN new.seq < (SELECT max(seq) FROM semantic_memories) BEGIN
  INSERT OR IGNORE INTO semantic_text_epoch(id, epoch) VALUES (1, 0);
  UPDATE OR IGNORE semantic_text_epoch SET epoch = epoch + 1 WHERE id = 1;
END;
DROP TRIGGER semantic_embed_on_insert;
CREATE TABLE semantic_embed_queue_v19 AS SELECT * FROM semantic_embed_queue;
DROP TABLE semantic_embed_queue;
CREATE TABLE semantic_embed_queue (
  memory_seq INTEGER PRIMARY KEY,
  ticket     INTEGER NOT NULL,
  queued_at  INTEGER NOT NULL,
  attempts   INTEGER NOT NULL DEFAULT 0,
  next_at    INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT ''
);
INSERT INTO semantic_embed_queue(memory_seq, ticket, queued_at, attempts, next_at, last_error)
  SELECT memory_seq, ticket, queued_at, attempts, next_at, last_error FROM semantic_embed_queue_v19;
DROP TABLE semantic_embed_queue_v19;
CREATE INDEX semantic_embed_queue_due ON semantic_embed_queue(next_at, queued_at);
CREATE TRIGGER semantic_embed_queue_ad AFTER DELETE ON semantic_memories BEGIN
  DELETE FROM semantic_embed_queue WHERE memory_seq = old.seq;
END;
CREATE TRIGGER semantic_embed_on_insert AFTER INSERT ON semantic_memories
  WHEN EXISTS (SELECT 1 FROM semantic_embed_on) BEGIN
  INSERT OR IGNORE INTO semantic_embed_queue(memory_seq, ticket, queued_at) VALUES (new.seq, 0, new.updated_at);
END;
)SQL";

// The substring and entity-name indexes lag their rows (index_lag.hpp): each holds exactly
// the rows up to its mark, and the rows above it are read by scanning them. So a delete or
// a text change touches such an index only for a row it holds. A missing mark is 0 (a new
// store's: the chain of a store without tables leaves no row, so the host can replay its
// schema, host/src/migrations.cpp). Every later statement that rebuilds one of these
// indexes must set its mark to the newest row (MarkIndexesWhole).
constexpr const char* kLaggingIndexesSql = R"SQL(
CREATE TABLE semantic_index_marks (
  name TEXT PRIMARY KEY,
  seq  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO semantic_index_marks(name, seq) SELECT 'substring', max(seq) FROM semantic_memories HAVING max(seq) > 0;
INSERT INTO semantic_index_marks(name, seq) SELECT 'entity_name', max(seq) FROM semantic_entities HAVING max(seq) > 0;
DROP TRIGGER semantic_memories_ad;
CREATE TRIGGER semantic_memories_ad AFTER DELETE ON semantic_memories BEGIN
  INSERT INTO semantic_fts(semantic_fts, rowid, text, subject, value, tags)
    VALUES ('delete', old.seq, old.text, old.subject, old.value, old.tags);
END;
CREATE TRIGGER semantic_memories_ad_trigram AFTER DELETE ON semantic_memories
  WHEN old.seq <= coalesce((SELECT seq FROM semantic_index_marks WHERE name = 'substring'), 0) BEGIN
  INSERT INTO semantic_fts_trigram(semantic_fts_trigram, rowid, text) VALUES ('delete', old.seq, old.text);
END;
DROP TRIGGER semantic_memories_au_trigram;
CREATE TRIGGER semantic_memories_au_trigram AFTER UPDATE OF text ON semantic_memories
  WHEN old.seq <= coalesce((SELECT seq FROM semantic_index_marks WHERE name = 'substring'), 0) BEGIN
  INSERT INTO semantic_fts_trigram(semantic_fts_trigram, rowid, text) VALUES ('delete', old.seq, old.text);
  INSERT INTO semantic_fts_trigram(rowid, text) VALUES (new.seq, new.text);
END;
DROP TRIGGER semantic_entities_ad;
CREATE TRIGGER semantic_entities_ad AFTER DELETE ON semantic_entities
  WHEN old.seq <= coalesce((SELECT seq FROM semantic_index_marks WHERE name = 'entity_name'), 0) BEGIN
  INSERT INTO semantic_entities_fts(semantic_entities_fts, rowid, norm_name) VALUES ('delete', old.seq, old.norm_name);
END;
)SQL";

}  // namespace

std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects) {
  std::vector<sdk::Migration> out;
  out.push_back({1, "memories, history, tags, FTS (porter, trigram, CJK bigram), entities, "
                    "bi-temporal relations",
                 kV1, nullptr});
  out.push_back({2, "index new rows in FTS at the end of each write transaction instead of "
                    "per-row insert triggers",
                 kV2, nullptr});
  out.push_back(sdk::ProjectKeysMigration(3, {{"semantic_memories", "project_id", "path"}}, projects));
  out.push_back({4, "matching keys by Unicode NFKC case folding (subjects, dedupe hashes, tags, "
                    "entity names; colliding entities merged)",
                 "", RekeyUnicode});
  out.push_back(VectorsMigration(static_cast<int>(out.size()) + 1));
  out.push_back({static_cast<int>(out.size()) + 1, "review queue: rival pairs without a subject, memory_used marks, confidence decay "
                    "state, housekeeping runs",
                 kTrustMigrationSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "substring (trigram) indexes of memories and entity names without positions or row sizes",
                 kSubstringIndexesSql, nullptr});
  out.push_back(sdk::QueueWhileEmbeddingMigration(static_cast<int>(out.size()) + 1, MemoryVectorTables()));
  out.push_back({static_cast<int>(out.size()) + 1,
                 "entity names stored once (name emptied where it equals norm_name); name index over norm_name",
                 kEntityNamesOnceSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "word index merged as it grows (FTS5 usermerge 2; writers merge after each write)",
                 kMergedIndexesSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "text epoch: a counter of deletes, text/subject/value/tags changes and inserts below the newest memory",
                 kTextEpochSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "entity ids computed from created_at and seq (sdk::DerivedId) instead of stored; seqs never reused; "
                 "ids given out before, and those imports bring, kept in semantic_entity_ids",
                 kDerivedEntityIdsSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "word, substring and entity-name indexes merged less eagerly by FTS5 (automerge 8)",
                 kLazierFtsMergesSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "row epoch: a counter of changes to a memory's id, kind, status, scope, project, path or expiry",
                 kRowEpochSql, nullptr});
  {
    sdk::Migration ids{kDerivedMemoryIdsVersion,
                       "memory ids computed from captured_at, a nonce and seq (sdk::SeqId; view semantic_memory_ids) instead of "
                       "stored; seqs never reused; ids given out before, and those imports bring, kept in own_id",
                       "", DerivedMemoryIds};
    ids.foreign_keys_off = true;
    out.push_back(std::move(ids));
  }
  out.push_back({kInternedKeysVersion,
                 "a memory's project, agent and session stored as keys of semantic_keys (project_key, agent_key, "
                 "session_key) instead of their text",
                 kInternedKeysSql, nullptr});
  // 4 bytes in the row and in semantic_memories_dedup where 8 were (8 of 631 bytes a memory
  // at 100,000 bench items).
  out.push_back({static_cast<int>(out.size()) + 1, "reaffirm keys (dedup_hash) of 31 bits, 4 bytes where 8 were", "",
                 CutDedupHashes});
  {
    sdk::Migration types{static_cast<int>(out.size()) + 1,
                         "entity types stored as keys of semantic_keys (type_key) instead of their text", "",
                         InternedEntityTypes};
    types.foreign_keys_off = true;
    out.push_back(std::move(types));
  }
  out.push_back({static_cast<int>(out.size()) + 1,
                 "memory inserts open no statement journal: insert triggers that cannot abort (text epoch under "
                 "IGNORE; embed queue without a foreign key, queued under IGNORE with ticket 0)",
                 kJournalFreeInsertsSql, nullptr});
  out.push_back({static_cast<int>(out.size()) + 1,
                 "substring and entity-name indexes lag their rows up to a mark (semantic_index_marks), caught up "
                 "off the request path; delete and text-change triggers touch them only below the mark",
                 kLaggingIndexesSql, nullptr});
  return out;
}

void ApplyMigrations(SQLite::Database& db) {
  for (const sdk::Migration& m : Migrations()) {
    const sdk::MigrationForeignKeys foreign_keys(db, m);
    sdk::WithWriteTransaction(db, [&] { sdk::ApplyMigrationStep(db, m); });
  }
}

}  // namespace kioku::semantic
