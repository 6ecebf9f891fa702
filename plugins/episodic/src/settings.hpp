#pragma once
/// @file settings.hpp
/// The `episodic:` section of kioku.yaml, parsed once at plugin creation.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::episodic {

/// Every key is optional; the defaults below apply to a missing key.
struct Settings {
  /// compaction.session_token_budget: when the active summaries of one session add up to
  /// more tokens than this, the older ones are folded into one consolidated summary.
  std::int64_t session_token_budget = 40'000;
  /// compaction.keep_recent_fraction: share of the budget kept for the newest summaries,
  /// which stay unfolded (0.5 = the newest summaries up to 20,000 tokens stay as they are).
  double keep_recent_fraction = 0.5;
  /// compaction.highlight_tokens: room for "Highlights" (sentences that are neither
  /// decisions, open items nor file lists) in a consolidated summary. Decisions, open items
  /// and files are always kept in full, whatever this says.
  std::int64_t highlight_tokens = 2'000;
  /// compaction.model_highlights: after session_end / session_summary_add compact, the chat
  /// model (providers.chat) rewrites the consolidated summary's highlights as a short
  /// abstract (highlights.hpp). Hooks and ingest never call the model; `kioku summaries
  /// refine` refines what they folded.
  bool model_highlights = false;

  /// recall.token_budget: default output budget of session_recall (estimated tokens).
  std::int64_t recall_token_budget = 2'000;
  /// recall.default_limit: results when the call gives no `limit`.
  int recall_default_limit = 10;
  /// recall.summary_chars: each summary is cut to this many bytes in the text output.
  std::size_t recall_summary_chars = 1'200;

  /// timeline.max_items: entries shown per section of session_timeline.
  int timeline_max_items = 25;

  /// ingest.allowed_roots: folders session_ingest (the tool) may read; `~` is $HOME, "*"
  /// allows any path. The caller's project root is always allowed. `kioku ingest` (the CLI,
  /// run by the user) is not restricted.
  std::vector<std::string> ingest_allowed_roots = {"~/.claude/projects", "~/.codex/sessions"};
  /// ingest.max_line_bytes: longer transcript lines are skipped (and counted).
  std::size_t max_line_bytes = 8u << 20;
  /// ingest.batch_bytes: input bytes per write transaction (offset committed with it).
  std::size_t batch_bytes = 16u << 20;
  /// ingest.suggest_memories: file durable human statements via memory_suggest.
  bool suggest_memories = true;
  /// ingest.record_outcomes: send tool outcomes to feedback_record.
  bool record_outcomes = true;
  /// ingest.watch_interval_ms: polling period of `kioku ingest --watch`.
  int watch_interval_ms = 2'000;
};

/// JSON Schema of the section (additionalProperties: false at every level).
nlohmann::json SettingsSchema();

/// Reads validated settings; missing keys keep their defaults.
Settings ParseSettings(const nlohmann::json& section);

}  // namespace kioku::episodic
