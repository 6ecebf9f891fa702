#pragma once
/// @file common.hpp
/// Pieces every working tool shares: the plugin environment, the resolved caller (agent +
/// project), liveness, the event log, text checks and JSON Schema builders.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>
#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/tool.hpp"
#include "settings.hpp"

namespace kioku::working {

using sdk::Json;
namespace schema = sdk::schema;

/// What tool handlers need from the plugin. Immutable after registration, so handlers on
/// many threads share it without locking; all mutable state lives in the database.
struct ToolContext {
  ToolContext(sdk::HostServices& h, Settings s) : host(h), settings(s) {}

  sdk::HostServices& host;
  Settings settings;

  std::int64_t Now() const { return host.GetClock().NowMs(); }
  SQLite::Database& Db() const { return host.Db(); }
};

/// Who a call acts for, after combining the transport identity with arguments.
struct Actor {
  /// The holder name leases, presence and handoffs are stored under:
  /// sdk::InstanceHolder(agent_name, caller) — "claude-main#3f2a9c01" for one window of a
  /// configured agent, the bare name when the transport has no instance.
  std::string agent_id;
  std::string agent_name;    ///< sdk::ResolveAgentId: the agent, shared by its windows.
  std::string project_id;    ///< caller.project_id, else caller.project_root, else "".
  std::string project_root;  ///< Used to normalize file paths; may be empty.
  /// The caller's working folder relative to project_root ("" at the root or unknown):
  /// relative paths an agent sends are relative to where it runs.
  std::string subdir;
  std::string session_id;    ///< caller.session_id; may be empty.
};

using sdk::kMaxAgentIdBytes;

/// Resolves the acting agent with sdk::ResolveAgentId (caller.hpp; Settings::
/// agent_id_argument "override" maps to AgentArgument::kOverrideUnlessToken) and its holder
/// name (sdk::InstanceHolder). Throws sdk::ToolError naming what to send. With
/// `agent_required` false (read-only tools that only use the agent to mark "mine"), an
/// unknown agent yields an empty agent_id.
Actor ResolveActor(const ToolContext& env, const Json& args, const sdk::CallContext& ctx,
                   bool agent_required = true);

/// Holder liveness computed at read time from working_presence (never stored).
enum class Liveness { kLive, kStale, kUnknown };
std::string_view LivenessName(Liveness liveness);
/// live: last heartbeat within ttl; stale: older; unknown: no heartbeat ever.
Liveness LivenessOf(std::optional<std::int64_t> last_seen_ms, std::int64_t now_ms,
                    std::int64_t ttl_seconds);
/// Last heartbeat of `agent_id` in the project, if any.
std::optional<std::int64_t> LastSeen(SQLite::Database& db, const std::string& project_id,
                                     const std::string& agent_id);

/// Upserts the actor's heartbeat (last_seen_ms = now), leaving status and focus as they
/// are. Every writing tool calls it inside its transaction: any write counts as a sign of
/// life, so a holder that crashed goes stale after presence_ttl_seconds.
void TouchPresence(SQLite::Database& db, const Actor& actor, std::int64_t now_ms);

/// Appends one row to working_events (the workspace log and audit trail).
void RecordEvent(SQLite::Database& db, const Actor& actor, std::string_view kind,
                 std::string_view subject, const Json& detail, std::int64_t now_ms);

/// sdk::TextArg (size cap in UTF-8 bytes, invalid UTF-8 replaced), then sdk::ScreenText
/// when Settings::screen_secrets is on. Returns nullopt when absent. Throws sdk::ToolError
/// naming `key` and the limit.
std::optional<std::string> TextArg(const ToolContext& env, const Json& args, const char* key,
                                   std::int64_t max_bytes);
/// sdk::ScreenText(text, what) when Settings::screen_secrets is on: refuses a secret,
/// naming `what` and the rule, never the secret. For identifiers (block keys, claimed
/// paths) that are stored but are not free text.
void RefuseSecret(const ToolContext& env, std::string_view text, const std::string& what);

/// Like TextArg but the argument must be present and non-blank.
std::string RequiredTextArg(const ToolContext& env, const Json& args, const char* key,
                            std::int64_t max_bytes);
/// Checks already-extracted text the same way (used for list items).
std::string CheckText(const ToolContext& env, std::string_view text, const std::string& what,
                      std::int64_t max_bytes);

/// RFC 3339 for a Unix-ms time; JSON null for an absent one.
std::string Rfc(std::int64_t ms);
Json RfcOrNull(std::optional<std::int64_t> ms);

/// Shortened single-line rendering of text for compact tool output.
std::string Snip(std::string_view text, std::size_t max_bytes = 80);

/// A window of a long stored text (a block, a focus section) that fits one result.
struct TextWindow {
  std::size_t offset = 0;   ///< Where `part` starts, bytes (moved forward to a character start).
  std::string part;         ///< At most the window's bytes, ending at a whole UTF-8 character.
  std::size_t omitted = 0;  ///< Bytes after `part`; the next window starts at offset + part.size().
};
/// The window of `content` from `offset` (clamped to its size) of at most `max_bytes`.
TextWindow WindowOf(std::string_view content, std::size_t offset, std::size_t max_bytes);

/// Max-min fair shares of `room` for parts needing `need[i]` (water-filling: a part needing
/// less than an equal share leaves the rest to the others). Sum of shares <= room.
std::vector<std::size_t> FairShares(const std::vector<std::size_t>& need, std::size_t room);

/// Cuts the fields `keys` of `row` so its JSON takes about `budget` bytes at most: each gets
/// a fair share (FairShares); a string is cut at a whole UTF-8 character and gets
/// `<key>_omitted_bytes`, an array of strings keeps its first items and gets
/// `<key>_omitted` (items left out). Returns true when something was cut.
bool FitFields(Json& row, const std::vector<std::string>& keys, std::size_t budget);

/// The `agent_id` argument every tool accepts (sdk::schema::String, 1..kMaxAgentIdBytes).
Json AgentIdProp();

}  // namespace kioku::working
