#pragma once
/// @file review_store.hpp
/// The review queue and the rival pairs behind it (token-goat-mem seed, "Review and
/// resolution"): what waits for a person, and the three actions on it.
///
/// Tables (migration kTrustMigrationSql):
///   semantic_rivals         pairs of memories without a shared subject that rivals.hpp
///                           found to assert different values: older (a) and newer (b),
///                           each side's status before the pair made it contested, the
///                           reason, and how the pair was resolved (resolved_at,
///                           resolution "promoted:<id>" | "rejected:<id>" | "gone:<id>")
///   semantic_memory_usage   (memory, session) marks of memory_used; one per pair
///   semantic_memory_decay   decayed confidence of unpinned live memories below
///                           housekeeping.stale_below (decay.hpp)
///   semantic_maintenance    when each housekeeping pass last ran
///
/// Buckets, in the viewer's scope (global + its project), expired memories left out:
///   pending       status pending (suggestions, transcript ingest)
///   contested     status contested (a subject rival that is pinned, or a rival pair)
///   contradicted  active/pinned memories whose anchor the project contradicts now
///   stale         active, unpinned memories whose decayed confidence (as of the last
///                 housekeeping pass, not restated since) fell below
///                 housekeeping.stale_below (decay.hpp)
/// Nothing here is ever promoted automatically; only Promote changes a memory to active.
///
/// Every function runs inside the caller's transaction (reads) or write transaction
/// (DetectRivals, Promote, Reject, Undo, MarkUsed). Memories are loaded by id, except in
/// DetectRivals (by seq).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kioku/sdk/fusion.hpp"
#include "memory_store.hpp"
#include "recall.hpp"
#include "rival_candidates.hpp"
#include "rivals.hpp"

