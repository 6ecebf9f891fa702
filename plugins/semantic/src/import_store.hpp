#pragma once
/// @file import_store.hpp
/// The SQL of foreign imports (foreign_formats.hpp): what is already stored, explicit
/// memory → entity links, and the state an imported memory arrives with. Every function
/// runs inside the caller's write transaction.

#include <cstdint>
#include <string>
#include <unordered_map>

#include "memory.hpp"

namespace kioku::semantic {

/// A stored memory an imported item may repeat.
struct KnownMemory {
  std::string id;
  std::string status;
};

/// NormalizeText(text) → memory, over every memory of any status and kind in `scope` or
/// global (so a rejected or forgotten memory is never filed again by a later import).
std::unordered_map<std::string, KnownMemory> KnownTexts(const Env& env, const Scope& scope);

/// source_ref → memory, for memories whose source_ref starts with `prefix`.
std::unordered_map<std::string, KnownMemory> KnownSourceRefs(const Env& env, const std::string& prefix);

/// Links memory `memory_seq` to entity `entity_seq` (no-op when linked).
void LinkMemoryEntity(const Env& env, std::int64_t memory_seq, std::int64_t entity_seq);

/// Sets what an imported memory carried in its source: `status` (pending, active, pinned,
/// contested or superseded; superseded keeps the former status as prior_status and
/// `superseded_by`, "" = no known winner), `captured_at` (Unix ms, 0 = keep) and one
/// 'imported' history row with `detail`.
void ApplyImportedState(const Env& env, const Memory& m, const std::string& status,
                        const std::string& superseded_by, std::int64_t captured_at,
                        const std::string& agent_id, const std::string& detail);

}  // namespace kioku::semantic
