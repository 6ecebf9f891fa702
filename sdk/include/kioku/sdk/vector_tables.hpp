#pragma once
/// @file vector_tables.hpp
/// A layer's embeddings in its own tables. A layer declares which rows are embedded and
/// what their text is (VectorTables); the SDK gives it the tables, the triggers that queue
/// rows, and every read and write of them (VectorStore). Background embedding and search:
/// layer_vectors.hpp and embed_worker.hpp.
///
/// Tables (`<prefix>` = VectorTables::prefix, `<key>` = VectorTables::key):
///   <prefix>_vectors      one unit float32 vector per row: model, dim, blob (PackVector),
///                         embedded_at (host ms) and a `version` that grows with every
///                         write (the in-memory index syncs by it).
///   <prefix>_vector_store the store's model and dimension (one row): what queries compare
///                         against; vectors of another model are never compared.
///   <prefix>_embed_queue  rows waiting to be embedded: ticket, attempts, next try, last
///                         error. Filled by triggers on insert and on a change of a text
///                         column, so no write path waits for the embedder, and a restart
///                         resumes where it stopped. A deleted row leaves both tables.
///   <prefix>_embed_on     one row once an embedder has started on this database
///                         (StartQueueing): until then the triggers queue nothing, so a
///                         deployment without embeddings keeps no queue (45 bytes a memory
///                         before), and the first start queues every row missing a vector.
/// Every function runs on the caller's connection; writes must be inside a transaction.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/plugin.hpp"

namespace kioku::sdk {

/// What a layer embeds. SQL fragments are written by the layer (never from user input);
/// `{row}` in them stands for the row (`new` in a trigger, an alias in a query).
struct VectorTables {
  /// Table prefix, e.g. "procedural": the layer's name, which is also its settings key
  /// (messages name the setting `<prefix>.vectors.min_score`).
  std::string prefix;
  std::string key;                  ///< Key column of the vector and queue tables, e.g. "procedure_seq".
  std::string source;               ///< The embedded table, e.g. "procedural_procedures".
  std::string source_key = "seq";   ///< Its integer key ("seq", or "rowid").
  std::string time_column;          ///< Its Unix-ms column used as the queueing time.
  std::string text_sql;             ///< The text of a row, e.g. "{row}.summary".
  std::vector<std::string> text_columns;  ///< Columns whose change queues the row again.
  std::string filter;               ///< Condition a row must meet to be queued ("" = all).
  /// Further condition of a row search shows, for calibration samples (SampleEmbedded) when
  /// embedded rows may later leave search, e.g. "{row}.status <> 'superseded'" ("" = none).
  std::string sample_filter = "";
  std::string item = "row";         ///< Word for one row in messages ("procedure").
  std::string items = "rows";       ///< Plural ("procedures").

  std::string VectorsTable() const { return prefix + "_vectors"; }
  std::string StoreTable() const { return prefix + "_vector_store"; }
  std::string QueueTable() const { return prefix + "_embed_queue"; }
  std::string QueueingTable() const { return prefix + "_embed_on"; }
  /// `fragment` with `{row}` replaced by `alias`.
  static std::string WithRow(std::string fragment, const std::string& alias);
};

/// The migration creating the three tables and the triggers of `t`, and queueing every
/// existing row that meets the filter. `t.source` must exist at that version.
Migration VectorTablesMigration(int version, const VectorTables& t);

/// The migration that makes the triggers of `t` queue only once an embedder has started
/// (`<prefix>_embed_on`): a store with no vector yet has its queue emptied (StartQueueing
/// refills it); one with vectors is marked queueing and keeps its queue. Runs after
/// VectorTablesMigration (or a layer's own migration creating the same tables and triggers).
Migration QueueWhileEmbeddingMigration(int version, const VectorTables& t);

/// Removes the vector tables of `t` from an export section (export.hpp) made by
/// ExportLayerTables. Vectors are derived data keyed by a surrogate that an import may
/// renumber: an import queues the rows it adds through the insert trigger instead (or, on
/// a database no embedder has started on yet, StartQueueing does later), and the importing
/// server embeds them with its own model.
void EraseVectorTables(nlohmann::json& section, const VectorTables& t);

/// Counts for `kioku doctor` (ExporterSpec::doctor_counts): {"embedded": vectors stored,
/// "embed_queued": rows waiting, "embed_failing": of which failed at least once}; an empty
/// object while the layer's vector migration has not run (doctor does not migrate).
nlohmann::json VectorDoctorCounts(SQLite::Database& db, const VectorTables& t);

/// A queued row due for embedding, with its current text.
struct PendingEmbed {
  std::int64_t seq = 0;     ///< The source row's key.
  std::int64_t ticket = 0;  ///< Changes when the row is queued again (its text changed).
  int attempts = 0;
  std::string text;
};

struct QueueCounts {
  std::int64_t queued = 0;   ///< Rows in the queue.
  std::int64_t failing = 0;  ///< Of which have failed at least once.
  std::string last_error;    ///< Most recent failure message ("" = none).
};

/// The store's recorded model and dimension.
struct StoreModel {
  std::string model;
  int dim = 0;
};

/// Reads and writes of one layer's vector tables. Copyable, cheap; holds only names.
class VectorStore {
 public:
  explicit VectorStore(VectorTables tables);
  const VectorTables& Tables() const { return t_; }

