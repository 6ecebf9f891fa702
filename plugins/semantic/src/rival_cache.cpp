#include "rival_cache.hpp"

#include <algorithm>

#include <SQLiteCpp/Statement.h>

namespace kioku::semantic {

void PostingsCache::Sync(std::int64_t max_seq, std::int64_t rows) {
  std::lock_guard lock(mu_);
  if (max_seq - max_seq_ != rows - rows_) {
    tokens_.clear();
    held_rows_ = 0;
  }
  max_seq_ = max_seq;
  rows_ = rows;
}

PostingsCache::Entry PostingsCache::Find(const std::string& token) {
  std::lock_guard lock(mu_);
  const auto it = tokens_.find(token);
  return it == tokens_.end() ? Entry{} : it->second;
}

void PostingsCache::Put(const std::string& token, Entry entry) {
  std::lock_guard lock(mu_);
  auto it = tokens_.find(token);
  if (it != tokens_.end()) {
    held_rows_ -= it->second.rows.size();
  } else if (tokens_.size() >= max_tokens_) {
    tokens_.clear();
    held_rows_ = 0;
  }
  if (held_rows_ + entry.rows.size() > max_rows_) {
    tokens_.clear();
    held_rows_ = 0;
  }
  held_rows_ += entry.rows.size();
  tokens_[token] = std::move(entry);
}

void PostingsCache::Clear() {
  std::lock_guard lock(mu_);
  tokens_.clear();
  held_rows_ = 0;
}

std::size_t PostingsCache::Size() {
  std::lock_guard lock(mu_);
  return tokens_.size();
}

std::int64_t IndexedRows(SQLite::Database& db, const std::string& table) {
  SQLite::Statement q(db, "SELECT block FROM " + table + "_data WHERE id = 1");
  if (!q.executeStep()) return 0;
  const SQLite::Column block = q.getColumn(0);
  const auto* p = static_cast<const unsigned char*>(block.getBlob());
  const int n = block.getBytes();
  // SQLite varint (sqlite3Fts5GetVarint): big-endian 7-bit groups, high bit = more; the
  // ninth byte carries 8 bits.
  std::uint64_t v = 0;
  for (int i = 0; i < n && i < 9; ++i) {
    if (i == 8) return static_cast<std::int64_t>((v << 8) | p[i]);
    v = (v << 7) | (p[i] & 0x7f);
    if ((p[i] & 0x80) == 0) break;
  }
  return static_cast<std::int64_t>(v);
}

std::shared_ptr<const TopicProfile> ProfileCache::Find(std::int64_t seq, std::uint64_t content) {
  std::lock_guard lock(mu_);
  for (auto* generation : {&newer_, &older_}) {
    const auto it = generation->find(seq);
    if (it != generation->end() && it->second.content == content) return it->second.profile;
  }
  return nullptr;
}

void ProfileCache::Put(std::int64_t seq, std::uint64_t content, std::shared_ptr<const TopicProfile> profile) {
  std::lock_guard lock(mu_);
  if (newer_.size() >= half_) {
    older_ = std::move(newer_);
    newer_.clear();
  }
  newer_[seq] = Kept{content, std::move(profile)};
}

void ProfileCache::Clear() {
  std::lock_guard lock(mu_);
  newer_.clear();
  older_.clear();
}

std::size_t ProfileCache::Size() {
  std::lock_guard lock(mu_);
  return newer_.size() + older_.size();
}

std::uint64_t ContentHash(std::string_view text, std::string_view subject, std::string_view value) {
  std::uint64_t h = 14695981039346656037ULL;
  for (std::string_view part : {text, subject, value}) {
    for (const char c : part) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    h *= 1099511628211ULL;  // the 0 byte after each part
  }
  return h;
}

}  // namespace kioku::semantic
