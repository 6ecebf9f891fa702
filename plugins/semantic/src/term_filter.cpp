#include "term_filter.hpp"

#include <algorithm>
#include <functional>
#include <iterator>

namespace kioku::semantic {
namespace {

void SortUnique(std::vector<std::uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

std::uint64_t TermFilter::Hash(std::string_view term) { return std::hash<std::string_view>{}(term); }

void TermFilter::Sync(std::int64_t text_epoch) {
  std::lock_guard lock(mu_);
  if (text_epoch != epoch_) ClearLocked();
  epoch_ = text_epoch;
}

bool TermFilter::Covers(std::int64_t newest, std::string_view newest_id) {
  std::lock_guard lock(mu_);
  return through_ == newest && through_id_ == newest_id;
}

bool TermFilter::Lacks(std::uint64_t hash, std::int64_t newest) {
  std::lock_guard lock(mu_);
  return through_ == newest && !std::binary_search(sorted_.begin(), sorted_.end(), hash) &&
         !std::binary_search(recent_.begin(), recent_.end(), hash);
}

void TermFilter::Reset(std::vector<std::uint64_t> hashes, std::int64_t through, std::string through_id) {
  SortUnique(hashes);
  std::lock_guard lock(mu_);
  sorted_ = std::move(hashes);
  recent_.clear();
  through_ = through;
  through_id_ = std::move(through_id);
}

void TermFilter::Extend(std::int64_t from, std::int64_t to, std::string to_id, std::vector<std::uint64_t> hashes) {
  SortUnique(hashes);
  std::lock_guard lock(mu_);
  if (through_ != from || to < from) {
    ClearLocked();
    return;
  }
  std::vector<std::uint64_t> merged;
  merged.reserve(recent_.size() + hashes.size());
  std::set_union(recent_.begin(), recent_.end(), hashes.begin(), hashes.end(), std::back_inserter(merged));
  recent_ = std::move(merged);
  if (recent_.size() > sorted_.size() / 8) {
    merged.clear();
    merged.reserve(sorted_.size() + recent_.size());
    std::set_union(sorted_.begin(), sorted_.end(), recent_.begin(), recent_.end(), std::back_inserter(merged));
    sorted_ = std::move(merged);
    recent_.clear();
  }
  through_ = to;
  through_id_ = std::move(to_id);
}

void TermFilter::Clear() {
  std::lock_guard lock(mu_);
  ClearLocked();
}

std::size_t TermFilter::Size() {
  std::lock_guard lock(mu_);
  return sorted_.size() + recent_.size();
}

void TermFilter::ClearLocked() {
  sorted_.clear();
  sorted_.shrink_to_fit();
  recent_.clear();
  through_.reset();
  through_id_.clear();
}

}  // namespace kioku::semantic
