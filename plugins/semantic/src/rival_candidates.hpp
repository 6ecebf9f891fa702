#pragma once
/// @file rival_candidates.hpp
/// Where rival detection (review_store.hpp DetectRivals) looks: older live memories of a new
/// memory's kind and scope that share index tokens with its search words, and their topic
/// profiles. Reads run inside the write's transaction, after MemoryWriter::Finish indexed
/// the new rows; what a process can keep across writes is in Env::rivals (rival_cache.hpp).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "memory.hpp"
#include "rival_cache.hpp"
#include "rivals.hpp"

namespace kioku::semantic {

class IndexTokenizer;  // index_terms.hpp: kept out of this header (it brings sqlite3.h's FTS5 API)

/// A token's rows in the word index, ascending.
struct TokenRows {
  std::vector<std::int64_t> rows;
  bool common = false;  ///< more than recall.scan_limit rows (then `rows` may be partial)
};

/// What the DetectRivals calls of one write share (after one Finish): each index token's
/// rows, the candidate rows and their profiles, so a batch of 100 looks each token and each
/// candidate up once. Valid only while the text index and the memories' texts do not
/// change, i.e. within one transaction after the last Finish(). `committed`: max(seq)
/// before the write began; only postings up to it are kept in Env::rivals while the write
/// runs (rows it added could still roll back); 0 = keep none.
struct RivalScan {
  std::int64_t committed = 0;
  /// The write read `committed` before adding its rows, so its own rows are exactly those
  /// above it (memory_remember sets it): what the TermFilter path needs.
  bool own_rows_above_committed = false;
  std::int64_t rows = 0;  ///< max(seq) of semantic_memories, 0 = not read yet
  RowEpochs epochs;       ///< read with `rows`: what Env::rivals->sides must hold to be used
  std::optional<RowEpochs> sealed;  ///< SealScan: the epochs at the end of the write
  std::unordered_map<std::string, TokenRows> postings;                        ///< ±token → its rows
  std::unordered_map<std::int64_t, std::optional<Memory>> memories;           ///< seq → row (statuses kept current)
  std::unordered_map<std::int64_t, std::shared_ptr<const TopicProfile>> profiles;  ///< seq → its profile
  /// Set when Env::rivals->terms covers `committed` (TermFilter): then a token whose term no
  /// committed row holds is answered from `own_terms` without a query. A shared_ptr so the
  /// scan can be made and destroyed where IndexTokenizer is incomplete.
  std::shared_ptr<IndexTokenizer> tokenizer;
  std::unordered_map<std::string, std::vector<std::int64_t>> own_terms;  ///< term → this write's rows holding it, ascending
  std::string newest_id;  ///< RowKey (id and content hash) of the memory at `rows`, read with the write's own rows
};

/// Call last in the write's transaction: the epochs the scan's rows are current at.
void SealScan(const Env& env, RivalScan& scan);
/// Call after the write committed: keeps the scan's rows, the write's own included, in
/// Env::rivals for later writes (rival_cache.hpp SideCache), and the terms
/// of the write's own rows in its TermFilter when the scan used it. Nothing when the scan
/// was not sealed.
void KeepScan(const Env& env, const RivalScan& scan);

/// Memory `seq` with the columns rival detection reads (seq, id, kind, text, subject,
/// value, status, scope, expires_at), read once per scan (or found in Env::rivals, for a
/// committed memory); null when there is none. The pointer stays valid while `scan` lives,
/// and a status set through it is what later DetectRivals calls of the scan see.
Memory* RivalSide(const Env& env, RivalScan& scan, std::int64_t seq);

/// The topic profile of `m` (loaded by RivalSide or RivalCandidates): from the scan,
/// from Env::rivals when its text, subject and value are unchanged, else built and kept in
/// both.
const TopicProfile& ProfileOf(const Env& env, RivalScan& scan, const Memory& m);

/// Candidate rivals of `m`, best first, at most kMaxCandidates: older memories of its kind
/// and scope, live (active, pinned, contested; pending too when `m` is not pending) and
/// unexpired, that share index tokens with
/// `terms`. Bounded work, as recall's FtsList: a token in more than scan_limit memories says
/// little about the topic, so only the category words ("pnpm" names a rival however common
/// it is; their newest scan_limit + 1 rows) and the rarer tokens propose candidates; a
/// memory whose tokens are all common has none. (A bound relative to the store's size was
/// tried and dropped: the count covers every project and kind, so a word common in one
/// project hid rivals in another, and in a batch its own rows counted.) Each candidate
/// scores the sum over shared tokens of log(1 + rows / df) — BM25's idf without the length
/// and frequency terms — ties newest first; at most 4 × kMaxCandidates rows are read. The
/// pointers stay valid while `scan` lives.
inline constexpr std::size_t kMaxCandidates = 25;
std::vector<Memory*> RivalCandidates(const Env& env, RivalScan& scan, const Memory& m, const RivalTerms& terms);

}  // namespace kioku::semantic
