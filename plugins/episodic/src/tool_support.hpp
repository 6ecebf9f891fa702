#pragma once
/// @file tool_support.hpp
/// What every tool group of the plugin shares: host services and parsed settings, plus
/// the argument helpers the tools have in common (project scope, agent). Times and
/// secrets: sdk/args.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/tool.hpp"
#include "settings.hpp"

namespace kioku::episodic {

namespace schema = sdk::schema;

/// What tool handlers need from the plugin; owned by it, complete from construction and
/// immutable after, so handlers on many threads share it without locking.
struct ToolContext {
  sdk::HostServices& host;
  Settings settings;
};

/// The project keys a call is scoped to: the `project` argument when given ("*" = every
/// project, returned as nullopt; a path or id is mapped with sdk::CanonicalProjectKey),
/// else the caller's project_id, else nullopt (no filter).
std::optional<std::vector<std::string>> ProjectScope(const sdk::Json& args,
                                                     const sdk::Caller& caller);

/// SQL "(se.project IN (?, …) OR se.project = '')" for `keys.size()` placeholders.
std::string ProjectClause(std::size_t keys);

/// The agent a write is filed under: sdk::ResolveAgentId (an `agent_id` argument that
/// contradicts the transport's agent is refused), else caller.agent_id.
std::string AgentOf(const sdk::Caller& caller, const sdk::Json& args);

/// Reads a string argument or returns `fallback`.
std::string StrArg(const sdk::Json& args, const char* key, std::string fallback = {});

/// Collapsed whitespace, lower-cased ASCII: the key two texts are "the same" under.
std::string NormalizeKey(std::string_view text);

}  // namespace kioku::episodic
