#pragma once
/// @file layer_contracts.hpp
/// The cross-layer calls (ARCHITECTURE.md "Layers never include each other's code. They meet
/// through tool calls through the host"), written down once so a rename or a changed
/// argument fails in CI instead of at run time:
///   - the tool names, as constants the caller passes to HostServices::HasTool/CallTool;
///   - payload builders the calling layer uses to build arguments;
///   - readers for the result fields the caller depends on.
/// The callee layer's tests call its real tool with these builders' output and check the
/// fields the readers use ("contract tests"), so changing either side alone turns a test red.
///
/// Calls covered (caller → callee):
///   working  → episodic  session_start, session_summary_add   (workspace_dump)
///   episodic → semantic  memory_suggest                       (transcript ingest)
///   episodic → affective feedback_record                      (transcript ingest)

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kioku/sdk/json.hpp"

namespace kioku::sdk::contract {

// ---- episodic -----------------------------------------------------------------------------

inline constexpr std::string_view kSessionStart = "session_start";
inline constexpr std::string_view kSessionSummaryAdd = "session_summary_add";

/// {"session_id": session_id}: opens (or re-opens) the session a summary is written to.
Json SessionStartArgs(std::string_view session_id);

/// {"session_id": session_id, "summary": summary}. `summary` is plain text or Markdown,
/// at most 64 KiB (session_summary_add's limit); the callee refuses secrets.
Json SessionSummaryAddArgs(std::string_view session_id, std::string_view summary);

// ---- semantic -----------------------------------------------------------------------------

inline constexpr std::string_view kMemorySuggest = "memory_suggest";

/// One unconfirmed memory a layer infers (stored pending; recall labels it unconfirmed).
struct MemorySuggestion {
  std::string text;        ///< The statement, <= 4000 characters.
  std::string kind;        ///< A semantic kind: fact, decision, preference, lesson, ...
  std::string source;      ///< Where it came from, e.g. "import".
  std::string source_ref;  ///< Pointer back to the origin ("file.jsonl:12 (2026-…Z)").
  std::vector<std::string> tags;
  std::string subject;     ///< Contradiction key ("package manager"); empty = none.
  std::string value;       ///< The subject's value ("pnpm"); sent only with a subject.
};

/// memory_suggest's arguments for one suggestion (subject/value only when subject is set).
Json MemorySuggestArgs(const MemorySuggestion& suggestion);

// ---- affective ----------------------------------------------------------------------------

inline constexpr std::string_view kFeedbackRecord = "feedback_record";

/// One tool outcome for feedback_record's batch form. `session_id` and `project_id` are
/// always sent (empty = none: the record belongs to no session/project); the other empty
/// strings and nullopt are left out, so the callee applies its defaults (the caller's agent,
/// "now").
struct ToolOutcome {
  std::string tool;     ///< Tool name as the agent knew it.
  std::string outcome;  ///< success | failure | partial | rejected | timeout.
  std::string session_id;
  std::string project_id;
  std::optional<std::int64_t> at_ms;       ///< When the call finished (Unix ms).
  std::string agent_id;
  std::string model;
  std::optional<double> latency_ms;        ///< 0 … 86 400 000.
  std::string error;                       ///< Stored redacted and cut by the callee.
  std::string source_id;                   ///< Unique call id; makes re-sending idempotent.
};

/// One element of feedback_record's `records` array.
Json FeedbackRecordItem(const ToolOutcome& outcome);

/// {"records": records} — at most 1000 items (feedback_record's batch limit).
Json FeedbackRecordArgs(Json records);

/// The `expired` count of feedback_record's structured result (records older than the
/// retention window, dropped), or nullopt when the result carries none.
std::optional<std::int64_t> FeedbackRecordExpired(const Json& structured);

}  // namespace kioku::sdk::contract
