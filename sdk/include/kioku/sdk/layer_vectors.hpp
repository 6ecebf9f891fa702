#pragma once
/// @file layer_vectors.hpp
/// A layer's vector search: one in-memory VectorIndex over the stored vectors of the
/// store's model (vector_tables.hpp), kept in step with the database by vector version
/// (other processes' writes are picked up on the next query), with the HNSW graph persisted
/// in the data directory (`<prefix>-vectors-<model>-<dim>.hnsw` plus a `.json` sidecar
/// naming model, dim and the highest version it holds), so a restart loads it and adds only
/// newer vectors instead of rebuilding.
///
/// Status words (a search tool's `vectors` field):
///   "off"        no embedder configured (nothing said to the model);
///   "hybrid"     the query was embedded and the vector list joined fusion;
///   "text-only"  vectors cannot be compared (nothing embedded yet, or the stored vectors
///                are of another model/dimension: `kioku embed --all` re-embeds);
///   "degraded"   the endpoint failed or its circuit is open; text search only.
///
/// Thread-safety: every member may be called from any thread (a shared_mutex guards the
/// index). Never throws for endpoint faults.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/embedding.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/vector_tables.hpp"
#include "kioku/sdk/vectors.hpp"

namespace kioku::sdk {

/// A layer's `vectors:` settings (VectorSettingsSchema declares them with their defaults).
struct VectorSettings {
  double weight = 1.0;      ///< RRF weight of the "vector" rank list.
  double min_score = 0.3;   ///< Cosine floor of vector hits (keyword hits are exempt).
  int exact_below = 5000;   ///< Below this many vectors search is exact; at or above, HNSW.
  int batch_size = 32;      ///< Rows per embedding request of the background worker.
  int poll_ms = 1000;       ///< The worker's wait when idle or after a failure.
  int start_delay_ms = 3000;  ///< The worker's wait before its first pass.
};

/// The `vectors:` settings object (settings.hpp: closed, a default on every leaf), with
/// `what` naming the rows in descriptions ("Procedures per embedding request.").
Json VectorSettingsSchema(const std::string& what);
/// The section as validated and completed by the host (absent keys keep the defaults above).
VectorSettings ParseVectorSettings(const Json& section);

struct VectorQuery {
  std::string status = "off";  ///< See the file comment.
  std::string note;            ///< One line for the answer when status is not hybrid/off.
  /// Label = the row's key, best first, cosine >= VectorSettings::min_score.
  std::vector<VectorHit> hits;
};

/// Fewest embedded rows LayerVectors::Calibrate measures on.
inline constexpr std::size_t kMinCalibrationRows = 10;

/// On-topic vs off-topic cosine scores on a layer's own store, for choosing
/// VectorSettings::min_score (LayerVectors::Calibrate; `kioku embed --calibrate`).
/// Percentiles interpolate linearly between the closest ranks (Hyndman & Fan, "Sample
/// quantiles in statistical packages", The American Statistician 1996, definition 7).
struct Calibration {
  /// Why nothing was measured ("" = measured, or too few rows): no embedder, stored vectors
  /// of another model, or the endpoint's error.
  std::string error;
  std::size_t rows = 0;          ///< Embedded rows sampled; below kMinCalibrationRows, no scores.
  std::vector<float> on_topic;   ///< One cosine per row: its first half of words vs its own vector.
  std::vector<float> off_topic;  ///< The same queries vs up to five random other rows each.
  double on_p10 = 0, on_p50 = 0, on_p90 = 0;
  double off_p50 = 0, off_p90 = 0, off_p95 = 0;
  /// Halfway between off_p95 and on_p10, clamped to [-1, 1]: most real matches pass, most
  /// unrelated rows do not.
  double suggested = 0;
  bool Measured() const { return error.empty() && rows >= kMinCalibrationRows; }
  /// The distributions overlap (on_p10 <= off_p95): the model separates topics poorly.
  bool Overlap() const { return on_p10 <= off_p95; }
};

class LayerVectors {
 public:
  /// `embedder` may be null (status "off"). `data_dir` holds the persisted graph.
  LayerVectors(VectorTables tables, Embedder* embedder, std::filesystem::path data_dir,
               const VectorSettings& settings, Logger* log);
  ~LayerVectors();

  const VectorStore& Store() const { return store_; }
  Embedder* GetEmbedder() const { return embedder_; }
  const VectorSettings& Settings() const { return settings_; }

  /// Why vectors cannot be used now ("" = they can): no embedder, nothing embedded, or a
  /// model/dimension mismatch between the store and the embedder. Sets `*status` ("off",
  /// "text-only", or "" when usable). No network traffic.
  std::string Unusable(SQLite::Database& db, std::string* status) const;

  /// Embeds `text` and returns the `k` nearest rows.
  VectorQuery Query(SQLite::Database& db, const std::string& text, std::size_t k);

  /// Nearest stored rows to an already normalized vector of the store's model (semantic
  /// dedup). Empty when vectors are unusable.
  std::vector<VectorHit> Nearest(SQLite::Database& db, const std::vector<float>& unit, std::size_t k);

  /// Measures a relevance floor on up to `sample` embedded rows (VectorStore::SampleEmbedded,
  /// so the layer's `filter` and `sample_filter` apply). On-topic: the first half of a row's
  /// whitespace-separated words (at least one), embedded in one request, against the row's
  /// stored vector. Off-topic: the same query against five rows drawn at random (fixed seed;
  /// a draw of the row itself is skipped). Needs kMinCalibrationRows rows (else only `rows`
  /// is set). Endpoint faults and unusable vectors come back in Calibration::error; database
  /// errors throw. One embedding request; the index is not used.
  Calibration Calibrate(SQLite::Database& db, int sample);

  /// For a write's answer: "" while the endpoint is healthy (or none is configured), else
  /// one line saying the row is stored and will be embedded when the endpoint is back.
  std::string WriteNote() const;

  /// Drops the in-memory index (after a model switch); the next query rebuilds it.
  void Reset();
  /// Persists the HNSW graph (no-op in exact mode). Call at plugin stop.
  void Save();
  /// Vectors in the in-memory index and whether it uses HNSW (after a sync).
  std::pair<std::size_t, bool> IndexState(SQLite::Database& db);

 private:
  void Sync(SQLite::Database& db, const std::string& model, int dim);
  std::filesystem::path GraphPath(const std::string& model, int dim) const;
  void SaveLocked(const std::filesystem::path& graph);

  VectorStore store_;
  Embedder* embedder_;
  std::filesystem::path data_dir_;
  VectorSettings settings_;
  Logger* log_;
  mutable std::shared_mutex mu_;
  std::unique_ptr<VectorIndex> index_;
  std::string model_;
  int dim_ = 0;
  std::int64_t version_ = 0;  // highest vector version in index_
  bool loaded_from_disk_ = false;
  bool dirty_ = false;  // graph changed since load/save
};

}  // namespace kioku::sdk
