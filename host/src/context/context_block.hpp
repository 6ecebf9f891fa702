#pragma once
/// @file context_block.hpp
/// Assembles the context block (sdk/context.hpp) from every provider under the budget:
/// what `kioku context`, its hooks, the MCP prompt `context` and the resource
/// `kioku://context` print. The host knows nothing about the layers: it sorts, fits and
/// labels what the providers return.

#include <cstddef>
#include <string>
#include <vector>

#include "kioku/sdk/context.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::host {

class Runtime;

/// Claude Code replaces hook output longer than 10,000 characters with a short preview
/// (hooks reference, "Hook output"); the block never exceeds it, whatever the token budget.
inline constexpr std::size_t kContextMaxChars = 10'000;
inline constexpr std::size_t kContextDefaultTokens = 2'000;

struct ContextOptions {
  std::string query;                            ///< "" = session start; else the prompt.
  std::size_t token_budget = kContextDefaultTokens;  ///< Tokens = bytes / 4.
  std::size_t max_chars = kContextMaxChars;     ///< Hard cap in bytes (≤ kContextMaxChars).
};

struct ContextBlock {
  /// The block ("" when no provider had anything: print nothing). Lines end with "\n".
  std::string text;
  std::size_t shown = 0;     ///< Items printed.
  std::size_t cut = 0;       ///< Items left out by the budget (whole).
  std::vector<sdk::ContextWithheld> withheld;  ///< Merged by reason, plus "cut by the budget".
  std::vector<std::string> failed;  ///< "<plugin>: <message>" for providers that threw.
};

/// Calls every provider of `runtime` for `caller` and assembles the block (see
/// sdk/context.hpp for the order, budget and format). Never throws for a provider's
/// failure (it is skipped, logged and listed in `failed`); throws std::runtime_error only
/// when nothing could be asked (no runtime started).
ContextBlock BuildContext(Runtime& runtime, const sdk::Caller& caller, const ContextOptions& options);

}  // namespace kioku::host
