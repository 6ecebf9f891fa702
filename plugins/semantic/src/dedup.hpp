#pragma once
/// @file dedup.hpp
/// De-duplication on write, the semantic part of background embedding (the worker itself:
/// sdk/embed_worker.hpp): a newly embedded memory whose cosine to an older live memory of
/// the same kind, scope, subject and value is at least `vectors.dedup_threshold` reaffirms
/// that memory and is superseded by it (history rows on both).

#include <cstdint>
#include <vector>

#include <SQLiteCpp/Database.h>

namespace kioku::semantic {

struct ToolContext;

/// The worker's first-vector hook (sdk::FirstVectorHook) for memory `seq` with unit vector
/// `unit`, inside its write transaction. True when the memory was folded into an older one.
bool FoldNearDuplicate(ToolContext& ctx, SQLite::Database& db, std::int64_t seq, const std::vector<float>& unit);

}  // namespace kioku::semantic
