#include "cli/init_targets.hpp"

#include <cstdlib>
#include <stdexcept>

namespace kioku::host::cli {
namespace {

namespace fs = std::filesystem;

// Single-quotes a word for sh (a ' inside becomes '\'').
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string HookCommand(const InitOptions& o, const std::string& agent, const std::string& args) {
  std::string cmd = "KIOKU_AGENT_ID=" + ShellQuote(agent) + " ";
  if (!o.data_home.empty()) cmd += "KIOKU_HOME=" + ShellQuote(o.data_home) + " ";
  cmd += ShellQuote(o.kioku_path.string());
  if (!o.config_path.empty()) cmd += " --config " + ShellQuote(o.config_path);
  // `|| true`: a failing hook must never block or warn the client (Claude Code blocks on 2).
  return cmd + " " + args + " || true " + kHookMarker;
}

// Claude Code hook events and the kioku command each runs (commands agreed with the context
// and capture hooks: `kioku context --hook-stdin`, `kioku hook capture`).
// `claude_code`: also the events Codex does not have (SessionEnd, PostToolUseFailure; Claude
// Code fires PostToolUse only after a tool succeeded, so without the failure hook every
// outcome recorded would be a success).
std::vector<HookSpec> ClaudeHooks(const InitOptions& o, const std::string& agent, bool claude_code) {
  std::vector<HookSpec> hooks = {
      {"SessionStart", HookCommand(o, agent, "context --hook-stdin"), 10},
      {"UserPromptSubmit", HookCommand(o, agent, "context --hook-stdin"), 10},
      {"PostToolUse", HookCommand(o, agent, "hook post-tool-use"), 10},
      {"PreCompact", HookCommand(o, agent, "hook capture"), 30},
      {"Stop", HookCommand(o, agent, "hook capture"), 30},
  };
  if (claude_code) {
    hooks.push_back({"PostToolUseFailure", HookCommand(o, agent, "hook post-tool-use"), 10});
    hooks.push_back({"SessionEnd", HookCommand(o, agent, "hook capture"), 30});
  }
  return hooks;
}

fs::path XdgConfig(const InitOptions& o) {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  return xdg && *xdg ? fs::path(xdg) : o.home / ".config";
}

}  // namespace

const std::vector<std::string>& InitClients() {
  static const std::vector<std::string> clients = {"claude-code", "codex", "cursor", "gemini-cli", "vscode"};
  return clients;
}

nlohmann::ordered_json ServerEntry(const InitOptions& o, bool with_type) {
  nlohmann::ordered_json entry = nlohmann::ordered_json::object();
  if (with_type) entry["type"] = "stdio";
  entry["command"] = o.kioku_path.string();
  auto args = nlohmann::ordered_json::array({"serve"});
  if (!o.config_path.empty()) {
    args.push_back("--config");
    args.push_back(o.config_path);
  }
  entry["args"] = args;
  const std::string client = o.client.empty() ? "mcp-client" : o.client;
  entry["env"] = {{"KIOKU_AGENT_ID", client}};
  if (!o.data_home.empty()) entry["env"]["KIOKU_HOME"] = o.data_home;
  entry["env"][kInitMarkerEnv] = client;
  return entry;
}

std::vector<FileEdit> PlanInit(const InitOptions& o) {
  const std::string& c = o.client;
  const fs::path& p = o.project_dir;
  const fs::path& h = o.home;
  std::vector<FileEdit> edits;
  auto mcp_json = [&](fs::path path, std::string container, bool with_type) {
    FileEdit e;
    e.kind = EditKind::kMcpJson;
    e.path = std::move(path);
    e.container = {std::move(container)};
    e.entry = ServerEntry(o, with_type);
    edits.push_back(std::move(e));
  };
  auto hooks = [&](fs::path path, std::vector<HookSpec> specs) {
    if (!o.hooks) return;
    FileEdit e;
    e.kind = EditKind::kHooksJson;
    e.path = std::move(path);
    e.hooks = std::move(specs);
    edits.push_back(std::move(e));
  };
  auto block = [&](fs::path path) {
    if (!o.instructions) return;
    FileEdit e;
    e.kind = EditKind::kBlock;
    e.path = std::move(path);
    edits.push_back(std::move(e));
  };
  if (c == "claude-code") {
    // Project: .mcp.json (shared, the user approves it once) and .claude/settings.json.
    // User: ~/.claude.json (user-scope servers) and ~/.claude/settings.json.
    mcp_json(o.user ? h / ".claude.json" : p / ".mcp.json", "mcpServers", true);
    hooks(o.user ? h / ".claude" / "settings.json" : p / ".claude" / "settings.json", ClaudeHooks(o, c, true));
    block(o.user ? h / ".claude" / "CLAUDE.md" : p / "CLAUDE.md");
  } else if (c == "codex") {
    // Codex reads ~/.codex and, in trusted projects, <repo>/.codex; hooks.json has Claude
    // Code's shape (no SessionEnd event).
    const fs::path dir = o.project ? p / ".codex" : h / ".codex";
    FileEdit e;
    e.kind = EditKind::kMcpToml;
    e.path = dir / "config.toml";
    e.container = {"mcp_servers"};
    e.entry = ServerEntry(o, false);
    edits.push_back(std::move(e));
    hooks(dir / "hooks.json", ClaudeHooks(o, c, false));
    block(o.project ? p / "AGENTS.md" : dir / "AGENTS.md");
  } else if (c == "cursor") {
    mcp_json(o.user ? h / ".cursor" / "mcp.json" : p / ".cursor" / "mcp.json", "mcpServers", false);
    if (!o.user) block(p / "AGENTS.md");
  } else if (c == "gemini-cli") {
    // Gemini CLI hooks expect JSON on stdout and its own envelope; kioku's hook commands
    // speak Claude Code's, so only the MCP entry and GEMINI.md are written.
    mcp_json(o.user ? h / ".gemini" / "settings.json" : p / ".gemini" / "settings.json", "mcpServers", false);
    block(o.user ? h / ".gemini" / "GEMINI.md" : p / "GEMINI.md");
  } else if (c == "vscode") {
    mcp_json(o.user ? XdgConfig(o) / "Code" / "User" / "mcp.json" : p / ".vscode" / "mcp.json", "servers", true);
    if (!o.user) block(p / "AGENTS.md");
  } else {
    std::string known;
    for (const auto& name : InitClients()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown client '" + c + "'; supported: " + known + " (or --print for a JSON snippet)");
  }
  return edits;
}

}  // namespace kioku::host::cli
