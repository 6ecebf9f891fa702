#pragma once
/// @file rival_cache.hpp
/// What rival detection (rival_candidates.hpp) keeps across writes in one process: the
/// word index's rows of single tokens, and the topic profiles of memories. Both would
/// otherwise be read or built again in every write: at 10,000 memories the token rows were
/// a fifth of a batch write's instructions, and the candidates' profiles a tenth.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "rivals.hpp"

namespace kioku::semantic {

/// Rows of single tokens in the word index (semantic_fts), kept across writes for rival
/// detection (review_store.cpp RivalCandidates), which proposes as candidates the rows of
/// each token of a new memory held by at most recall.scan_limit memories. Rereading those
/// rows in every write cost a fifth of a batch write's instructions at 10,000 memories; kept
/// here, a write reads only the rows added since (`rowid > through`), and a token found in
/// more than scan_limit rows (common) is not read again.
///
/// Memories join the index at the top (seq = max(seq) + 1), so while the index's row count
/// grew by exactly as much as its highest seq, no row left it and what is kept still holds.
/// Sync() drops everything when that no longer holds (a purge, a pruned memory, an import
/// with its own seqs). An edit or a purge in this process calls Clear(), since an edit and
/// the purge of the newest row keep the two counts in step; one in another process can
/// leave a kept token one row off until this process sees rows leave the index. Only rows
/// of committed writes are kept (the caller says up to which seq). Bounded: cleared when
/// it would hold more than `max_rows` rows or `max_tokens` tokens. Thread-safe (one mutex).
class PostingsCache {
 public:
  struct Entry {
    std::vector<std::int64_t> rows;  ///< ascending, all <= through; empty when common
    std::int64_t through = 0;        ///< rows with seq <= through are all in `rows`
    bool common = false;             ///< more than scan_limit rows
  };

  explicit PostingsCache(std::size_t max_rows = 1 << 18, std::size_t max_tokens = 1 << 14)
      : max_rows_(max_rows), max_tokens_(max_tokens) {}

  /// Takes the index's shape now: `max_seq` = max(seq) of semantic_memories, `rows` = rows
  /// in semantic_fts (IndexedRows). Drops everything unless both grew by the same amount
  /// since the last call.
  void Sync(std::int64_t max_seq, std::int64_t rows);
  /// What is kept for `token` (an empty entry with through 0 when nothing is).
  Entry Find(const std::string& token);
  void Put(const std::string& token, Entry entry);
  void Clear();
  std::size_t Size();

 private:
  std::mutex mu_;
  std::size_t max_rows_, max_tokens_;
  std::size_t held_rows_ = 0;
  std::int64_t max_seq_ = -1;
  std::int64_t rows_ = -1;
  std::unordered_map<std::string, Entry> tokens_;
};

/// Rows in an FTS5 table, from its averages record (`<table>_data` row 1, FTS5_AVERAGES_ROWID
/// in fts5_index.c), whose first field is the row count as an SQLite varint: O(1), where
/// count(*) visits every row. 0 when the table has no row yet.
std::int64_t IndexedRows(SQLite::Database& db, const std::string& table);

/// Topic profiles (rivals.hpp) of memories, keyed by seq and by a hash of the text, subject
/// and value they were built from (ContentHash), so an edited memory is never judged by its
/// old words. Bounded to about `max_profiles`: two generations, the older dropped when the
/// newer fills half, so the profiles found recently stay. Thread-safe (one mutex).
class ProfileCache {
 public:
  explicit ProfileCache(std::size_t max_profiles = 4096) : half_(std::max<std::size_t>(1, max_profiles / 2)) {}

  /// The profile kept for memory `seq` with content hash `content`, or null.
  std::shared_ptr<const TopicProfile> Find(std::int64_t seq, std::uint64_t content);
  void Put(std::int64_t seq, std::uint64_t content, std::shared_ptr<const TopicProfile> profile);
  void Clear();
  std::size_t Size();

 private:
  struct Kept {
    std::uint64_t content = 0;
    std::shared_ptr<const TopicProfile> profile;
  };
  std::mutex mu_;
  std::size_t half_;
  std::unordered_map<std::int64_t, Kept> newer_, older_;
};

/// FNV-1a (64 bit) over text, subject and value, each followed by a 0 byte.
std::uint64_t ContentHash(std::string_view text, std::string_view subject, std::string_view value);

/// One process's rival caches (ToolContext holds it; Env::rivals points to it).
struct RivalCache {
  PostingsCache postings;
  ProfileCache profiles;
  /// After an edit or a purge in this process (see PostingsCache).
  void Clear() {
    postings.Clear();
    profiles.Clear();
  }
};

}  // namespace kioku::semantic
