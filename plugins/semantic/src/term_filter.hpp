#pragma once
/// @file term_filter.hpp
/// Which terms the word index (semantic_fts) may hold, kept by one process for rival
/// detection. A token of a new memory that no older row holds proposes no candidate, yet
/// finding that out was an FTS5 query: at 100,000 memories, the lookup of the one new rare
/// token of each memory ("5" of "auth_5") was a fifth of a batch write's instructions
/// (callgrind), as each lookup opens every segment of the index. With the filter, a term
/// it does not hold is answered from the write's own rows (rival_candidates.cpp Postings).

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::semantic {

/// 64-bit hashes of every term of the index's rows up to seq `through`: built from the
/// index's vocabulary (fts5vocab), then extended by each write of this process with the
/// terms of its own rows, in order. A superset is harmless (terms of deleted rows stay; a
/// hash collision costs the lookup it would have made), a missing term is not: so rows
/// added any other way (another process, another tool of this one) leave a gap between
/// `through` and the store's newest seq, and the filter is not used until it is built
/// again; so does a store restored under the process (Covers); a moved text epoch (a
/// delete, an edit of text, subject, value or tags, an insert below the newest) drops it.
/// Thread-safe (one mutex).
class TermFilter {
 public:
  /// The hash Lacks, Reset and Extend take for a term (std::hash: stable within a process,
  /// which is as long as a filter lives).
  static std::uint64_t Hash(std::string_view term);

  /// Whether a process should build a filter now (read the index's whole vocabulary:
  /// ~650 M instructions, ~0.15 s, at 100,000 memories) for a store of `rows` memories,
  /// having written `written_since` of them since it last built one (or since it started)
  /// and `own` in the write at hand: when those writes are at least 1/kBuildShare of the
  /// store, so that the lookups a filter saves (~50 k instructions per memory written at
  /// 100,000) pay for each build. A one-shot write into a large store never builds one, and
  /// edits or another process's writes that keep dropping it do not make every write read
  /// the vocabulary again.
  static constexpr std::int64_t kBuildShare = 8;
  static bool BuildDue(std::int64_t rows, std::int64_t written_since, std::int64_t own) {
    return rows <= kBuildShare * (written_since + own);
  }

  /// Drops everything when the store's text epoch moved since the last call.
  void Sync(std::int64_t text_epoch);
  /// Whether it holds the terms of the rows up to exactly `newest` and no further, and the
  /// memory at `newest` has the id it had when it was added (`newest_id`): a store restored
  /// or replaced under the process (no trigger fires, the epochs stand still) may hold
  /// other rows up to the same seq, and the memory's id and content hash tell (the caller's
  /// key, rival_candidates.cpp RowKey).
  bool Covers(std::int64_t newest, std::string_view newest_id);
  /// True only when it covers exactly `newest` (Covers) and no row up to there holds the
  /// term with this hash; whatever changed meanwhile (another write's Extend, a Clear)
  /// makes it false, so a caller that skips a lookup on true is never wrong.
  bool Lacks(std::uint64_t hash, std::int64_t newest);
  /// Holds `hashes`: the terms of every row up to `through`, whose memory has id `through_id`.
  void Reset(std::vector<std::uint64_t> hashes, std::int64_t through, std::string through_id);
  /// Adds the terms of rows (from, to] (the memory at `to` has id `to_id`) when it ends at
  /// `from`; else drops everything.
  void Extend(std::int64_t from, std::int64_t to, std::string to_id, std::vector<std::uint64_t> hashes);
  void Clear();
  /// Distinct hashes held.
  std::size_t Size();

 private:
  void ClearLocked();
  std::mutex mu_;
  std::int64_t epoch_ = -1;
  std::optional<std::int64_t> through_;
  std::string through_id_;
  // Both sorted and unique; `recent_` (a write's terms) is merged into `sorted_` once it
  // holds an eighth as many, so adding n terms costs O(n log n) in all.
  std::vector<std::uint64_t> sorted_, recent_;
};

}  // namespace kioku::semantic
