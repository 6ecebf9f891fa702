#pragma once
/// @file context.hpp
/// Context providers: how a layer contributes lines to the block an agent gets without
/// asking (`kioku context`, its SessionStart / UserPromptSubmit hooks, and the MCP prompt
/// `context` / resource `kioku://context`).
///
/// Mechanism. During Plugin::Register a layer calls `Registrar::AddContextProvider` with a
/// name (its plugin name) and a function. When a block is wanted, the host calls every
/// provider in plugin order on the requesting thread, with the caller's identity and the
/// query, collects their items, and assembles the block under the budget:
///   1. all items, sorted by `priority` (descending; ties keep provider order, then the
///      provider's own order);
///   2. taken greedily while the block stays within min(max_chars, token_budget × 4) bytes
///      (tokens estimated as bytes / 4, sdk::EstimateTokens); an item that does not fit is
///      skipped whole and counted as "cut by the budget" — an item is never cut in half;
///   3. printed one line each as `- [<kind>|<trust>] <text>` under a one-line header, with
///      a footer counting what was withheld (the providers' `withheld` counts plus the items
///      the budget cut).
/// No items → no block at all (the hook prints nothing rather than filler).
///
/// Contract for providers:
///   - Read only, and fast: the whole block has a 50 ms budget for a cold process, so one or
///     two indexed queries per provider. Never write (ARCHITECTURE.md: reads do not write on
///     the request path) and never call tools through HostServices::CallTool.
///   - Scope to `request.caller` (project_id, agent_id) exactly as the layer's tools do.
///   - `request.query` empty = session start: the most useful standing items. Non-empty =
///     the user's prompt: return only items that match it, and nothing when nothing does
///     (a match of one common word is not relevant).
///   - Return at most `request.max_items` items; each `text` one line (the host collapses
///     whitespace and cuts a text longer than kMaxContextItemBytes — keep them shorter).
///   - Throwing is allowed: the host logs the message, skips that provider and still prints
///     the others' items (a broken layer never blanks the block).
/// Thread-safety: providers may run concurrently on several threads (one per request).
///
/// Priority scale (shared by every layer so the budget keeps the right lines):
///   1.0  must see: pinned memories, handoffs addressed to this agent
///   0.9  live file claims by other agents, the active plan's next task
///   0.8  the last session's summary
///   0.5–0.75  ranked memories (best first), further plan tasks
///   0.6  handoffs open to any agent
///   0.4  open questions
///   below 0.4  nice to have

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kioku/sdk/tool.hpp"

namespace kioku::sdk {

/// Longest item text the host prints (bytes); longer texts are cut at a code point with "…".
inline constexpr std::size_t kMaxContextItemBytes = 600;

/// What the host asks a provider for.
struct ContextRequest {
  Caller caller;       ///< Agent, session and project the block is for.
  std::string query;   ///< "" = session start; else the user's prompt (free text).
  std::int64_t now_ms = 0;      ///< The host clock at the request (Unix ms).
  /// Most items this provider should return: the host derives it from the budget (budget
  /// bytes / 80, between 4 and 100) so that the budget, not a count, decides what is cut.
  std::size_t max_items = 12;
};

/// One line of the block.
struct ContextItem {
  /// What it is, in the layer's words: a memory kind ("decision", "fact", …), "summary",
  /// "handoff", "claim", "question", "task".
  std::string kind;
  /// How far to trust it / its state: "pinned", "confirmed", "unconfirmed", "contested",
  /// "last session", "open", "live", "next"; "derived" for a model's synthesis (never
  /// ground truth).
  std::string trust;
  std::string text;       ///< One line, no label (the host adds `[kind|trust]`).
  double priority = 0.5;  ///< 0..1, see the scale above.
};

/// Items a provider held back on purpose, by reason ("pending review", "contested").
struct ContextWithheld {
  std::string reason;
  int count = 0;
};

/// A provider's answer.
struct ContextContribution {
  std::vector<ContextItem> items;
  std::vector<ContextWithheld> withheld;
};

using ContextProviderFn = std::function<ContextContribution(const ContextRequest& request)>;

/// Registration record for Registrar::AddContextProvider.
struct ContextProviderSpec {
  std::string name;  ///< The plugin's name (shown in logs when the provider fails).
  ContextProviderFn provide;
};

}  // namespace kioku::sdk
