#pragma once
/// @file consolidate_model.hpp
/// Model-assisted consolidation (memory_consolidate synthesize: true): the chat model
/// writes one canonical text for a cluster Consolidate found, and the text is verified
/// before anything is written (agenr seed, "LLM-assisted merging": clusters, one canonical
/// entry each, verification before it touches the database). No transaction is held while
/// the model answers; the write re-reads every source and skips a cluster whose sources
/// changed meanwhile.
///
/// Verification (VerifyMerged), all on the sources' topic profiles (rivals.hpp):
/// - it names no value (number, version, path, named tool) that no source names;
/// - it keeps every value that all sources name;
/// - it is not a rival of any source (ClassifyPair: no other value for the same choice, no
///   flipped polarity);
/// - at least half of its topic terms occur in some source (it is about the same thing);
/// - it is non-empty, at most kMaxTextChars, and holds no secret (sdk::ScreenText).
/// A rejected text is reported with its reason and nothing of its cluster is written.
///
/// A written synthesis is a new memory of the cluster's kind and scope binding, source
/// "derived", source_ref "consolidate:<id>,<id>…" (recall shows it as derived, like a
/// memory_reflect observation); its cited sources are superseded by it (audit
/// "consolidated"). Clusters with a pinned member are never rewritten: a person's pinned
/// wording stays.

#include <string>
#include <vector>

#include "consolidate.hpp"
#include "kioku/sdk/chat.hpp"
#include "memory_store.hpp"

namespace kioku::semantic {

/// One cluster's model answer and what became of it.
struct Synthesis {
  std::vector<Memory> sources;  ///< The cited members (>= 2), as read before the model call.
  std::string text;             ///< The merged text ("" when the model found none).
  std::string rejected;         ///< Why it was not accepted; "" when verified.
  std::string id;               ///< The memory written (apply), else "".
  /// "proposed" (verified, dry run) | "written" | "kept" (the text is a live memory's own:
  /// that one stays and the others are superseded by it) | "rejected" | "changed" (a source changed
  /// before the write: nothing written) | "unavailable" (the endpoint did not answer).
  std::string action;
};

/// "" when `merged` faithfully restates `sources`; otherwise one line saying why not,
/// e.g. "it names 8081, which no source says". Pure.
std::string VerifyMerged(const std::string& merged, const std::vector<Memory>& sources);

/// Asks `chat` for a canonical text of `cluster` (at most 12 members, keeper first) and
/// verifies it. Reads `env.db`; writes nothing. Endpoint failures come back as action
/// "unavailable" with the endpoint's error in `rejected`.
Synthesis Synthesize(sdk::ChatModel& chat, const Env& env, const Cluster& cluster);

/// Writes a verified synthesis (action "proposed") inside the caller's write transaction:
/// re-reads every source (all must still be live with the same text, else action
/// "changed"), remembers the merged memory and supersedes the sources by it. Sets `id` and
/// `action` ("written" or "kept"); returns how many sources were superseded.
int WriteSynthesis(const Env& env, MemoryWriter& writer, Synthesis& synthesis, const Author& author);

}  // namespace kioku::semantic
