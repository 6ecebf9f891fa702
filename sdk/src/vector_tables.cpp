#include "kioku/sdk/vector_tables.hpp"

#include <nlohmann/json.hpp>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/vectors.hpp"

namespace kioku::sdk {

std::string VectorTables::WithRow(std::string fragment, const std::string& alias) {
  const std::string mark = "{row}";
  for (std::size_t at = fragment.find(mark); at != std::string::npos; at = fragment.find(mark, at + alias.size())) {
    fragment.replace(at, mark.size(), alias);
  }
  return fragment;
}

namespace {

// The triggers that queue a row on insert and on a change of its text. `gate`, when not
// empty, is a further condition (queue only while embedding is on).
std::string QueueTriggersSql(const VectorTables& t, const std::string& gate) {
  const std::string queue_new = "INSERT OR REPLACE INTO " + t.QueueTable() + "(" + t.key +
                                ", ticket, queued_at) VALUES (new." + t.source_key + ", random(), new." +
                                t.time_column + ");\n";
  std::string when_new = t.filter.empty() ? "" : VectorTables::WithRow(t.filter, "new");
  if (!gate.empty()) when_new = when_new.empty() ? gate : gate + " AND " + when_new;
  std::string sql = "CREATE TRIGGER " + t.prefix + "_embed_on_insert AFTER INSERT ON " + t.source +
                    (when_new.empty() ? "" : " WHEN " + when_new) + " BEGIN\n  " + queue_new + "END;\n";
  if (!t.text_columns.empty()) {
    std::string cols, changed;
    for (const std::string& c : t.text_columns) {
      cols += (cols.empty() ? "" : ", ") + c;
      changed += (changed.empty() ? "(" : " OR ") + ("new." + c + " IS NOT old." + c);
    }
    changed += ")";
    if (!t.filter.empty()) changed += " AND " + VectorTables::WithRow(t.filter, "new");
    if (!gate.empty()) changed = gate + " AND " + changed;
    sql += "CREATE TRIGGER " + t.prefix + "_embed_on_text AFTER UPDATE OF " + cols + " ON " + t.source +
           " WHEN " + changed + " BEGIN\n  " + queue_new + "END;\n";
  }
  return sql;
}

std::string QueueingOn(const VectorTables& t) { return "EXISTS (SELECT 1 FROM " + t.QueueingTable() + ")"; }

}  // namespace

// The queue is filled by triggers so that every write path (tools, import, whatever is
// added later) queues without knowing about embeddings. random() gives each queueing a
// fresh ticket: a worker that embedded an older text does not dequeue a newer one.
Migration VectorTablesMigration(int version, const VectorTables& t) {
  std::string sql = "CREATE TABLE " + t.VectorsTable() + " (\n  " + t.key +
                    " INTEGER PRIMARY KEY,\n  model TEXT NOT NULL,\n  dim INTEGER NOT NULL CHECK (dim > 0),\n"
                    "  vec BLOB NOT NULL CHECK (length(vec) = 4 * dim),\n  embedded_at INTEGER NOT NULL,\n"
                    "  version INTEGER NOT NULL\n);\n"
                    "CREATE INDEX " + t.VectorsTable() + "_version ON " + t.VectorsTable() + "(version);\n"
                    "CREATE TABLE " + t.StoreTable() +
                    " (\n  id INTEGER PRIMARY KEY CHECK (id = 1),\n  model TEXT NOT NULL,\n"
                    "  dim INTEGER NOT NULL,\n  updated_at INTEGER NOT NULL\n);\n"
                    "CREATE TABLE " + t.QueueTable() + " (\n  " + t.key +
                    " INTEGER PRIMARY KEY,\n  ticket INTEGER NOT NULL,\n  queued_at INTEGER NOT NULL,\n"
                    "  attempts INTEGER NOT NULL DEFAULT 0,\n  next_at INTEGER NOT NULL DEFAULT 0,\n"
                    "  last_error TEXT NOT NULL DEFAULT ''\n);\n"
                    "CREATE INDEX " + t.QueueTable() + "_due ON " + t.QueueTable() + "(next_at, queued_at);\n" +
                    QueueTriggersSql(t, "");
  // No foreign key: a rowid source cannot be referenced; the trigger does what CASCADE would.
  sql += "CREATE TRIGGER " + t.prefix + "_embed_on_delete AFTER DELETE ON " + t.source + " BEGIN\n  DELETE FROM " +
         t.VectorsTable() + " WHERE " + t.key + " = old." + t.source_key + ";\n  DELETE FROM " + t.QueueTable() +
         " WHERE " + t.key + " = old." + t.source_key + ";\nEND;\n";
  sql += "INSERT INTO " + t.QueueTable() + "(" + t.key + ", ticket, queued_at) SELECT m." + t.source_key +
         ", random(), m." + t.time_column + " FROM " + t.source + " m" +
         (t.filter.empty() ? "" : " WHERE " + VectorTables::WithRow(t.filter, "m")) + ";\n";
  Migration m;
  m.version = version;
  m.description = t.items + " embeddings: vectors (model, dim, float32), store model, embed queue filled by triggers";
  m.sql = sql;
  return m;
}

// A store where no vector was ever written had its queue filled for nothing: it is
// emptied, and StartQueueing fills it with every row missing a vector when an embedder
// first starts. A store with vectors keeps its queue and queues on.
Migration QueueWhileEmbeddingMigration(int version, const VectorTables& t) {
  Migration m;
  m.version = version;
  m.description = t.items + " embeddings: rows are queued only once an embedder has started (" + t.QueueingTable() + ")";
  m.sql = "CREATE TABLE " + t.QueueingTable() +
          " (\n  id INTEGER PRIMARY KEY CHECK (id = 1),\n  since INTEGER NOT NULL\n);\n"
          "INSERT INTO " + t.QueueingTable() + "(id, since) SELECT 1, updated_at FROM " + t.StoreTable() + " WHERE id = 1;\n"
          "DELETE FROM " + t.QueueTable() + " WHERE NOT EXISTS (SELECT 1 FROM " + t.QueueingTable() + ");\n"
          "DROP TRIGGER " + t.prefix + "_embed_on_insert;\n" +
          (t.text_columns.empty() ? "" : "DROP TRIGGER " + t.prefix + "_embed_on_text;\n") + QueueTriggersSql(t, QueueingOn(t));
  return m;
}

void EraseVectorTables(nlohmann::json& section, const VectorTables& t) {
  auto tables = section.find("tables");
  if (tables == section.end() || !tables->is_object()) return;
  for (const std::string& name : {t.VectorsTable(), t.StoreTable(), t.QueueTable(), t.QueueingTable()}) {
    tables->erase(name);
  }
}

nlohmann::json VectorDoctorCounts(SQLite::Database& db, const VectorTables& t) {
  if (!db.tableExists(t.QueueTable())) return nlohmann::json::object();
  const VectorStore store(t);
  const QueueCounts q = store.CountQueue(db);
  return {{"embedded", store.CountVectors(db, "").first}, {"embed_queued", q.queued}, {"embed_failing", q.failing}};
}

VectorStore::VectorStore(VectorTables tables) : t_(std::move(tables)) {}

std::vector<PendingEmbed> VectorStore::DuePending(SQLite::Database& db, std::int64_t now_ms, int limit) const {
  SQLite::Statement q(db, "SELECT q." + t_.key + ", q.ticket, q.attempts, " + VectorTables::WithRow(t_.text_sql, "m") +
                              " FROM " + t_.QueueTable() + " q JOIN " + t_.source + " m ON m." + t_.source_key +
                              " = q." + t_.key + " WHERE q.next_at <= ? ORDER BY q.next_at, q.queued_at LIMIT ?");
  Bind(q, static_cast<int64_t>(now_ms), limit);
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

QueueCounts VectorStore::CountQueue(SQLite::Database& db) const {
  QueueCounts c;
  SQLite::Statement q(db, "SELECT count(*), count(*) FILTER (WHERE attempts > 0) FROM " + t_.QueueTable());
  q.executeStep();
  c.queued = q.getColumn(0).getInt64();
  c.failing = q.getColumn(1).getInt64();
  SQLite::Statement e(db, "SELECT last_error FROM " + t_.QueueTable() +
                              " WHERE last_error <> '' ORDER BY next_at DESC LIMIT 1");
  if (e.executeStep()) c.last_error = e.getColumn(0).getString();
  return c;
}

void VectorStore::StoreVector(SQLite::Database& db, std::int64_t seq, std::int64_t ticket, const std::string& model,
                              const std::vector<float>& unit, std::int64_t now_ms) const {
  const std::string blob = PackVector(unit);
  SQLite::Statement q(db, "INSERT OR REPLACE INTO " + t_.VectorsTable() + "(" + t_.key +
                              ", model, dim, vec, embedded_at, version) "
                              "SELECT ?, ?, ?, ?, ?, coalesce(max(version), 0) + 1 FROM " + t_.VectorsTable());
  Bind(q, static_cast<int64_t>(seq), model, static_cast<int>(unit.size()));
  q.bind(4, blob.data(), static_cast<int>(blob.size()));
  q.bind(5, static_cast<int64_t>(now_ms));
  q.exec();
  SQLite::Statement d(db, "DELETE FROM " + t_.QueueTable() + " WHERE " + t_.key + " = ? AND ticket = ?");
  Bind(d, static_cast<int64_t>(seq), static_cast<int64_t>(ticket));
  d.exec();
}

void VectorStore::MarkFailed(SQLite::Database& db, std::int64_t seq, const std::string& error,
                             std::int64_t retry_at_ms) const {
  SQLite::Statement q(db, "UPDATE " + t_.QueueTable() +
                              " SET attempts = attempts + 1, last_error = ?, next_at = ? WHERE " + t_.key + " = ?");
  Bind(q, error.substr(0, 500), static_cast<int64_t>(retry_at_ms), static_cast<int64_t>(seq));
  q.exec();
}

std::int64_t VectorStore::QueueAll(SQLite::Database& db, const std::string& model, bool missing_only,
                                   std::int64_t now_ms) const {
  std::string where = t_.filter.empty() ? "" : VectorTables::WithRow(t_.filter, "m");
  if (missing_only) {
    where += std::string(where.empty() ? "" : " AND ") + "NOT EXISTS (SELECT 1 FROM " + t_.VectorsTable() +
             " v WHERE v." + t_.key + " = m." + t_.source_key + " AND v.model = ?) AND NOT EXISTS (SELECT 1 FROM " +
             t_.QueueTable() + " q WHERE q." + t_.key + " = m." + t_.source_key + ")";
  }
  SQLite::Statement q(db, "INSERT OR REPLACE INTO " + t_.QueueTable() + "(" + t_.key +
                              ", ticket, queued_at) SELECT m." + t_.source_key + ", random(), ? FROM " + t_.source +
                              " m" + (where.empty() ? "" : " WHERE " + where));
  Bind(q, static_cast<int64_t>(now_ms));
  if (missing_only) q.bind(2, model);
  return q.exec();
}

bool VectorStore::Queueing(SQLite::Database& db) const {
  if (!db.tableExists(t_.QueueingTable())) return false;
  SQLite::Statement q(db, "SELECT 1 FROM " + t_.QueueingTable());
  return q.executeStep();
}

std::int64_t VectorStore::StartQueueing(SQLite::Database& db, const std::string& model, std::int64_t now_ms) const {
  if (Queueing(db)) return 0;
  std::int64_t queued = 0;
  WithWriteTransaction(db, [&] {
    SQLite::Statement on(db, "INSERT OR IGNORE INTO " + t_.QueueingTable() + "(id, since) VALUES (1, ?)");
    Bind(on, static_cast<int64_t>(now_ms));
    if (on.exec() == 1) queued = QueueAll(db, model, true, now_ms);
  });
  return queued;
}

std::optional<StoreModel> VectorStore::ReadStoreModel(SQLite::Database& db) const {
  SQLite::Statement q(db, "SELECT model, dim FROM " + t_.StoreTable() + " WHERE id = 1");
  if (!q.executeStep()) return std::nullopt;
  return StoreModel{q.getColumn(0).getString(), q.getColumn(1).getInt()};
}

void VectorStore::WriteStoreModel(SQLite::Database& db, const StoreModel& m, std::int64_t now_ms) const {
  SQLite::Statement q(db, "INSERT INTO " + t_.StoreTable() +
                              "(id, model, dim, updated_at) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                              "model = excluded.model, dim = excluded.dim, updated_at = excluded.updated_at");
  Bind(q, m.model, m.dim, static_cast<int64_t>(now_ms));
  q.exec();
}

void VectorStore::ForEachVector(
    SQLite::Database& db, const std::string& model, int dim, std::int64_t after_version,
    const std::function<void(std::int64_t, std::int64_t, std::vector<float>&&)>& sink) const {
  SQLite::Statement q(db, "SELECT " + t_.key + ", version, vec FROM " + t_.VectorsTable() +
                              " WHERE model = ? AND dim = ? AND version > ? ORDER BY version");
  Bind(q, model, dim, static_cast<int64_t>(after_version));
  while (q.executeStep()) {
    const SQLite::Column blob = q.getColumn(2);
    auto v = UnpackVector(blob.getBlob(), static_cast<std::size_t>(blob.getBytes()));
    if (!v || v->size() != static_cast<std::size_t>(dim)) continue;
    sink(q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), std::move(*v));
  }
}

std::pair<std::int64_t, std::int64_t> VectorStore::CountVectors(SQLite::Database& db, const std::string& model) const {
  SQLite::Statement q(db, "SELECT count(*), count(*) FILTER (WHERE model = ?) FROM " + t_.VectorsTable());
  Bind(q, model);
  q.executeStep();
  return {q.getColumn(0).getInt64(), q.getColumn(1).getInt64()};
}

std::int64_t VectorStore::MaxVectorVersion(SQLite::Database& db, const std::string& model) const {
  SQLite::Statement q(db, "SELECT coalesce(max(version), 0) FROM " + t_.VectorsTable() + " WHERE model = ?");
  Bind(q, model);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

std::optional<std::vector<float>> VectorStore::LoadVector(SQLite::Database& db, std::int64_t seq,
                                                          const std::string& model) const {
  SQLite::Statement q(db, "SELECT vec FROM " + t_.VectorsTable() + " WHERE " + t_.key + " = ? AND model = ?");
  Bind(q, static_cast<int64_t>(seq), model);
  if (!q.executeStep()) return std::nullopt;
  const SQLite::Column blob = q.getColumn(0);
  return UnpackVector(blob.getBlob(), static_cast<std::size_t>(blob.getBytes()));
}

bool VectorStore::HasAnyVector(SQLite::Database& db, std::int64_t seq) const {
  SQLite::Statement q(db, "SELECT 1 FROM " + t_.VectorsTable() + " WHERE " + t_.key + " = ?");
  Bind(q, static_cast<int64_t>(seq));
  return q.executeStep();
}

std::vector<std::pair<std::int64_t, std::string>> VectorStore::SampleEmbedded(SQLite::Database& db,
                                                                            const std::string& model,
                                                                            int limit) const {
  std::string where = "v.model = ?";
  for (const std::string* f : {&t_.filter, &t_.sample_filter}) {
    if (!f->empty()) where += " AND (" + VectorTables::WithRow(*f, "m") + ")";
  }
  SQLite::Statement q(db, "SELECT k, text FROM (SELECT m." + t_.source_key + " AS k, " +
                              VectorTables::WithRow(t_.text_sql, "m") + " AS text FROM " + t_.VectorsTable() +
                              " v JOIN " + t_.source + " m ON m." + t_.source_key + " = v." + t_.key + " WHERE " +
                              where + " ORDER BY random() LIMIT ?) ORDER BY k");
  Bind(q, model, limit);
  std::vector<std::pair<std::int64_t, std::string>> out;
  while (q.executeStep()) out.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getString());
  return out;
}

}  // namespace kioku::sdk
