#include "rival_cache.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <SQLiteCpp/Statement.h>

namespace kioku::semantic {

void PostingsCache::Sync(std::int64_t epoch) {
  std::lock_guard lock(mu_);
  if (epoch != epoch_) ClearLocked();
  epoch_ = epoch;
}

PostingsCache::Entry PostingsCache::Find(const std::string& token) {
  std::lock_guard lock(mu_);
  const auto it = tokens_.find(token);
  return it == tokens_.end() ? Entry{} : it->second;
}

void PostingsCache::Put(const std::string& token, Entry entry) {
  std::lock_guard lock(mu_);
  PutLocked(token, std::move(entry));
}

void PostingsCache::PutAllAt(std::int64_t epoch, std::vector<std::pair<std::string, Entry>> entries) {
  std::lock_guard lock(mu_);
  if (epoch != epoch_) return;
  for (auto& [token, entry] : entries) PutLocked(token, std::move(entry));
}

void PostingsCache::PutLocked(const std::string& token, Entry entry) {
  auto it = tokens_.find(token);
  if (it != tokens_.end()) {
    held_rows_ -= it->second.rows.size();
  } else if (tokens_.size() >= max_tokens_) {
    ClearLocked();
  }
  if (held_rows_ + entry.rows.size() > max_rows_) ClearLocked();
  held_rows_ += entry.rows.size();
  tokens_[token] = std::move(entry);
}

void PostingsCache::Clear() {
  std::lock_guard lock(mu_);
  ClearLocked();
}

void PostingsCache::ClearLocked() {
  tokens_.clear();
  held_rows_ = 0;
}

std::size_t PostingsCache::Size() {
  std::lock_guard lock(mu_);
  return tokens_.size();
}

RowEpochs ReadRowEpochs(SQLite::Database& db) {
  SQLite::Statement q(db,
                      "SELECT (SELECT epoch FROM semantic_text_epoch WHERE id = 1), "
                      "(SELECT epoch FROM semantic_row_epoch WHERE id = 1)");
  q.executeStep();
  return {q.getColumn(0).isNull() ? 0 : q.getColumn(0).getInt64(),
          q.getColumn(1).isNull() ? 0 : q.getColumn(1).getInt64()};
}

std::optional<Memory> SideCache::Find(std::int64_t seq, const RowEpochs& at) {
  std::lock_guard lock(mu_);
  if (epochs_ != at) return std::nullopt;
  const Memory* kept = rows_.Find(seq, [](const Memory&) { return true; });
  return kept != nullptr ? std::optional<Memory>(*kept) : std::nullopt;
}

void SideCache::Publish(const RowEpochs& at, const std::vector<const Memory*>& rows) {
  std::lock_guard lock(mu_);
  if (epochs_ != at) rows_.Clear();
  epochs_ = at;
  for (const Memory* m : rows) rows_.Put(m->seq, *m);
}

void SideCache::Clear() {
  std::lock_guard lock(mu_);
  rows_.Clear();
}

std::size_t SideCache::Size() {
  std::lock_guard lock(mu_);
  return rows_.Size();
}

void RivalCache::DropIfShrunk(std::int64_t rows) {
  {
    std::lock_guard lock(mu_);
    const bool shrunk = rows < high_;
    high_ = rows;
    if (!shrunk) return;
  }
  Drop();
}

void RivalCache::Drop() {
  postings.Clear();
  sides.Clear();
  terms.Clear();
  std::lock_guard lock(mu_);
  anchor_seq_ = 0;
}

void RivalCache::Anchor(std::int64_t seq, std::string key) {
  std::lock_guard lock(mu_);
  if (seq < anchor_seq_) return;
  anchor_seq_ = seq;
  anchor_key_ = std::move(key);
}

std::pair<std::int64_t, std::string> RivalCache::AnchorRow() {
  std::lock_guard lock(mu_);
  return {anchor_seq_, anchor_key_};
}

std::shared_ptr<const TopicProfile> ProfileCache::Find(std::int64_t seq, std::uint64_t content) {
  std::lock_guard lock(mu_);
  const Kept* kept = kept_.Find(seq, [content](const Kept& k) { return k.content == content; });
  return kept != nullptr ? kept->profile : nullptr;
}

void ProfileCache::Put(std::int64_t seq, std::uint64_t content, std::shared_ptr<const TopicProfile> profile) {
  std::lock_guard lock(mu_);
  kept_.Put(seq, Kept{content, std::move(profile)});
}

void ProfileCache::Clear() {
  std::lock_guard lock(mu_);
  kept_.Clear();
}

std::size_t ProfileCache::Size() {
  std::lock_guard lock(mu_);
  return kept_.Size();
}

std::uint64_t ContentHash(std::string_view text, std::string_view subject, std::string_view value) {
  // 8 bytes a step, multiplied and rotated as FxHash does, where FNV-1a took one byte a step
  // (~440 instructions a lookup, and a batch write looks up four profiles a memory).
  std::uint64_t h = 0;
  const auto add = [&h](std::uint64_t x) { h = (std::rotl(h, 5) ^ x) * 0x517cc1b727220a95ULL; };
  for (const std::string_view part : {text, subject, value}) {
    std::size_t i = 0;
    for (; i + 8 <= part.size(); i += 8) {
      std::uint64_t x;
      std::memcpy(&x, part.data() + i, 8);
      add(x);
    }
    std::uint64_t tail = 0;
    for (std::size_t k = 0; i + k < part.size(); ++k) tail |= std::uint64_t{static_cast<unsigned char>(part[i + k])} << (8 * k);
    add(tail);
    add(part.size());  // ends the part: ("ab", "c") and ("a", "bc") differ
  }
  return h ^ (h >> 32);
}

}  // namespace kioku::semantic
