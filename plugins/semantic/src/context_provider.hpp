#pragma once
/// @file context_provider.hpp
/// The semantic layer's part of the context block (sdk/context.hpp):
///   session start  pinned memories (priority 1.0, trust "pinned"), then the best confirmed
///                  ones by recency and importance (recall with no query, at most 30; 0.75
///                  down to 0.5 by rank, trust "confirmed");
///   prompt         confirmed memories the prompt recalls that are *relevant* (below),
///                  0.75 down to 0.5 by rank.
/// Withheld (counted in the footer, never shown): memories pending review and contested
/// ones in the caller's view (for a prompt: those the prompt matched), and memories whose
/// anchor is contradicted. Read only: recall counters are not touched.
///
/// Relevance for a prompt: a memory qualifies when the entity list matched it (the prompt
/// names one of its paths, identifiers or packages), or when it holds at least
/// min(2, number of content words) of the prompt's content words — words of 3+ letters that
/// are not stopwords (recall.hpp IsStopword), compared by their first max(4, n-2) letters so
/// "tests"/"testing" meet "test". A prompt sharing one common word with a memory is not enough.

#include "kioku/sdk/context.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {

sdk::ContextContribution ProvideContext(ToolContext& ctx, const sdk::ContextRequest& request);

/// True when `memory_text` (any case) holds enough of `query`'s content words (see above).
bool RelevantToPrompt(std::string_view query, std::string_view memory_text);

}  // namespace kioku::semantic
