#pragma once
/// @file ingest.hpp
/// Transcript ingest: reads a coding-agent transcript from where the last ingest of that
/// file stopped, records what happened as episodes, and hands tool outcomes and durable
/// human statements to the other layers.
///
/// Recorded per session (times from the transcript, never "now"):
///   - the session (agent, model, branch, title, working directory as its project key,
///     first/last time, message count, last assistant message);
///   - log entries: every human request (type request), every durable statement
///     (type decision, statements.hpp), every failed/rejected tool call (type issue);
///   - files touched by successful tool calls (read / modified; privacy.hpp for paths);
///   - tool calls and failures per tool;
///   - one "transcript" summary per session, rebuilt from the above on each ingest.
/// Cross-layer (only when the tool exists, per the layers' agreement):
///   - feedback_record {records: [...]} in batches of <= 1000, with at/source_id so the
///     affective layer can weight recency and skip duplicates;
///   - memory_suggest {text, kind, subject?, value?, source: "import", source_ref:
///     "<file>:<line> (<time>)", tags} once per statement and project, remembered across
///     re-ingests; a queued suggestion is dropped when a statement said later sets its
///     subject to another value (statements.hpp, statement_values.hpp).
///   Both are written to episodic_outbox in the same transaction as the batch and
///   delivered after commit (a failed delivery stays pending and is retried next time).
/// Atomicity: a file is read in batches of `batch_bytes`; each batch, its parser state
/// and the new byte offset commit in one transaction (compare-and-set on the offset, so
/// two ingests of one file never record a line twice). A failure leaves the previous
/// batches and nothing of the failed one. A file replaced or truncated since the last
/// ingest (its first bytes changed or it shrank) is read again from the start; Claude
/// Code lines are de-duplicated by uuid, so nothing is recorded twice.
/// Resumed Claude Code sessions: each sessionId is its own session; lines a resuming file
/// carries over stay with the earlier session and are recorded once whichever file comes
/// first (keys: uuid, tool_use id of a result, time + text of a human message).
/// Robustness: lines are read one at a time (line_reader.hpp, bounded memory); blank,
/// malformed (not JSON, binary, cut off), oversize and unrecognized lines are counted and
/// skipped; a line whose time is not RFC 3339 takes the previous line's time and is
/// counted. A file with no recognizable line is an error and writes nothing.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kioku/sdk/host.hpp"
#include "settings.hpp"
#include "transcript.hpp"

namespace kioku::episodic {

struct FileReport {
  std::string path;    ///< home shown as "~"
  std::string format;  ///< claude-code | codex | generic | unknown
  std::string error;   ///< non-empty: this file failed and nothing of the failing batch was kept
  std::uint64_t bytes = 0;  ///< new bytes consumed
  std::int64_t lines = 0;
  std::int64_t skipped_lines = 0;   ///< malformed, unrecognized or oversize (blank not included)
  std::int64_t blank_lines = 0;
  std::int64_t oversize_lines = 0;
  std::int64_t duplicates = 0;
  std::int64_t bad_timestamps = 0;
  std::int64_t messages = 0;
  std::int64_t tool_outcomes = 0;
  std::int64_t failed_tools = 0;
  std::int64_t files_touched = 0;
  std::int64_t statements = 0;
  std::int64_t suggested = 0;  ///< new memory suggestions queued
  std::vector<std::string> sessions;
  bool reset = false;      ///< file replaced/truncated since last time: read from the start
  bool unchanged = false;  ///< nothing new since the last ingest
  bool stopped = false;    ///< stopped early (deadline/cancel); call again to continue
};

struct DeliveryReport {
  std::int64_t sent = 0;
  std::int64_t failed = 0;
  std::int64_t waiting = 0;  ///< pending rows whose layer is not loaded
  /// Outcomes feedback_record reported as "expired" (older than its retention window).
  std::int64_t expired_outcomes = 0;
  std::vector<std::string> errors;
};

class Ingester {
 public:
  /// `caller` is who runs the ingest (CLI user or tool caller); cross-layer calls carry
  /// the transcript's own agent, session and project instead where they are known.
  Ingester(sdk::HostServices& host, const Settings& settings, sdk::Caller caller);

  /// Ingests what is new in one file. `forced` overrides format detection.
  /// `should_stop` is polled between batches.
  FileReport IngestFile(const std::filesystem::path& path, Format forced = Format::kUnknown,
                        const std::function<bool()>& should_stop = {});

  /// Delivers pending outbox rows (feedback_record, memory_suggest).
  DeliveryReport Deliver();

 private:
  sdk::HostServices& host_;
  const Settings& settings_;
  sdk::Caller caller_;
};

/// Transcript files under `dir` (recursively; *.jsonl), sorted, at most `max_files`.
std::vector<std::filesystem::path> ListTranscripts(const std::filesystem::path& dir,
                                                   std::size_t max_files = 10'000);

/// Text of the per-session transcript summary, rebuilt from stored data (deterministic).
std::string BuildTranscriptSummary(SQLite::Database& db, const std::string& session_id);

}  // namespace kioku::episodic
