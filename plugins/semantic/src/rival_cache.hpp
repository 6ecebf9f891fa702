#pragma once
/// @file rival_cache.hpp
/// What rival detection (rival_candidates.hpp) keeps across writes in one process: the
/// word index's rows of single tokens, the candidates' rows and the topic profiles of
/// memories. All would otherwise be read or built again in every write: at 10,000 memories
/// the token rows were a fifth of a batch write's instructions, and the candidates' profiles
/// a tenth; at 1,000, the candidates' rows were read four times each (once per batch).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "memory.hpp"
#include "rivals.hpp"
#include "term_filter.hpp"

namespace kioku::semantic {

/// Rows of single tokens in the word index (semantic_fts), kept across writes for rival
/// detection (rival_candidates.hpp RivalCandidates), which proposes as candidates the rows
/// of each token of a new memory held by at most recall.scan_limit memories. Rereading those
/// rows in every write cost a fifth of a batch write's instructions at 10,000 memories; kept
/// here, a write reads only the rows added since (`rowid > through`), and a token found in
/// more than scan_limit rows (common) is not read again.
///
/// What is kept is valid while the store's text epoch (schema.cpp semantic_text_epoch: a
/// counter that triggers advance on every delete, every change of a memory's text, subject,
/// value or tags, and every insert below the newest memory, in any process) stands still:
/// then the index only gained rows at the top. Sync() drops everything when the epoch moved.
/// Only rows of committed writes are kept (the caller says up to which seq; a write keeps
/// its own rows once it has committed, rival_candidates.hpp KeepScan). Bounded:
/// cleared when it would hold more than `max_rows` rows or `max_tokens` tokens. Thread-safe
/// (one mutex).
class PostingsCache {
 public:
  struct Entry {
    std::vector<std::int64_t> rows;  ///< ascending, all <= through; empty when common
    std::int64_t through = 0;        ///< rows with seq <= through are all in `rows`
    bool common = false;             ///< more than scan_limit rows
  };

  explicit PostingsCache(std::size_t max_rows = 1 << 18, std::size_t max_tokens = 1 << 14)
      : max_rows_(max_rows), max_tokens_(max_tokens) {}

  /// Takes the store's text epoch now (ReadRowEpochs); drops everything when it moved.
  void Sync(std::int64_t epoch);
  /// What is kept for `token` (an empty entry with through 0 when nothing is).
  Entry Find(const std::string& token);
  void Put(const std::string& token, Entry entry);
  /// Puts `entries`, read when the text epoch was `epoch`, unless the kept epoch is another
  /// (a write keeping what it read after its commit, when another may have synced since).
  void PutAllAt(std::int64_t epoch, std::vector<std::pair<std::string, Entry>> entries);
  void Clear();
  std::size_t Size();

 private:
  void PutLocked(const std::string& token, Entry entry);
  void ClearLocked();
  std::mutex mu_;
  std::size_t max_rows_, max_tokens_;
  std::size_t held_rows_ = 0;
  std::int64_t epoch_ = -1;
  std::unordered_map<std::string, Entry> tokens_;
};

/// Values by memory seq, bounded to about `max_values` in two generations: a value goes to
/// the newer one, which becomes the older (the older dropped) once it holds half, so what
/// was kept recently stays. Not thread-safe: the caches below hold one under their mutex.
template <typename V>
class SeqGenerations {
 public:
  explicit SeqGenerations(std::size_t max_values) : half_(std::max<std::size_t>(1, max_values / 2)) {}

  /// The value kept for `seq` that `accept(value)` takes, the newer generation first; null
  /// when none is.
  template <typename Accept>
  const V* Find(std::int64_t seq, Accept accept) const {
    for (const auto* generation : {&newer_, &older_}) {
      const auto it = generation->find(seq);
      if (it != generation->end() && accept(it->second)) return &it->second;
    }
    return nullptr;
  }
  void Put(std::int64_t seq, V value) {
    if (newer_.size() >= half_) {
      older_ = std::move(newer_);
      newer_.clear();
    }
    newer_.insert_or_assign(seq, std::move(value));
  }
  void Clear() {
    newer_.clear();
    older_.clear();
  }
  std::size_t Size() const { return newer_.size() + older_.size(); }

