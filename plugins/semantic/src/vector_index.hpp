#pragma once
/// @file vector_index.hpp
/// The semantic layer's vector search: one in-memory sdk::VectorIndex over the stored
/// vectors of the store's model (vectors.hpp), kept in step with the database by vector
/// version (other processes' writes are picked up on the next query), with the HNSW graph
/// persisted in the data directory (`semantic-vectors-<model>-<dim>.hnsw` plus a `.json`
/// sidecar naming model, dim and the highest version it holds), so a restart loads it and
/// adds only newer vectors instead of rebuilding.
///
/// Status words (recall's `vectors` field):
///   "off"        no embedder configured (nothing said to the model);
///   "hybrid"     the query was embedded and the vector list joined fusion;
///   "text-only"  vectors cannot be compared (nothing embedded yet, or the stored vectors
///                are of another model/dimension: `kioku embed --all` re-embeds);
///   "degraded"   the endpoint failed or its circuit is open; text search only.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/embedding.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/vectors.hpp"
#include "settings.hpp"

namespace kioku::semantic {

struct VectorQuery {
  std::string status = "off";  ///< See the file comment.
  std::string note;            ///< One line for the answer when status is not hybrid/off.
  /// Label = memory seq, best first, cosine >= VectorSettings::min_score.
  std::vector<sdk::VectorHit> hits;
};

class MemoryVectors {
 public:
  /// `embedder` may be null (status "off"). `data_dir` holds the persisted graph.
  MemoryVectors(sdk::Embedder* embedder, std::filesystem::path data_dir, const VectorSettings& settings,
                sdk::Logger* log);
  ~MemoryVectors();

  sdk::Embedder* Embedder() const { return embedder_; }
  const VectorSettings& Settings() const { return settings_; }

  /// Why vectors cannot be used now ("" = they can): no embedder, nothing embedded, or a
  /// model/dimension mismatch between the store and the embedder. No network traffic.
  std::string Unusable(SQLite::Database& db, std::string* status) const;

  /// Embeds `text` and returns the `k` nearest memories. Never throws for endpoint faults
  /// (they become status "degraded").
  VectorQuery Query(SQLite::Database& db, const std::string& text, std::size_t k);

  /// Nearest stored memories to an already normalized vector of the store's model (dedup,
  /// calibration). Empty when vectors are unusable.
  std::vector<sdk::VectorHit> Nearest(SQLite::Database& db, const std::vector<float>& unit, std::size_t k);

  /// For a write's answer: "" while the endpoint is healthy (or none is configured), else
  /// one line saying the memory is stored and will be embedded when the endpoint is back.
  /// No network traffic (reads the embedder's health).
  std::string WriteNote() const;

  /// Drops the in-memory index (after a model switch); the next query rebuilds it.
  void Reset();

  /// Persists the HNSW graph (no-op in exact mode). Called at plugin stop.
  void Save();

  /// Number of vectors in the in-memory index and whether it uses HNSW (after a sync).
  std::pair<std::size_t, bool> IndexState(SQLite::Database& db);

 private:
  // Brings the index up to the database's vectors of `model`/`dim`; exclusive lock inside.
  void Sync(SQLite::Database& db, const std::string& model, int dim);
  std::filesystem::path GraphPath(const std::string& model, int dim) const;

  sdk::Embedder* embedder_;
  std::filesystem::path data_dir_;
  VectorSettings settings_;
  sdk::Logger* log_;
  mutable std::shared_mutex mu_;
  std::unique_ptr<sdk::VectorIndex> index_;
  std::string model_;
  int dim_ = 0;
  std::int64_t version_ = 0;  // highest vector version in index_
  bool loaded_from_disk_ = false;
  bool dirty_ = false;  // graph changed since load/save
};

}  // namespace kioku::semantic
