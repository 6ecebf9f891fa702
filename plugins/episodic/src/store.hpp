#pragma once
/// @file store.hpp
/// Row-level access to the episodic tables. Every function runs on the connection it is
/// given and assumes the caller holds a write transaction when it writes
/// (sdk::WithWriteTransaction); none of them opens one.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

namespace kioku::episodic {

struct Session {
  std::string id;
  std::string agent_id;
  std::string model;
  std::string project;
  std::string title;
  std::string source;  ///< "live" (tools) or the transcript format it was imported from
  std::string branch;
  std::int64_t started_at = 0;
  std::optional<std::int64_t> ended_at;
  std::int64_t last_activity_at = 0;
  std::int64_t message_count = 0;
};

/// Fields of a session to create (or to fill in when the row exists with them empty).
struct SessionSeed {
  std::string id;
  std::string agent_id;
  std::string model;
  std::string project;
  std::string title;
  std::string source = "live";
  std::string branch;
  std::int64_t started_at = 0;
};

std::optional<Session> LoadSession(SQLite::Database& db, std::string_view id);

/// Exact id, else a unique prefix of >= 4 characters. Throws sdk::ToolError naming the id
/// and telling the caller to call session_start when nothing matches.
std::string ResolveSessionId(SQLite::Database& db, std::string_view typed);

/// Throws sdk::ToolError unless `id` is 1–128 printable ASCII characters without spaces
/// (client-supplied ids: UUIDs, ULIDs, "2026-05-19-login").
void CheckSessionIdFormat(std::string_view id);

/// Inserts the session when missing (returns true). When it exists, empty agent/model/
/// project/title/branch are filled from `seed`, `started_at` moves earlier if the seed is
/// earlier, and false is returned.
bool UpsertSession(SQLite::Database& db, const SessionSeed& seed, std::int64_t now_ms);

/// last_activity_at = max(last_activity_at, at); message_count += messages.
void TouchSession(SQLite::Database& db, std::string_view id, std::int64_t at,
                  std::int64_t messages = 0);

struct LogEntry {
  std::string id;
  std::string session_id;
  std::int64_t seq = 0;
  std::int64_t at = 0;
  std::string type;
  std::string entry;
  nlohmann::json tags = nlohmann::json::array();
  std::string agent_id;
  std::string source_ref;
};

/// Appends an entry with seq = previous max + 1 (atomic under the caller's write lock).
/// Fills `id` and `seq` of the entry it returns.
LogEntry AppendLog(SQLite::Database& db, LogEntry entry);

struct Summary {
  std::string id;
  std::string session_id;
  std::string kind = "summary";  ///< summary | session_end | consolidated | transcript
  std::string status = "active";
  std::string folded_into;
  std::string text;
  std::int64_t token_count = 0;
  std::string model;
  std::int64_t message_count = 0;
  std::int64_t started_at = 0;
  std::int64_t ended_at = 0;
  std::int64_t created_at = 0;
  std::string agent_id;
  std::string method;
  std::string source_key;  ///< transcript summaries: one per (file, session), updated in place
  /// Consolidated summaries: the chat model that wrote the highlights; '' = extractive.
  std::string highlights_model;
};

/// Inserts a summary (assigns an id when empty) and returns the id.
std::string InsertSummary(SQLite::Database& db, Summary summary);

/// Active summaries of a session, oldest first (by started_at, then created_at, then id).
std::vector<Summary> ActiveSummaries(SQLite::Database& db, std::string_view session_id);

/// Sum of token_count over the active summaries of a session.
std::int64_t ActiveSummaryTokens(SQLite::Database& db, std::string_view session_id);

/// The summary `id` (any kind and status), or nullopt.
std::optional<Summary> LoadSummary(SQLite::Database& db, std::string_view id);

/// The summaries folded into `consolidated_id`, oldest first (ActiveSummaries' order).
std::vector<Summary> FoldedInto(SQLite::Database& db, std::string_view consolidated_id);

/// Ids of active consolidated summaries whose highlights no model wrote yet, oldest first,
/// at most `limit`.
std::vector<std::string> UnrefinedConsolidated(SQLite::Database& db, int limit);

/// Compare-and-set: sets text, token_count and highlights_model of summary `id` only while
/// it is active and its text is still `expected_text`. Returns whether it wrote. Caller
/// holds the write transaction.
bool ReplaceConsolidatedText(SQLite::Database& db, std::string_view id,
                             std::string_view expected_text, std::string_view text,
                             std::string_view highlights_model);

Summary ReadSummaryRow(SQLite::Statement& q);
/// Column list matching ReadSummaryRow, for SELECTs.
extern const char* const kSummaryColumns;

}  // namespace kioku::episodic
