#pragma once
/// @file capture_hook.hpp
/// `kioku hook capture`: the Stop / SubagentStop / PreCompact / SessionEnd hook. Reads the
/// client's hook envelope (Claude Code, Codex: JSON with session_id, transcript_path, cwd,
/// hook_event_name) on stdin and ingests what the session's own transcript gained since
/// the last run (ingest.hpp: byte offset and parser state per file, compare-and-set, so
/// lines are never recorded twice), then delivers the outbox (tool outcomes, suggestions).
///
/// Never in the agent's way: stdout stays empty, problems are one line on stderr, the exit
/// code is always 0, and ingest stops between batches once `--max-ms` (default 5000) has
/// passed — the rest is picked up by the next run. Project: the envelope's cwd, identified
/// as the server identifies it (sdk::ProjectIdentity). Agent: `--agent`, else
/// KIOKU_AGENT_ID, else the transcript's own.

#include <iosfwd>
#include <string>
#include <vector>

#include "tool_support.hpp"
#include "kioku/sdk/plugin.hpp"

namespace kioku::episodic {

/// The CommandSpec of `kioku hook capture`.
sdk::CommandSpec CaptureHookCommand(ToolContext& env);

/// The command's body (tests call it directly). Always returns 0.
int RunCaptureHook(ToolContext& env, const std::vector<std::string>& args, std::istream& in, std::ostream& err);

}  // namespace kioku::episodic
