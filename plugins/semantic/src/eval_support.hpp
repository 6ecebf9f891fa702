#pragma once
/// @file eval_support.hpp
/// Pieces the golden-set and conversation-set harnesses share (golden_eval.hpp,
/// conversation_eval.hpp): the ranking under test and the relevance test.

#include <string>
#include <vector>

#include "golden_eval.hpp"
#include "kioku/sdk/json.hpp"
#include "memory.hpp"
#include "memory_store.hpp"
#include "recall.hpp"

namespace kioku::semantic {

/// The top `request.limit` memories for `request` as `viewer` sees them, by `ranker`:
/// kRecall runs Recall() (the tool's code); kBm25 runs the plain BM25 baseline (see
/// EvalRanker), which honours only visibility and the live statuses. With `vectors`, kRecall
/// also fuses the vector list (eval_vectors.hpp).
std::vector<Memory> EvalRank(const Env& env, const RecallRequest& request, const Viewer& viewer,
                             EvalRanker ranker, EvalVectors* vectors = nullptr);

/// The draft of one evaluation memory written by agent "eval" in `project` (root
/// "/eval/<project>") at `now_ms`; throws as ParseDraft does.
MemoryDraft EvalDraft(const sdk::Json& args, const std::string& project, const Settings& settings,
                      std::int64_t now_ms, bool suggest);

/// ASCII case-insensitive substring test.
bool ContainsCi(const std::string& haystack, const std::string& needle);

/// "0.812": three decimals.
std::string Fixed(double v);

}  // namespace kioku::semantic
