#pragma once
/// @file fusion.hpp
/// Reciprocal Rank Fusion: Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms
/// Condorcet and individual Rank Learning Methods", SIGIR 2009. For each document d,
///   RRF(d) = Σ_lists  w_i / (k + rank_i(d))     with rank starting at 1,
/// and k = 60 (the paper's value). Documents absent from a list contribute nothing for it.

#include <string>
#include <vector>

namespace kioku::sdk {

/// One rank list: ids, best first. Duplicates after the first occurrence are ignored.
struct RankList {
  std::vector<std::string> ids;
  double weight = 1.0;
  std::string name;  ///< e.g. "bm25", "trigram", "entity", "vector" — for explanations.
};

struct FusedItem {
  std::string id;
  double score = 0;
  /// 1-based rank of this id in each input list (same order as the input), 0 = absent.
  std::vector<int> ranks;
};

/// Fuses rank lists with RRF. Output sorted by score descending; ties broken by the best
/// single rank, then by id for determinism. `k` must be > 0 and finite, and weights finite
/// (std::invalid_argument otherwise).
std::vector<FusedItem> ReciprocalRankFusion(const std::vector<RankList>& lists,
                                            double k = 60.0);

}  // namespace kioku::sdk
