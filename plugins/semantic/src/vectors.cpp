#include "vectors.hpp"

#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/vectors.hpp"

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

std::vector<PendingEmbed> DuePending(SQLite::Database& db, std::int64_t now_ms, int limit) {
  SQLite::Statement q(db,
                      "SELECT q.memory_seq, q.ticket, q.attempts, m.text FROM semantic_embed_queue q "
                      "JOIN semantic_memories m ON m.seq = q.memory_seq WHERE q.next_at <= ? "
                      "ORDER BY q.next_at, q.queued_at LIMIT ?");
  sdk::Bind(q, static_cast<int64_t>(now_ms), limit);
  std::vector<PendingEmbed> out;
  while (q.executeStep()) {
    PendingEmbed p;
    p.seq = q.getColumn(0).getInt64();
    p.ticket = q.getColumn(1).getInt64();
    p.attempts = q.getColumn(2).getInt();
    p.text = q.getColumn(3).getString();
    out.push_back(std::move(p));
  }
  return out;
}

QueueCounts CountQueue(SQLite::Database& db) {
  QueueCounts c;
  SQLite::Statement q(db, "SELECT count(*), count(*) FILTER (WHERE attempts > 0) FROM semantic_embed_queue");
  q.executeStep();
  c.queued = q.getColumn(0).getInt64();
  c.failing = q.getColumn(1).getInt64();
  SQLite::Statement e(db,
                      "SELECT last_error FROM semantic_embed_queue WHERE last_error <> '' "
                      "ORDER BY next_at DESC LIMIT 1");
  if (e.executeStep()) c.last_error = e.getColumn(0).getString();
  return c;
}

void StoreVector(SQLite::Database& db, std::int64_t seq, std::int64_t ticket, const std::string& model,
                 const std::vector<float>& unit, std::int64_t now_ms) {
  const std::string blob = sdk::PackVector(unit);
  SQLite::Statement q(db,
                      "INSERT OR REPLACE INTO semantic_vectors(memory_seq, model, dim, vec, embedded_at, version) "
                      "SELECT ?, ?, ?, ?, ?, coalesce(max(version), 0) + 1 FROM semantic_vectors");
  sdk::Bind(q, static_cast<int64_t>(seq), model, static_cast<int>(unit.size()));
  q.bind(4, blob.data(), static_cast<int>(blob.size()));
  q.bind(5, static_cast<int64_t>(now_ms));
  q.exec();
  SQLite::Statement d(db, "DELETE FROM semantic_embed_queue WHERE memory_seq = ? AND ticket = ?");
  sdk::Bind(d, static_cast<int64_t>(seq), static_cast<int64_t>(ticket));
  d.exec();
}

void MarkFailed(SQLite::Database& db, std::int64_t seq, const std::string& error, std::int64_t retry_at_ms) {
  SQLite::Statement q(db,
                      "UPDATE semantic_embed_queue SET attempts = attempts + 1, last_error = ?, next_at = ? "
                      "WHERE memory_seq = ?");
  sdk::Bind(q, error.substr(0, 500), static_cast<int64_t>(retry_at_ms), static_cast<int64_t>(seq));
  q.exec();
}

std::int64_t QueueAll(SQLite::Database& db, const std::string& model, bool missing_only, std::int64_t now_ms) {
  std::string sql =
      "INSERT OR REPLACE INTO semantic_embed_queue(memory_seq, ticket, queued_at) "
      "SELECT m.seq, random(), ? FROM semantic_memories m";
  if (missing_only) {
    sql += " WHERE NOT EXISTS (SELECT 1 FROM semantic_vectors v WHERE v.memory_seq = m.seq AND v.model = ?)"
           " AND NOT EXISTS (SELECT 1 FROM semantic_embed_queue q WHERE q.memory_seq = m.seq)";
  }
  SQLite::Statement q(db, sql);
  sdk::Bind(q, static_cast<int64_t>(now_ms));
  if (missing_only) q.bind(2, model);
  return q.exec();
}

std::optional<StoreModel> ReadStoreModel(SQLite::Database& db) {
  SQLite::Statement q(db, "SELECT model, dim FROM semantic_vector_store WHERE id = 1");
  if (!q.executeStep()) return std::nullopt;
  return StoreModel{q.getColumn(0).getString(), q.getColumn(1).getInt()};
}

void WriteStoreModel(SQLite::Database& db, const StoreModel& m, std::int64_t now_ms) {
  SQLite::Statement q(db,
                      "INSERT INTO semantic_vector_store(id, model, dim, updated_at) VALUES (1, ?, ?, ?) "
                      "ON CONFLICT(id) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
                      "updated_at = excluded.updated_at");
  sdk::Bind(q, m.model, m.dim, static_cast<int64_t>(now_ms));
  q.exec();
}

void ForEachVector(SQLite::Database& db, const std::string& model, int dim, std::int64_t after_version,
                   const std::function<void(std::int64_t, std::int64_t, std::vector<float>&&)>& sink) {
  SQLite::Statement q(db,
                      "SELECT memory_seq, version, vec FROM semantic_vectors WHERE model = ? AND dim = ? "
                      "AND version > ? ORDER BY version");
  sdk::Bind(q, model, dim, static_cast<int64_t>(after_version));
  while (q.executeStep()) {
    const SQLite::Column blob = q.getColumn(2);
    auto v = sdk::UnpackVector(blob.getBlob(), static_cast<std::size_t>(blob.getBytes()));
    if (!v || v->size() != static_cast<std::size_t>(dim)) continue;
    sink(q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), std::move(*v));
  }
}

std::pair<std::int64_t, std::int64_t> CountVectors(SQLite::Database& db, const std::string& model) {
  SQLite::Statement q(db, "SELECT count(*), count(*) FILTER (WHERE model = ?) FROM semantic_vectors");
  sdk::Bind(q, model);
  q.executeStep();
  return {q.getColumn(0).getInt64(), q.getColumn(1).getInt64()};
}

std::int64_t MaxVectorVersion(SQLite::Database& db, const std::string& model) {
  SQLite::Statement q(db, "SELECT coalesce(max(version), 0) FROM semantic_vectors WHERE model = ?");
  sdk::Bind(q, model);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

std::optional<std::vector<float>> LoadVector(SQLite::Database& db, std::int64_t seq, const std::string& model) {
  SQLite::Statement q(db, "SELECT vec FROM semantic_vectors WHERE memory_seq = ? AND model = ?");
  sdk::Bind(q, static_cast<int64_t>(seq), model);
  if (!q.executeStep()) return std::nullopt;
  const SQLite::Column blob = q.getColumn(0);
  return sdk::UnpackVector(blob.getBlob(), static_cast<std::size_t>(blob.getBytes()));
}

}  // namespace kioku::semantic