 private:
  std::size_t half_;
  std::unordered_map<std::int64_t, V> newer_, older_;
};

/// Topic profiles (rivals.hpp) of memories, keyed by seq and kept with the text, subject and
/// value they were built from, so an edited memory is never judged by its old words: a
/// profile is found only for the same three strings, compared whole (a hash of them can be
/// collided on purpose by a crafted edit, and then a rival went unreported). Bounded to
/// about `max_profiles` (SeqGenerations), so the profiles found recently stay; a profile
/// keeps its memory's ~100 bytes of text beside it. Thread-safe (one mutex).
class ProfileCache {
 public:
  explicit ProfileCache(std::size_t max_profiles = 4096) : kept_(max_profiles) {}

  /// The profile kept for memory `seq` built from exactly these text, subject and value, or
  /// null.
  std::shared_ptr<const TopicProfile> Find(std::int64_t seq, std::string_view text, std::string_view subject,
                                           std::string_view value);
  void Put(std::int64_t seq, std::string_view text, std::string_view subject, std::string_view value,
           std::shared_ptr<const TopicProfile> profile);
  void Clear();
  std::size_t Size();

 private:
  struct Kept {
    std::string text, subject, value;
    std::shared_ptr<const TopicProfile> profile;
  };
  std::mutex mu_;
  SeqGenerations<Kept> kept_;
};

/// The two counters that say whether a memory's row, as rival detection reads it, may have
/// changed: the text epoch (above) and the row epoch (schema.cpp semantic_row_epoch: updates
/// of id, kind, status, scope, project_id, path or expires_at). Inserts at the top move
/// neither. 0 before the first change.
struct RowEpochs {
  std::int64_t text = 0;
  std::int64_t row = 0;
  bool operator==(const RowEpochs&) const = default;
};
RowEpochs ReadRowEpochs(SQLite::Database& db);

/// Committed memories' rows as rival detection reads them (rival_candidates.hpp RivalSide),
/// kept across writes. A write publishes the rows its scan read, with the epochs it read in
/// its transaction just before committing, and only after the commit, so a rolled-back
/// write keeps nothing. A later write finds them only while the epochs it read in its own
/// transaction are those (a change by any process, its own included, moves one), and while
/// RivalCache's anchor row is still in the store as it was. Bounded to about `max_rows`
/// (SeqGenerations). Thread-safe (one mutex).
class SideCache {
 public:
  explicit SideCache(std::size_t max_rows = 4096) : rows_(max_rows) {}

  /// The row kept for memory `seq` when the cache holds rows read at `at`.
  std::optional<Memory> Find(std::int64_t seq, const RowEpochs& at);
  /// Keeps `rows`, read at `at`; what was kept at other epochs is dropped.
  void Publish(const RowEpochs& at, const std::vector<const Memory*>& rows);
  void Clear();
  std::size_t Size();

 private:
  std::mutex mu_;
  std::optional<RowEpochs> epochs_;
  SeqGenerations<Memory> rows_;
};

/// One process's rival caches (ToolContext holds it; Env::rivals points to it).
struct RivalCache {
  PostingsCache postings;
  SideCache sides;
  ProfileCache profiles;
  TermFilter terms;
  /// Memories this process's writes added (rival_candidates.cpp KeepScan), and how many it
  /// had added when it last built the term filter (TermFilter::BuildDue).
  std::atomic<std::int64_t> written{0};
  std::atomic<std::int64_t> written_at_build{0};

  /// Drops the kept rows when the store's newest seq (`rows`, read in a write's
  /// transaction) is below the newest one seen before: rows went without a delete, as when
  /// kioku.db was replaced or restored with sqlite3 under a running process (kioku backup
  /// restore refuses to), and a seq may now name another memory. The epochs miss that: no
  /// trigger fired. Thread-safe.
  void DropIfShrunk(std::int64_t rows);
  /// Drops the kept rows, token rows and terms: the store is not the one they came from.
  /// Thread-safe.
  void Drop();
  /// The newest row a write kept what it read up to (its seq and its key: rival_candidates.cpp
  /// RowKey, its id and content hash), once it has committed; an older one than the anchor
  /// is ignored. A store replaced under the process (a restore with sqlite3) fires no trigger
  /// and may keep its newest seq and epochs while holding other memories: a write that finds
  /// the anchor row changed calls Drop (rival_candidates.cpp BeginScan). Thread-safe.
  void Anchor(std::int64_t seq, std::string key);
  /// The anchor (seq 0: none since the last Drop).
  std::pair<std::int64_t, std::string> AnchorRow();

 private:
  std::mutex mu_;
  std::int64_t high_ = 0;
  std::int64_t anchor_seq_ = 0;
  std::string anchor_key_;
};

}  // namespace kioku::semantic
