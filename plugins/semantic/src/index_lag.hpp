#pragma once
/// @file index_lag.hpp
/// The substring index of memories (semantic_fts_trigram) and the name index of entities
/// (semantic_entities_fts) lag their rows. A write commits its rows, the word index and the
/// CJK index at once; these two catch up later, off the request path, on the host's writer
/// thread (HostServices::DeferWrite), or in the write itself once a lag passes kMaxLagRows.
///
/// Why: indexing a memory's trigrams and its entities' names was 15% of a batch write's
/// instructions at 1,000 memories, for the two indexes the fewest queries read (partial
/// words, entity search). Every reader stays exact: each index holds exactly the rows up to
/// its mark (semantic_index_marks, schema migration 20), and readers scan the rows above it
/// with kioku_trigram_substrings (sdk/fts_rank.hpp), which answers as the index would.
/// The scan is bounded by kMaxLagRows.
///
/// Nothing is lost to a crash: the rows are committed, and the next catch-up indexes every
/// row above the mark, however old. A statement that rebuilds either index (an import)
/// must set its mark with MarkIndexesWhole.

#include <atomic>
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/sql.hpp"
#include "memory.hpp"

namespace kioku::semantic {

/// The most rows either index lags by after a write: past it, the write catches up itself.
/// A partial-word recall that scans 2,000 lagging rows of ~75 bytes for a word none holds
/// takes 0.32 ms over stdio (semantic README, "Lagging indexes").
inline constexpr std::int64_t kMaxLagRows = 2048;
/// The most bytes of memory text one process lets lag between its catch-ups: long texts
/// cost the scan by their length (2,000 rows of 4,000 non-ASCII characters took 170 ms, a
/// break-it find), so a write past this catches up itself too. ~2 ms of scanning at worst.
inline constexpr std::int64_t kMaxLagBytes = 256 * 1024;

/// SQL whose value is the mark of `index` ("substring" or "entity_name"): 0 when it has no
/// row (a store created empty).
std::string MarkSql(std::string_view index);

/// The mark of `index`: it holds exactly the rows with seq <= this ("substring":
/// semantic_fts_trigram over semantic_memories; "entity_name": semantic_entities_fts over
/// semantic_entities).
std::int64_t ReadMark(const Env& env, std::string_view index);

/// How far each index lags: its table's newest seq minus its mark (at least the rows above
/// the mark: seqs have gaps).
struct IndexLagRows {
  std::int64_t memories = 0;
  std::int64_t entities = 0;
};
IndexLagRows LagOf(const Env& env);

/// Indexes every row above each mark and moves the marks to the newest rows. Must run in
/// a write transaction; idempotent.
void CatchUpLaggingIndexes(SQLite::Database& db);

/// Sets both marks to the newest rows, for indexes just rebuilt over every row. Must run in
/// the transaction that rebuilt them.
void MarkIndexesWhole(SQLite::Database& db);

/// A lag older than this has no live writer to catch it up (IndexLag::QueueIfStale).
inline constexpr std::int64_t kStaleLagMs = 10'000;

/// One plugin's catch-ups on the host's writer thread: at most one queued at a time.
class IndexLag {
 public:
  explicit IndexLag(sdk::HostServices& host) : host_(host) {}
  IndexLag(const IndexLag&) = delete;
  IndexLag& operator=(const IndexLag&) = delete;

  /// Queues a catch-up unless one is queued and not started yet.
  void Queue();
  /// Queues a catch-up when either index lags by rows written at least kStaleLagMs ago
  /// (by env.clock): a store whose last writer was killed before its catch-up, or whose
  /// catch-up failed (a full disk). A live writer catches up within about two seconds, so
  /// a fresher lag is left to it, and a one-shot reader (a hook's `kioku context`) does not
  /// write on its way out. Looks at most once per kStaleLagMs / 2 of env.clock per process
  /// (one read): called as the plugin starts and by the readers that scan the lag.
  void QueueIfStale(const Env& env);
  /// Adds `bytes` of memory text this process wrote above the mark; returns its total since
  /// its last catch-up.
  std::int64_t AddLaggingBytes(std::int64_t bytes) { return lagging_bytes_ += bytes; }
  void CaughtUp() { lagging_bytes_ = 0; }

 private:
  sdk::HostServices& host_;
  std::atomic<bool> queued_{false};
  std::atomic<std::int64_t> lagging_bytes_{0};
  std::atomic<std::int64_t> stale_checked_at_{INT64_MIN};
};

/// After a write, before it commits (`added_text_bytes`: of the memories it added): catches
/// up at once when `env` has no IndexLag (tests, the golden set), when either index lags by
/// more than kMaxLagRows, or when this process let more than kMaxLagBytes of text lag; else
/// queues a catch-up (env.index_lag->Queue()) when anything lags.
void SettleLaggingIndexes(const Env& env, std::int64_t added_text_bytes = 0);

}  // namespace kioku::semantic
