#pragma once
/// @file memory.hpp
/// The memory record, the environment every operation runs in, and row loading.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <nlohmann/json.hpp>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/tool.hpp"
#include "settings.hpp"

namespace kioku::semantic {

class TermCountCache;
struct RivalCache;
class IndexLag;

/// What one operation needs: the calling thread's connection, the clock and settings.
/// Tool handlers build it from HostServices; the golden-set harness and benchmarks build it
/// over a private database and a ManualClock.
struct Env {
  SQLite::Database& db;
  const sdk::Clock& clock;
  const Settings& settings;
  sdk::StatementCache& statements;
  /// Word-index term counts kept across recalls (term_counts.hpp); null = count every recall.
  TermCountCache* term_counts = nullptr;
  /// What rival detection keeps across writes (rival_cache.hpp); null = it reads and builds
  /// everything again in every write.
  RivalCache* rivals = nullptr;
  /// Where writes queue the lagging indexes' catch-up (index_lag.hpp); null = each write
  /// catches them up itself.
  IndexLag* index_lag = nullptr;

  /// A prepared statement on this env's connection, leased from the cache (sdk::StatementCache):
  /// held until the lease goes out of scope, so nested uses of one SQL get two statements.
  sdk::CachedStatement Stmt(const std::string& sql) const { return statements.Get(db, sql); }
};

/// Where a memory applies (ARCHITECTURE.md "Identity and scope"). `project_id` is empty for
/// global; `path` is a project-relative path, non-empty only for scope "path".
struct Scope {
  std::string kind = "global";  ///< "global" | "project" | "path"
  std::string project_id;
  std::string path;
};

/// One stored memory (a row of semantic_memories). Times are Unix ms; 0 = none.
struct Memory {
  std::int64_t seq = 0;
  std::string id;
  std::string kind;
  std::string text;
  std::string subject;  ///< Normalized subject key, "" = none.
  std::string value;
  std::vector<std::string> tags;
  int importance = 5;
  double confidence = 1.0;
  std::string status;
  std::string prior_status;  ///< Status before it was superseded/forgotten.
  std::string source;
  std::string source_ref;
  Scope scope;
  std::string anchor;
  std::int64_t expires_at = 0;
  std::string agent_id;
  std::string session_id;
  std::int64_t captured_at = 0;
  std::int64_t updated_at = 0;
  int recall_count = 0;
  std::int64_t last_recalled_at = 0;
  int reaffirm_count = 0;
  std::int64_t superseded_at = 0;
  std::string superseded_by;
};

/// A memory's id in SQL over the semantic_memories row whose columns `row` prefixes ("",
/// "m.", "new."): `own_id` when the memory has one (ids given out before migration 15 and
/// those imports keep), else sdk::SeqId(captured_at, id_nonce, seq) in plain SQL, 26
/// Crockford base32 characters: 10 of the clamped time, 4 of the nonce, 12 of seq
/// (DerivedMemoryIdSql). Equal to MemoryId for every row (memory_ids_test). Not a column of
/// the table: SQLite computes a virtual column on every insert and update (~34,000
/// instructions a write here), so code reads own_id, captured_at, id_nonce and seq and calls
/// MemoryId; the view semantic_memory_ids (seq, id) shows it to people and to the import's
/// reference check.
std::string MemoryIdSql(std::string_view row = "");
std::string DerivedMemoryIdSql(std::string_view row = "");

/// A memory's id from its row: `own_id` when not empty, else sdk::SeqId(captured_at, nonce, seq).
std::string MemoryId(const std::string& own_id, std::int64_t captured_at, std::int64_t nonce, std::int64_t seq);

/// The nonce a new memory's id holds (sdk::SeqId, 20 bits): a hash (KeyHash) of who wrote it
/// in which session and project, its text and capture time. Two databases that give one seq
/// in one millisecond to different memories give them different ids (but for 1 in 2^20),
/// and an id with a character changed decodes to a row whose nonce differs (alike).
std::int64_t MemoryNonce(const std::string& agent_id, const std::string& session_id, const std::string& project_id,
                         const std::string& text, std::int64_t captured_at);

/// The seq of the memory whose id is exactly `id` (an own id, or a computed one decoded and
/// compared with its row's); nullopt when none, a computed id with a slip in it included.
std::optional<std::int64_t> MemorySeqOfId(SQLite::Database& db, const std::string& id);

/// Column list matching ReadMemory, for `SELECT <MemoryColumns()> FROM semantic_memories m`
/// (the project, agent and session by their text: keys.hpp KeyTextSql).
const std::string& MemoryColumns();

/// Reads a row selected with MemoryColumns() (column 0 onwards).
Memory ReadMemory(SQLite::Statement& q);
/// Reads only the first six columns of MemoryColumns() (seq, own_id, kind, text, subject,
/// value), captured_at and id_nonce (columns `captured_at_column` and `nonce_column`, for the
/// id) into an otherwise default Memory, for selects that begin with them.
Memory ReadMemoryHead(SQLite::Statement& q, int captured_at_column, int nonce_column);

/// Loads by exact id; nullopt when absent.
std::optional<Memory> LoadMemoryBySeq(SQLite::Database& db, std::int64_t seq);
std::optional<Memory> LoadMemoryById(SQLite::Database& db, const std::string& id);

/// Resolves an id or unique prefix (>= 4 chars) to a memory; ToolError otherwise
/// (unknown id, ambiguous prefix listing the matches).
Memory ResolveMemory(SQLite::Database& db, const std::string& id_or_prefix);

/// Full JSON form (memory_get, history snapshots): every field, times as RFC 3339.
nlohmann::json MemoryToJson(const Memory& m);

/// "3d", "5h", "2mo", "1y" — age of `then` relative to `now` for compact text.
std::string FormatAge(std::int64_t now_ms, std::int64_t then_ms);

/// Tags stored space-separated in the row.
std::string JoinTags(const std::vector<std::string>& tags);
std::vector<std::string> SplitTags(const std::string& joined);

}  // namespace kioku::semantic
