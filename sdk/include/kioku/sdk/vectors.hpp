#pragma once
/// @file vectors.hpp
/// Float32 vectors: validation, normalization, the stored blob format, and a nearest-
/// neighbour index that is exact (brute-force dot products) below a size threshold and HNSW
/// above it. hnswlib stays inside vector_index.cpp; this header is light.
///
/// Similarity is the cosine, computed as the dot product of unit vectors (so a score lies
/// in [-1, 1], 1 = same direction). HNSW: Malkov & Yashunin, "Efficient and robust
/// approximate nearest neighbor search using Hierarchical Navigable Small World graphs",
/// IEEE TPAMI 2018; implementation hnswlib (Debian libhnswlib-dev), inner-product space.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kioku::sdk {

/// Why `v` must not be stored or compared, or nullopt when it is fine: wrong length
/// (`expected_dim` > 0 and v.size() differs), empty, a NaN or infinite component, or a zero
/// (below 1e-12) Euclidean norm. The message names the fault ("has 512 values, expected 384").
std::optional<std::string> CheckVector(std::span<const float> v, int expected_dim);

/// Scales `v` to unit Euclidean length in place. Precondition: CheckVector(v, 0) passed.
void Normalize(std::vector<float>& v);

/// Dot product (cosine for unit vectors). Precondition: equal lengths.
float Dot(std::span<const float> a, std::span<const float> b);

/// The stored form: the values as little-endian IEEE-754 float32, 4 bytes each, no header
/// (length = dim * 4; the dimension is stored in its own column).
std::string PackVector(std::span<const float> v);
/// Inverse of PackVector; nullopt when `bytes` is not a multiple of 4.
std::optional<std::vector<float>> UnpackVector(const void* bytes, std::size_t size);

/// One search hit: the caller's label and the cosine similarity to the query.
struct VectorHit {
  std::int64_t label = 0;
  float score = 0;
};

struct VectorIndexOptions {
  /// At or above this many vectors, search uses HNSW; below, exact dot products. 0 = always
  /// HNSW; a huge value = always exact.
  std::size_t exact_below = 5000;
  int hnsw_m = 16;                 ///< HNSW graph degree (hnswlib M).
  int hnsw_ef_construction = 200;  ///< Build-time candidate list size.
  int hnsw_ef_search = 96;         ///< Query-time candidate list size (raised to k if smaller).
};

/// A label → unit-vector index of one dimension. Vectors are normalized on Add. Labels are
/// the caller's ids (e.g. a row's primary key); adding an existing label replaces its vector.
///
/// Thread-safety: Search may run concurrently with other Searches; Add/Remove/Save/Load need
/// exclusive access (the caller holds a shared_mutex). Memory: exact keeps dim*4 bytes per
/// vector; HNSW adds about (dim*4 + M*2*4 + 16) bytes per vector.
class VectorIndex {
 public:
  VectorIndex(int dim, VectorIndexOptions options = {});
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  int Dimension() const;
  std::size_t Size() const;
  /// True when searches currently go through HNSW.
  bool UsesHnsw() const;

  /// Adds or replaces. Returns false (nothing stored) when CheckVector refuses `v`.
  bool Add(std::int64_t label, std::span<const float> v);
  /// Removes a label (no-op when absent).
  void Remove(std::int64_t label);

  /// The `k` most similar labels, best first, each with score >= `min_score`.
  /// A query that fails CheckVector returns nothing.
  std::vector<VectorHit> Search(std::span<const float> query, std::size_t k,
                                float min_score = -1.0f) const;
  /// Exact search regardless of size (for tests, calibration and benchmarks).
  std::vector<VectorHit> SearchExact(std::span<const float> query, std::size_t k,
                                     float min_score = -1.0f) const;

  /// Builds the HNSW graph now if the size calls for it (Add does so lazily on crossing the
  /// threshold; a Load'ed graph is kept).
  void EnsureHnsw();

  /// Persists the HNSW graph to `path` (atomic: temp file + rename). Returns false when there
  /// is no graph (exact mode: nothing worth saving) or on I/O failure.
  bool SaveHnsw(const std::filesystem::path& path) const;
  /// Loads a graph saved by SaveHnsw for this dimension, replacing whatever the index held
  /// (Size() and Labels() then match the file; searches use HNSW).
  /// Returns false (index unchanged) when the file is missing, unreadable or of another
  /// dimension.
  bool LoadHnsw(const std::filesystem::path& path);

  /// Every label currently stored (unspecified order).
  std::vector<std::int64_t> Labels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kioku::sdk
