#pragma once
/// @file eval_vectors.hpp
/// The vector list for the recall evaluations (`kioku recall-eval --vectors`): the
/// deployment's embedder (providers.embedding) embeds every memory of the private eval
/// store and each query, and the nearest memories by exact cosine (sdk::VectorIndex
/// SearchExact: normalized float32 dot products) become RecallRequest::vector_seqs,
/// so memory_recall fuses them exactly as it does for a live store. Hits under
/// `min_score` are dropped, as semantic.vectors.min_score does.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kioku/sdk/embedding.hpp"
#include "kioku/sdk/vectors.hpp"
#include "memory.hpp"
#include "recall.hpp"

namespace kioku::semantic {

class EvalVectors {
 public:
  /// `per_list`: most hits handed to recall (its candidates_per_list).
  EvalVectors(sdk::Embedder& embedder, double min_score, std::size_t per_list)
      : embedder_(embedder), min_score_(min_score), per_list_(per_list) {}

  /// Embeds the store's memories not embedded yet (batches of 64), then the query, and
  /// sets request.vector_seqs. Throws std::runtime_error with the embedder's error.
  void AddTo(const Env& env, RecallRequest& request);

  std::size_t Embedded() const { return index_ ? index_->Size() : 0; }
  std::string Model() const { return embedder_.Model(); }

 private:
  std::vector<std::vector<float>> Embed(const std::vector<std::string>& texts);

  sdk::Embedder& embedder_;
  double min_score_;
  std::size_t per_list_;
  std::unique_ptr<sdk::VectorIndex> index_;  ///< Created with the first vector's dimension.
};

}  // namespace kioku::semantic
