#pragma once
/// @file decay.hpp
/// Housekeeping of the semantic layer: confidence decay, expiry, persisted rival outcomes
/// and retention — the pass memory_maintain runs and the host's writer thread repeats every
/// `housekeeping.interval_minutes` (token-goat-mem seed, "mem epoch --gc": persists
/// contradiction resolutions, prunes, applies preference decay).
///
/// Confidence decay (status, not ranking — recall's own decay multiplier is ranking.hpp):
///
///   confidence(t) = base · R(t),   R(t) = (1 + F·t/S)^C,  F = 19/81,  S = F·h/(0.5^(1/C) − 1)
///
/// the FSRS-4.5 power-law forgetting curve (https://github.com/open-spaced-repetition/
/// fsrs4anki/wiki/The-Algorithm) parameterized by its half-life h (R(h) = 0.5), with the
/// same per-kind half-lives and exponent C as recall (settings multipliers.half_life_days,
/// decay_exponent; defaults C = −0.5, decision/preference 180 d, correction/lesson 120 d,
/// fact 90 d, observation 30 d, event/todo 14 d). With C = −0.5: R(t) = (1 + 3t/h)^−½.
///   t     days since the memory was last stated (captured, reaffirmed, edited — updated_at)
///         or last marked helpful with memory_used, whichever is later;
///   base  the confidence it was stated with (the memory's `confidence`, which a reaffirm
///         raises); decay never writes it, so passes never compound and recall's ranking
///         (which decays on its own, ranking.hpp) is not decayed twice.
/// The decayed value of a memory below `housekeeping.stale_below` is kept beside it
/// (semantic_memory_decay) and read by review's `stale` bucket and the context footer;
/// memories above the line keep no row (a row per memory, rewritten by nearly every pass,
/// was 24 bytes a memory), and one that rises above it again loses its row.
/// Pinned memories never decay. Example: a fact stated with confidence 1.0 reads 0.5 after
/// 90 days and 0.4 — the default `stale_below`, where review lists it as stale — after
/// about 157 days. Nothing is deleted or demoted for decay.
///
/// One pass, inside the caller's write transaction, in order:
///   1. expired: non-pinned live memories whose `expires` passed become superseded
///      (audit row "expired"); recall already hides them, now review and lists do too;
///   2. decay: the formula above, stored in semantic_memory_decay for stale memories;
///   3. rival outcomes: rival pairs with a side gone are closed and the survivor reinstated;
///      a memory contested only by a pinned subject rival that is gone becomes active;
///   4. retention: superseded memories older than housekeeping.superseded_retention_days
///      (0 = never) are purged (MemoryWriter::Purge: one content-free audit row stays).
///      Pinned, active, pending and contested memories are never deleted.

#include <cstdint>
#include <optional>
#include <string>

#include "kioku/sdk/json.hpp"
#include "memory.hpp"

namespace kioku::semantic {

struct ToolContext;

struct MaintainReport {
  int expired = 0;
  int decayed = 0;     ///< Memories whose kept decayed confidence changed, was added or removed.
  int stale = 0;       ///< Active, unpinned memories now below stale_below.
  int reinstated = 0;  ///< Survivors of resolved rivalries.
  int pruned = 0;      ///< Superseded memories deleted by retention.
  std::int64_t ran_at = 0;
};

/// confidence(t) of the formula above for `elapsed_days` >= 0.
double DecayedConfidence(double base, double elapsed_days, double half_life_days, double exponent);

/// The decayed confidence of `m` now (the formula above, t from updated_at or its last
/// memory_used mark); nullopt for pinned and superseded memories, which do not decay.
std::optional<double> DecayedConfidenceNow(const Env& env, const Memory& m);

/// One housekeeping pass (steps 1–4) at env.clock. Must run inside a write transaction.
MaintainReport RunMaintenance(const Env& env, const std::string& agent_id);

/// Counts as JSON {expired, decayed, stale, reinstated, pruned, ran_at}.
sdk::Json MaintainReportJson(const MaintainReport& r);

/// Queues a pass on the host's writer thread (HostServices::DeferWrite) when
/// housekeeping.interval_minutes > 0 and the last pass recorded in the database is at
/// least that old. Cheap to call often: checks at most once a minute per process.
void MaybeScheduleMaintenance(ToolContext& ctx);

}  // namespace kioku::semantic
