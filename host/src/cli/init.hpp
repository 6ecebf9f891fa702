#pragma once
/// @file init.hpp
/// `kioku init <client>` / `kioku uninstall <client>`: writes (removes) kioku's MCP server
/// entry, its hooks and the agent-instructions block in a client's own config files, and
/// touches nothing else in them. Entries are marked (env KIOKU_INIT in the MCP entry, a
/// trailing `# kioku init` comment on hook commands, HTML comment lines around the block),
/// so re-running updates them in place and uninstall removes exactly them. An entry named
/// `kioku` without the marker is a conflict: reported, left alone, nothing written
/// (unless `force`).

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace kioku::host::cli {

struct InitOptions {
  std::string client;       ///< claude-code | codex | cursor | gemini-cli | vscode
  bool user = false;        ///< user-level files (default: project, except codex)
  bool project = false;     ///< project-level files (codex's default is user)
  bool dry_run = false;     ///< print a diff per file, write nothing
  bool force = false;       ///< replace a hand-written `kioku` entry
  bool hooks = true;        ///< also hooks where the client has them
  bool instructions = true;  ///< also the AGENTS.md / CLAUDE.md / GEMINI.md block
  std::filesystem::path project_dir;  ///< default: current directory
  std::filesystem::path home;         ///< default: $HOME
  std::filesystem::path kioku_path;   ///< default: this executable (/proc/self/exe)
  std::string config_path;            ///< --config (or $KIOKU_CONFIG) at init: passed on to serve and hooks
  std::string data_home;              ///< $KIOKU_HOME at init (absolute): passed on to serve and hooks
};

/// The supported client names, in the order `--help` lists them.
const std::vector<std::string>& InitClients();

/// Installs (`install`) or removes kioku for `options.client`. Prints one line per file and
/// a diff per changed file with `dry_run`. An install that names no home or config keeps
/// those of the MCP entry an earlier init wrote (and says so). Returns 0, 1 on a conflict or
/// an unreadable file (nothing written then), 2 on a usage error.
int RunInit(const InitOptions& options, bool install, std::ostream& out, std::ostream& err);

/// The generic MCP JSON snippet (`kioku init --print`): {"mcpServers": {"kioku": ...}}.
std::string PrintSnippet(const InitOptions& options);

}  // namespace kioku::host::cli