namespace kioku::semantic {

/// Migration of the tables above (schema.cpp registers it).
extern const char* const kTrustMigrationSql;

/// A rival named in an answer: its id, a preview of its text and why.
struct RivalNote {
  std::string id;
  std::string text;
  std::string reason;
  /// The other side is a pending suggestion: the pair is recorded for review and contests
  /// nothing (confirming the suggestion supersedes this memory, rejecting it closes the pair).
  bool pending = false;
};

/// Whether `notes` (DetectRivals) hold a contest: a rival other than a pending suggestion.
bool AnyContest(const std::vector<RivalNote>& notes);

/// After memory `seq` was written (its row exists and FTS is indexed: call after
/// MemoryWriter::Finish; WriteResult::seq): finds older live memories of the same kind and
/// scope that rivals.hpp calls rivals (candidates from the FTS index, at most 25: see
/// rival_candidates.hpp RivalCandidates), records each pair and marks
/// both contested — except a pinned side, which stays pinned, and a pending side, which
/// stays pending and contests nothing (the pair is listed in review; RivalNote::pending
/// marks an older pending one). Pairs already keyed by the same
/// subject are left to ResolveSubject. Returns the rivals found (empty = none).
/// `scan`, when given, is shared by the DetectRivals calls of one write (after one Finish):
/// rival_candidates.hpp RivalScan.
std::vector<RivalNote> DetectRivals(const Env& env, std::int64_t seq, const Author& author,
                                    RivalScan* scan = nullptr);

/// Open rival pairs of one memory (the other side's id, preview and reason).
std::vector<RivalNote> OpenRivals(const Env& env, std::int64_t seq);

struct ReviewItem {
  std::string bucket;
  Memory memory;
  std::vector<RivalNote> rivals;  ///< Open rival pairs and live subject rivals.
  std::string note;               ///< e.g. anchor verdict, decayed confidence.
};

struct ReviewListing {
  std::map<std::string, int> counts;  ///< bucket → number waiting (all four present)
  std::vector<ReviewItem> items;      ///< At most `limit` per listed bucket.
};

/// The four buckets of review.hpp, or one of them (`bucket` "" = all). Anchors are
/// evaluated against viewer.project_root for at most 500 anchored memories.
ReviewListing ListReview(const Env& env, const Viewer& viewer, const std::string& bucket, int limit);

/// What a review action did.
struct ReviewActionResult {
  std::string id;
  std::string action;  ///< "promoted" | "rejected" | "undone"
  std::string status;  ///< The memory's status afterwards.
  std::vector<std::string> superseded;  ///< Rivals superseded by a promotion.
  std::vector<std::string> reinstated;  ///< Rivals made active/pinned again by a rejection
                                        ///< (or made contested again by an undo).
  std::string note;
};

/// Promote a pending or contested memory: it becomes active (MemoryWriter::Edit, which
/// supersedes live rivals of its subject) and supersedes the other side of each open rival
/// pair. ToolError for any other status.
ReviewActionResult Promote(const Env& env, MemoryWriter& writer, const Memory& m, const Author& author);

/// Reject a pending or contested memory: it is superseded (soft; audit row "rejected") and
/// each open rival pair is closed, the other side returning to the status it had before the
/// pair (when no other open pair keeps it contested). ToolError for any other status.
ReviewActionResult Reject(const Env& env, const Memory& m, const Author& author);

/// Before `m` is forgotten or purged (memory_forget): closes its open rival pairs ("gone:<id>")
/// and returns each other side to the status it had before the pair, unless something else
/// still contests it, as housekeeping's ResolveGoneRivals would later. Call before a purge
/// deletes the row (its pairs go with it, and the other side would stay contested). Returns
/// the ids made active, pinned or pending again.
std::vector<std::string> ReleaseRivals(const Env& env, const Memory& m, const std::string& agent_id);

/// After a pinned memory with a subject was forgotten or purged: the contested memories of
/// that subject and scope that nothing else contests (no open pair with a live, non-pending
/// side, no other pinned value) become active, as housekeeping would later. Nothing when
/// `gone` (the memory as it was before) was not pinned or has no subject. Returns their ids.
std::vector<std::string> ReleaseSubjectRivals(const Env& env, const Memory& gone, const std::string& agent_id);

/// After memory `seq` was unpinned: its open pairs remember "active", not "pinned", as the
/// status it returns to when they close (a closed contest must not pin it again).
void UnpinnedInPairs(const Env& env, std::int64_t seq);

/// A pinned memory confirmed (memory_edit status "active", memory_pin) while it has open
/// rival pairs: the pairs close and their other sides are superseded by it, as promote
/// does for a contested one; it stays pinned. Returns the superseded ids (none when it is
/// not pinned or has no open pair).
std::vector<std::string> SettlePinnedContests(const Env& env, const Memory& m, const Author& author);

/// Undo the latest rejection of `m`: its status before the rejection comes back, the pairs
/// the rejection closed reopen and their other sides become contested again. When none of
/// those rivals is live any more (forgotten, or superseded since), there is no contest to
/// restore: `m` goes back to the status it had before the contest. ToolError when
/// the memory's last audit row is not a rejection (memory_forget is not undone here).
ReviewActionResult Undo(const Env& env, const Memory& m, const Author& author);

/// Rival pairs one side of which is no longer live (forgotten, rejected, expired,
/// superseded) are closed ("gone:<id>") and the other side returns to its prior status
/// unless something else still contests it. Returns the reinstated ids.
std::vector<std::string> ResolveGoneRivals(const Env& env, const std::string& agent_id);

/// memory_used: marks each memory helpful in `session_id` (one mark per memory and
/// session; again = no-op). Returns how many marks were new.
int MarkUsed(const Env& env, const std::vector<Memory>& memories, const std::string& session_id,
             const std::string& agent_id);

/// The "useful" rank list for recall fusion: those of `candidates` marked helpful, most
/// sessions first (ties: most recent mark). A vote, never a source: only memories another
/// list already found can appear. Empty list when none is marked.
sdk::RankList UsefulnessList(const Env& env, const std::vector<std::int64_t>& candidates);

/// Adds one audit row (semantic_memory_history) at the env's clock.
void AddHistory(const Env& env, const std::string& memory_id, const std::string& action,
                const std::string& agent_id, const std::string& detail);

}  // namespace kioku::semantic
