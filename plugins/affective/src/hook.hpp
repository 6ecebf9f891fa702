#pragma once
/// @file hook.hpp
/// `kioku hook post-tool-use`: records the outcome of one of the agent's own tool calls
/// from a Claude Code hook envelope on stdin, straight into the database.
///
/// Envelope (Claude Code hooks reference, PostToolUse / PostToolUseFailure input): JSON with
/// session_id, transcript_path, cwd, hook_event_name, tool_name, tool_input, tool_use_id,
/// and tool_response (PostToolUse) or error + is_interrupt (PostToolUseFailure); recent
/// versions add duration_ms.
/// Outcome:
///   PostToolUseFailure                 → failure (is_interrupt: timeout, like a cancelled call)
///   PostToolUse, tool_response object with is_error/isError true, success false, a
///     non-empty `error`, or a non-zero exit_code/exitCode → failure
///   ... with interrupted true          → timeout
///   otherwise                          → success
/// Tool name: `mcp__<server>__<tool>` becomes `<server>/<tool>`; servers in
/// hook.skip_mcp_servers are skipped (kioku's own calls are captured by its server).
/// Agent: `--agent ID`, else KIOKU_AGENT_ID, else hook.agent_id. Project: the envelope's cwd.
/// session_id and tool_use_id are kept (tool_use_id as source_id, so a later transcript
/// ingest of the same call is not counted twice).
/// The command never fails the agent: it always exits 0 and writes a one-line note to
/// stderr when it skips or cannot record; stdout stays empty.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outcome.hpp"
#include "tools.hpp"

namespace kioku::affective {

/// Largest envelope read from stdin; a bigger one is skipped with a note.
inline constexpr std::size_t kMaxEnvelopeBytes = 64u << 20;

struct HookParse {
  std::optional<OutcomeRecord> record;
  std::string note;  ///< Why nothing is recorded (empty when `record` is set).
};

/// Interprets one envelope. `agent_id` is the already-resolved agent; `projects` maps the
/// envelope's cwd to its project (sdk::ProjectOfRecord, as the host does for live callers).
HookParse ParseHookEnvelope(std::string_view text, const std::string& agent_id,
                            const Settings& settings, const Recorder& recorder,
                            std::int64_t now_ms, const sdk::ProjectOptions& projects = {});

/// Maps `mcp__server__tool` to `server/tool`; other names unchanged. Sets `server` for MCP
/// names.
std::string NormalizeToolName(std::string_view name, std::string* server = nullptr);

/// The CommandSpec::run body. Always returns 0.
int RunHookCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                   std::ostream& err, ToolContext& ctx);

inline constexpr const char* kHookUsage =
    "usage: kioku hook post-tool-use [--agent ID]\n"
    "Reads a Claude Code PostToolUse or PostToolUseFailure hook envelope (JSON) on stdin and\n"
    "records the tool's outcome in the affective layer. Always exits 0; problems are noted on\n"
    "stderr. Claude Code settings.json:\n"
    "  \"hooks\": {\"PostToolUse\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\",\n"
    "    \"command\": \"kioku hook post-tool-use\"}]}],\n"
    "  \"PostToolUseFailure\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\",\n"
    "    \"command\": \"kioku hook post-tool-use\"}]}]}\n";

}  // namespace kioku::affective
