#pragma once
/// @file transcript.hpp
/// Coding-agent transcript parsing: what one batch of JSONL lines says happened.
/// Formats (see shared/samples/transcripts/README.md for the field-level description):
///   claude-code  ~/.claude/projects/<cwd>/<session>.jsonl — user/assistant/system lines,
///                one content block per assistant line, tool_use → tool_result pairs,
///                summary / file-history-snapshot lines, inline sidechains.
///   codex        ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl — {timestamp, type, payload}
///                with session_meta, turn_context, response_item, event_msg, compacted.
///   generic      {role, content, timestamp} per line (content: string or text blocks),
///                optional session_id, model, agent; role "tool" lines with name and
///                is_error/outcome are tool outcomes.
/// Parsers are incremental: they see one line at a time and keep what spans lines
/// (pending tool calls, the current session, the last timestamp) in a JSON state that the
/// ingester stores with the file's offset, so a grown file resumes exactly.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::episodic {

enum class Format { kUnknown, kClaudeCode, kCodex, kGeneric };

std::string FormatName(Format f);
/// "claude-code", "codex", "generic"; anything else → kUnknown.
Format FormatFromName(std::string_view name);
/// The format one parsed line proves, or kUnknown when it is not decisive.
Format DetectLineFormat(const nlohmann::json& line);

struct ToolOutcome {
  std::string session_id;
  std::string call_id;
  std::string tool;
  std::string outcome;  ///< success | failure | rejected
  std::string error;    ///< first line(s) of the failure, cut to 300 bytes
  std::string detail;   ///< what was called: command, file, pattern (cut to 160 bytes)
  std::int64_t at = 0;  ///< when the result arrived, Unix ms
  std::optional<std::int64_t> latency_ms;
  std::int64_t line = 0;
  bool sidechain = false;
};

struct HumanMessage {
  std::string session_id;
  std::int64_t at = 0;
  std::int64_t line = 0;
  std::string text;  ///< harness blocks removed; pasted material still in
};

struct FileTouch {
  std::string session_id;
  std::string path;    ///< as the transcript wrote it (absolute or cwd-relative)
  std::string action;  ///< read | modified
  std::int64_t at = 0;
};

struct SessionDelta {
  std::string id;
  std::string agent;  ///< claude-code | codex | generic (or the line's agent)
  std::string cwd;
  std::string model;
  std::string branch;
  std::string git_remote;  ///< Repository URL when the transcript records it (Codex session_meta.git).
  std::string title;
  std::string version;
  std::string last_message;  ///< last assistant text (main chain), cut to 600 bytes
  std::int64_t first_at = 0;
  std::int64_t last_at = 0;
  std::int64_t messages = 0;  ///< human prompts + assistant responses
};

/// Everything a batch of lines yielded.
struct ParsedBatch {
  std::vector<std::string> session_order;
  std::map<std::string, SessionDelta> sessions;
  std::vector<HumanMessage> human;
  std::vector<ToolOutcome> outcomes;
  std::vector<FileTouch> files;
  std::vector<std::string> seen_keys;  ///< line ids to remember (Claude Code uuid)
  std::int64_t duplicates = 0;         ///< lines skipped as already recorded
  std::int64_t bad_timestamps = 0;     ///< lines whose time was not RFC 3339

  /// The delta for `id`, created (and ordered) on first use; `at` widens its time range.
  SessionDelta& Touch(const std::string& id, std::int64_t at);
  bool Empty() const;
};

struct ParserContext {
  /// True when a line id was recorded by an earlier ingest (any file).
  std::function<bool(const std::string&)> seen;
  /// Session id for formats that carry none (generic).
  std::string default_session_id;
};

class TranscriptParser {
 public:
  virtual ~TranscriptParser() = default;
  /// Feeds one parsed line (1-based physical line number). Returns false when the line is
  /// not a line of this format (the caller counts it as skipped).
  virtual bool Feed(const nlohmann::json& line, std::int64_t line_no, ParsedBatch& out) = 0;
  virtual nlohmann::json SaveState() const = 0;
  virtual void LoadState(const nlohmann::json& state) = 0;
};

std::unique_ptr<TranscriptParser> MakeParser(Format format, ParserContext context);

// Helpers shared by the parsers (transcript.cpp).
namespace transcript {
/// RFC 3339 time of a JSON value, or nullopt.
std::optional<std::int64_t> Time(const nlohmann::json& value);
/// Text of a content value: a string, or the "text" of text/input_text/output_text blocks
/// joined with one space.
std::string ContentText(const nlohmann::json& content);
/// First lines of `text`, whitespace-collapsed, at most `max_bytes`.
std::string Brief(std::string_view text, std::size_t max_bytes);
/// Removes <system-reminder>, <ide_selection>, <ide_opened_file> blocks.
std::string StripHarnessBlocks(std::string_view text);
/// Removes Claude Code's image placeholders from a prompt ("[Image #1]"; the image itself is
/// a separate block, the placeholder says nothing without it), and the space after each, so
/// a title or summary starts with the human's words.
std::string StripImagePlaceholders(std::string_view text);
/// Paths named by an apply_patch body (*** Update/Add/Delete File: <path>).
std::vector<std::string> PatchPaths(std::string_view patch);
/// Files a shell script reads with cat/nl/head/tail/sed/less/bat.
std::vector<std::string> ShellReadPaths(std::string_view script);
}  // namespace transcript

}  // namespace kioku::episodic
