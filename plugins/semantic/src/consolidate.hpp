#pragma once
/// @file consolidate.hpp
/// Consolidation: memories that restate each other collapse to one (token-goat-mem seed,
/// "mem consolidate"; deterministic and offline, no model call).
///
/// Compared only within one kind and one scope binding (scope, project, path), among live
/// confirmed memories (active, pinned) the viewer sees. Each memory becomes the set of its
/// topic tokens (rivals.hpp TopicProfile: terms, values and named choices).
///
/// Candidate pairs come from MinHash with LSH banding, never from all pairs (Broder 1997,
/// "On the resemblance and containment of documents"; banding: Leskovec, Rajaraman &
/// Ullman, "Mining of Massive Datasets", ch. 3.4): 32 hash functions in 16 bands of 2 rows,
/// so a pair with Jaccard s becomes a candidate with probability 1 − (1 − s²)^16 — 0.99 at
/// s = 0.5, 0.64 at s = 0.25. Candidates are then checked exactly: Jaccard >= `threshold`
/// (default 0.5: more shared than different, the seed's floor) and not rivals
/// (ClassifyPair ≠ rival: "Node 18" and "Node 20" are a contradiction, not a restatement).
/// Clusters are the connected components of the accepted pairs (union–find).
///
/// Keeper of a cluster: the pinned member, else the most confident, else the newest. With
/// `apply`, every other non-pinned member is superseded by the keeper (status superseded,
/// superseded_by = keeper, audit row "consolidated"); nothing is ever hard-deleted and a
/// pinned member is only listed, never superseded.

#include <cstdint>
#include <string>
#include <vector>

#include "memory.hpp"
#include "recall.hpp"

namespace kioku::semantic {

struct ConsolidateOptions {
  bool apply = false;
  double threshold = 0.5;
  std::string kind;  ///< "" = every kind
};

struct Cluster {
  std::string keep;                  ///< Keeper id.
  std::vector<std::string> members;  ///< Every member id, keeper first.
  std::vector<std::string> texts;    ///< Previews, same order.
  bool has_pinned = false;           ///< A member is pinned (it is then the keeper).
};

struct ConsolidateReport {
  std::vector<Cluster> clusters;  ///< Largest first.
  int memories = 0;               ///< Memories compared.
  int candidate_pairs = 0;        ///< Pairs LSH proposed (checked exactly).
  int superseded = 0;             ///< With apply.
};

/// Finds (and with `apply`, merges) restatement clusters. Run inside a write transaction
/// when `apply` is set.
ConsolidateReport Consolidate(const Env& env, const Viewer& viewer, const ConsolidateOptions& options,
                              const std::string& agent_id);

/// Supersedes every member of `members` that is still active (pinned and already
/// superseded ones are left as they are) by `keeper_id`: status superseded, superseded_by,
/// audit row "consolidated" with `detail`. Returns how many were superseded. Run inside a
/// write transaction.
int SupersedeInto(const Env& env, const std::string& keeper_id, const std::vector<Memory>& members,
                  const std::string& agent_id, const std::string& detail);

}  // namespace kioku::semantic
