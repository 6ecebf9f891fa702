#include "kioku/sdk/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace kioku::sdk {

std::vector<FusedItem> ReciprocalRankFusion(const std::vector<RankList>& lists, double k) {
  if (!(k > 0) || !std::isfinite(k)) {
    throw std::invalid_argument("ReciprocalRankFusion: k must be a positive finite number");
  }
  for (const RankList& list : lists) {
    if (!std::isfinite(list.weight)) {  // NaN would break the sort's strict weak order
      throw std::invalid_argument("ReciprocalRankFusion: weight of list '" + list.name +
                                  "' is not finite");
    }
  }
  std::vector<FusedItem> items;
  std::unordered_map<std::string, std::size_t> index;  // id -> position in items
  for (std::size_t li = 0; li < lists.size(); ++li) {
    const RankList& list = lists[li];
    int rank = 0;
    for (const std::string& id : list.ids) {
      auto [it, inserted] = index.try_emplace(id, items.size());
      if (inserted) {
        items.push_back(FusedItem{id, 0.0, std::vector<int>(lists.size(), 0)});
      }
      FusedItem& item = items[it->second];
      if (item.ranks[li] != 0) continue;  // duplicate within this list: first one counts
      ++rank;
      item.ranks[li] = rank;
    }
  }
  // Sum per item in list order so equal rank patterns give bit-identical scores.
  for (FusedItem& item : items) {
    for (std::size_t li = 0; li < lists.size(); ++li) {
      if (item.ranks[li] != 0) item.score += lists[li].weight / (k + item.ranks[li]);
    }
  }
  const auto best_rank = [](const FusedItem& item) {
    int best = std::numeric_limits<int>::max();
    for (int r : item.ranks) {
      if (r != 0) best = std::min(best, r);
    }
    return best;
  };
  std::sort(items.begin(), items.end(), [&](const FusedItem& a, const FusedItem& b) {
    if (a.score != b.score) return a.score > b.score;
    const int ra = best_rank(a), rb = best_rank(b);
    if (ra != rb) return ra < rb;
    return a.id < b.id;
  });
  return items;
}

}  // namespace kioku::sdk
