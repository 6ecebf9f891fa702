#include "term_counts.hpp"

namespace kioku::semantic {

std::optional<TermCount> TermCountCache::Find(const std::string& generation, const std::string& term) {
  std::lock_guard lock(mu_);
  if (generation.empty() || generation != generation_) return std::nullopt;
  const auto it = counts_.find(term);
  if (it == counts_.end()) return std::nullopt;
  return it->second;
}

void TermCountCache::Put(const std::string& generation, const std::string& term, const TermCount& count) {
  if (generation.empty()) return;
  std::lock_guard lock(mu_);
  if (generation != generation_) {
    generation_ = generation;
    counts_.clear();
  }
  if (counts_.size() >= max_terms_ && counts_.find(term) == counts_.end()) counts_.clear();
  counts_[term] = count;
}

std::size_t TermCountCache::Size() {
  std::lock_guard lock(mu_);
  return counts_.size();
}

}  // namespace kioku::semantic
