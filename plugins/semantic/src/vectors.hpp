#pragma once
/// @file vectors.hpp
/// Storage of memory embeddings (schema: VectorsMigration):
///   semantic_vectors      one unit float32 vector per memory: model, dim, blob
///                         (sdk::PackVector), the text hash it was made from, and a
///                         `version` that grows with every write (index sync).
///   semantic_vector_store the store's model and dimension (one row): the model recall
///                         compares against; vectors of another model are never compared.
///   semantic_embed_queue  memories waiting to be embedded. Filled by triggers on insert and
///                         on a change of text, so no write path waits for (or even knows
///                         about) the embedder, and a restart resumes where it stopped.
/// Every function runs on the caller's connection; writes must be inside a transaction.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/plugin.hpp"

namespace kioku::semantic {

/// The migration creating the tables and triggers above and queueing every existing memory.
sdk::Migration VectorsMigration(int version);

struct PendingEmbed {
  std::int64_t seq = 0;
  std::int64_t ticket = 0;  ///< Changes when the memory is re-queued (its text changed).
  int attempts = 0;
  std::string text;
};

/// Up to `limit` queued memories due at `now_ms` (oldest first), with their current text.
/// Queue rows of purged memories are dropped.
std::vector<PendingEmbed> DuePending(SQLite::Database& db, std::int64_t now_ms, int limit);

struct QueueCounts {
  std::int64_t queued = 0;   ///< Rows in the queue.
  std::int64_t failing = 0;  ///< Of which have failed at least once.
  std::string last_error;    ///< Most recent failure message ("" = none).
};
QueueCounts CountQueue(SQLite::Database& db);

/// Stores `unit` (already validated and normalized) for `seq` under `model`, and removes
/// the queue row if its ticket is still `ticket` (a newer edit keeps it queued).
void StoreVector(SQLite::Database& db, std::int64_t seq, std::int64_t ticket, const std::string& model,
                 const std::vector<float>& unit, std::int64_t now_ms);

/// Records a failed attempt: attempts + 1, the message, and the next try at `retry_at_ms`.
void MarkFailed(SQLite::Database& db, std::int64_t seq, const std::string& error, std::int64_t retry_at_ms);

/// Queues every memory (re-embed after a model change: `kioku embed --all`) or, with
/// `missing_only`, those without a vector of `model`. Returns how many were queued.
std::int64_t QueueAll(SQLite::Database& db, const std::string& model, bool missing_only, std::int64_t now_ms);

struct StoreModel {
  std::string model;
  int dim = 0;
};
/// The store's recorded model (nullopt before the first vector).
std::optional<StoreModel> ReadStoreModel(SQLite::Database& db);
/// Records the store's model; vectors of other models stay stored but are not compared.
void WriteStoreModel(SQLite::Database& db, const StoreModel& m, std::int64_t now_ms);

/// Vectors of `model`/`dim` with version > `after_version`, streamed to `sink`
/// (seq, version, unpacked vector). Rows of the wrong length are skipped.
void ForEachVector(SQLite::Database& db, const std::string& model, int dim, std::int64_t after_version,
                   const std::function<void(std::int64_t seq, std::int64_t version, std::vector<float>&& v)>& sink);

/// Counts of stored vectors: total, and of `model`.
std::pair<std::int64_t, std::int64_t> CountVectors(SQLite::Database& db, const std::string& model);

/// Highest vector version of `model` (0 = none).
std::int64_t MaxVectorVersion(SQLite::Database& db, const std::string& model);

/// One stored vector (nullopt when absent, of another model, or malformed).
std::optional<std::vector<float>> LoadVector(SQLite::Database& db, std::int64_t seq, const std::string& model);

}  // namespace kioku::semantic