  /// Up to `limit` queued rows due at `now_ms` (earliest retry, then oldest first).
  std::vector<PendingEmbed> DuePending(SQLite::Database& db, std::int64_t now_ms, int limit) const;
  QueueCounts CountQueue(SQLite::Database& db) const;
  /// Stores `unit` (validated and normalized) for `seq` under `model`, and removes the queue
  /// row if its ticket is still `ticket` (a newer edit keeps it queued).
  void StoreVector(SQLite::Database& db, std::int64_t seq, std::int64_t ticket, const std::string& model,
                   const std::vector<float>& unit, std::int64_t now_ms) const;
  /// A failed attempt: attempts + 1, the message (500 bytes at most), next try at `retry_at_ms`.
  void MarkFailed(SQLite::Database& db, std::int64_t seq, const std::string& error, std::int64_t retry_at_ms) const;
  /// Queues every row meeting the filter or, with `missing_only`, those without a vector of
  /// `model` and not queued. Returns how many were queued.
  std::int64_t QueueAll(SQLite::Database& db, const std::string& model, bool missing_only, std::int64_t now_ms) const;
  /// Whether the triggers queue rows: an embedder has started on this database.
  bool Queueing(SQLite::Database& db) const;
  /// Turns queueing on (idempotent): the first time, in one write transaction, marks the
  /// store and queues every row without a vector of `model`. Returns how many were queued
  /// (0 when it was on already). Called when a process with an embedder starts.
  std::int64_t StartQueueing(SQLite::Database& db, const std::string& model, std::int64_t now_ms) const;
  /// The store's model (nullopt before the first vector).
  std::optional<StoreModel> ReadStoreModel(SQLite::Database& db) const;
  void WriteStoreModel(SQLite::Database& db, const StoreModel& m, std::int64_t now_ms) const;
  /// Vectors of `model`/`dim` with version > `after_version`, in version order, to `sink`
  /// (key, version, vector). Rows of the wrong length are skipped.
  void ForEachVector(SQLite::Database& db, const std::string& model, int dim, std::int64_t after_version,
                     const std::function<void(std::int64_t, std::int64_t, std::vector<float>&&)>& sink) const;
  /// Stored vectors: total, and of `model`.
  std::pair<std::int64_t, std::int64_t> CountVectors(SQLite::Database& db, const std::string& model) const;
  /// Highest vector version of `model` (0 = none).
  std::int64_t MaxVectorVersion(SQLite::Database& db, const std::string& model) const;
  /// One stored vector (nullopt when absent, of another model, or malformed).
  std::optional<std::vector<float>> LoadVector(SQLite::Database& db, std::int64_t seq, const std::string& model) const;
  /// Whether `seq` has a vector of any model (a first embedding vs a re-embed).
  bool HasAnyVector(SQLite::Database& db, std::int64_t seq) const;
  /// Up to `limit` rows with a vector of `model` meeting `filter` and `sample_filter`, a
  /// uniform random choice (SQLite random()) returned in key order: (key, current text).
  /// With `limit` at or above their number, every such row, so the answer is deterministic.
  std::vector<std::pair<std::int64_t, std::string>> SampleEmbedded(SQLite::Database& db, const std::string& model,
                                                                   int limit) const;

 private:
  VectorTables t_;
};

}  // namespace kioku::sdk
