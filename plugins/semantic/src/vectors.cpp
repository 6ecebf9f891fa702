#include "vectors.hpp"


namespace kioku::semantic {
namespace {

// The queue is filled by triggers so that every write path (remember, edit, import, and
// whatever is added later) queues without knowing about embeddings. random() gives each
// queueing a fresh ticket: a worker that embedded an older text does not dequeue a newer one.
constexpr const char* kVectorsSql = R"SQL(
CREATE TABLE semantic_vectors (
  memory_seq  INTEGER PRIMARY KEY REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  model       TEXT NOT NULL,
  dim         INTEGER NOT NULL CHECK (dim > 0),
  vec         BLOB NOT NULL CHECK (length(vec) = 4 * dim),
  embedded_at INTEGER NOT NULL,
  version     INTEGER NOT NULL
);
CREATE INDEX semantic_vectors_version ON semantic_vectors(version);

CREATE TABLE semantic_vector_store (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  model      TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE semantic_embed_queue (
  memory_seq INTEGER PRIMARY KEY REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  ticket     INTEGER NOT NULL,
  queued_at  INTEGER NOT NULL,
  attempts   INTEGER NOT NULL DEFAULT 0,
  next_at    INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX semantic_embed_queue_due ON semantic_embed_queue(next_at, queued_at);

CREATE TRIGGER semantic_embed_on_insert AFTER INSERT ON semantic_memories BEGIN
  INSERT OR REPLACE INTO semantic_embed_queue(memory_seq, ticket, queued_at)
  VALUES (new.seq, random(), new.updated_at);
END;
CREATE TRIGGER semantic_embed_on_text AFTER UPDATE OF text ON semantic_memories
WHEN new.text IS NOT old.text BEGIN
  INSERT OR REPLACE INTO semantic_embed_queue(memory_seq, ticket, queued_at)
  VALUES (new.seq, random(), new.updated_at);
END;

INSERT INTO semantic_embed_queue(memory_seq, ticket, queued_at)
  SELECT seq, random(), updated_at FROM semantic_memories;
)SQL";

}  // namespace

sdk::Migration VectorsMigration(int version) {
  return {version, "memory embeddings: vectors (model, dim, float32), store model, embed queue filled by triggers",
          kVectorsSql, nullptr};
}

const sdk::VectorTables& MemoryVectorTables() {
  static const sdk::VectorTables tables{
      .prefix = "semantic",
      .key = "memory_seq",
      .source = "semantic_memories",
      .source_key = "seq",
      .time_column = "updated_at",
      .text_sql = "{row}.text",
      .text_columns = {"text"},
      .filter = "",
      // Superseded memories keep their vectors but leave recall (but for an as_of in the past).
      .sample_filter = "{row}.status <> 'superseded'",
      .item = "memory",
      .items = "memories",
  };
  return tables;
}

sdk::VectorSettings ToSdkVectorSettings(const VectorSettings& s) {
  sdk::VectorSettings out;
  out.weight = s.weight;
  out.min_score = s.min_score;
  out.exact_below = s.exact_below;
  out.batch_size = s.batch_size;
  out.poll_ms = s.poll_ms;
  out.start_delay_ms = s.start_delay_ms;
  return out;
}

}  // namespace kioku::semantic
