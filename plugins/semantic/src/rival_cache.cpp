#include "rival_cache.hpp"

#include <algorithm>

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

std::shared_ptr<const TopicProfile> ProfileCache::Find(std::int64_t seq, std::string_view text,
                                                      std::string_view subject, std::string_view value) {
  std::lock_guard lock(mu_);
  const Kept* kept = kept_.Find(
      seq, [&](const Kept& k) { return k.text == text && k.subject == subject && k.value == value; });
  return kept != nullptr ? kept->profile : nullptr;
}

void ProfileCache::Put(std::int64_t seq, std::string_view text, std::string_view subject, std::string_view value,
                       std::shared_ptr<const TopicProfile> profile) {
  std::lock_guard lock(mu_);
  kept_.Put(seq, Kept{std::string(text), std::string(subject), std::string(value), std::move(profile)});
}

void ProfileCache::Clear() {
  std::lock_guard lock(mu_);
  kept_.Clear();
}

std::size_t ProfileCache::Size() {
  std::lock_guard lock(mu_);
  return kept_.Size();
}

}  // namespace kioku::semantic
