#pragma once
/// @file caller.hpp
/// The one way a layer learns which agent acts (ARCHITECTURE.md "Identity and scope"):
/// the transport's identity first (HTTP token, then the client configuration —
/// KIOKU_AGENT_ID, MCP clientInfo), the call's own `agent_id` argument last. An argument
/// never overrides an authenticated caller.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::sdk {

/// Longest agent id accepted (UTF-8 bytes).
inline constexpr std::size_t kMaxAgentIdBytes = 128;

/// What an `agent_id` argument may do when the transport already named the agent.
enum class AgentArgument {
  /// Default: an argument equal to the transport's agent is fine, a different one is
  /// refused (isError naming both).
  kRefuseContradiction,
  /// The argument wins (sub-agents sharing one connection), except over a bearer token's
  /// agent (AgentSource::kToken), which is never overridden.
  kOverrideUnlessToken,
};

/// True when the transport named the agent: agent_source is not kNone, or agent_id is set
/// and is not "unknown" (callers built by hand in tests and tools).
bool CallerKnown(const Caller& caller);

/// Checks an agent id: 1..kMaxAgentIdBytes bytes, no whitespace, control characters or '#'
/// (the instance separator), not the reserved "unknown". Throws ToolError saying what to send.
void CheckAgentId(std::string_view id);

/// The acting agent's name for this call:
///   - caller known (CallerKnown): caller.agent_id; an `agent_id` argument (args["agent_id"],
///     a string) must equal it, else ToolError "this connection is already identified as
///     agent 'X' (from <source>)…" — unless `policy` lets it win (see AgentArgument);
///   - caller unknown: the argument (checked with CheckAgentId); absent → "" when
///     `required` is false, else ToolError asking for agent_id.
/// `args` may be any JSON (non-objects carry no argument). Thread-safe, pure.
std::string ResolveAgentId(const Caller& caller, const Json& args, bool required = true,
                           AgentArgument policy = AgentArgument::kRefuseContradiction);

/// The name a lease holder is stored under: `agent_id` alone when caller.instance_id is
/// empty, else "<agent_id>#<instance_id>", so two windows of one configured agent hold
/// claims separately while memories and outcomes stay filed under the bare name.
std::string InstanceHolder(std::string_view agent_id, const Caller& caller);

/// The agent name inside a holder ("claude-main#3f2a" → "claude-main").
std::string_view HolderAgent(std::string_view holder);

/// The project a process started from the command line acts in (`kioku call`, `kioku
/// review`, the hooks): `dir_or_key` when given (a --project flag) — an existing folder,
/// resolved as a server started there would (ResolveProject), else a project key as
/// memory_list shows it (CanonicalProjectKey) — else $KIOKU_PROJECT_ROOT, else the working
/// directory. Sets caller.project_root, project_id and working_dir (root and directory
/// empty for a key). Throws std::invalid_argument, naming what to send, for a `dir_or_key`
/// given empty (an unset shell variable, not "this folder") and for one starting with '.'
/// or '~' that is no folder here (a mistyped path, not a key).
void UseCommandLineProject(Caller& caller, const std::optional<std::string>& dir_or_key,
                           const ProjectOptions& projects);

/// Human name of a source for messages: "an HTTP token", "KIOKU_AGENT_ID / configuration",
/// "MCP clientInfo", "nothing".
std::string_view AgentSourceName(AgentSource source);

}  // namespace kioku::sdk
