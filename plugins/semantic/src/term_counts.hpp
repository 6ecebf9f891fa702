#pragma once
/// @file term_counts.hpp
/// Match counts of FTS terms, shared by the lists of one recall and kept across recalls
/// until the text index changes.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kioku::semantic {

/// One term's match count in an FTS table, capped at recall.scan_limit + 1, and the
/// document frequency FtsList ranks it with (recall.cpp). `df` < 0: not computed yet (a
/// count taken for pseudo-relevance feedback, which needs the count only).
struct TermCount {
  int count = 0;
  double df = -1;
};

/// Keyed by the term's FTS5 expression (a quoted token or a bigram phrase).
using TermCounts = std::map<std::string, TermCount>;

/// Term counts of the word index (semantic_fts) kept between recalls, so a burst of recalls
/// counts a common term once instead of reading its doclist on every call.
///
/// `generation` is the index's state: FTS5's structure record (`semantic_fts_data` row 10,
/// read by recall.cpp), which every committed write to the index rewrites (a new segment, a
/// merge, a delete) and writes that leave the text alone (usage counters) do not touch. A
/// generation other than the one held drops every count, so a count never outlives the
/// index state it was taken in, except by a write racing the recall that took it, whose
/// entry the next generation replaces. Bounded: cleared when it would hold more than
/// `max_terms`. Thread-safe (one mutex).
class TermCountCache {
 public:
  explicit TermCountCache(std::size_t max_terms = 4096) : max_terms_(max_terms) {}

  /// The count kept for `term` at `generation`, if any. An empty generation finds nothing.
  std::optional<TermCount> Find(const std::string& generation, const std::string& term);

  /// Keeps `count` for `term` at `generation`, dropping counts of another generation.
  void Put(const std::string& generation, const std::string& term, const TermCount& count);

  /// Terms held (for tests).
  std::size_t Size();

 private:
  std::mutex mu_;
  std::size_t max_terms_;
  std::string generation_;
  TermCounts counts_;
};

}  // namespace kioku::semantic
