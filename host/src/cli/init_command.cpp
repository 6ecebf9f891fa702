#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/init.hpp"
#include "config.hpp"

namespace kioku::host::cli {

int Init(const GlobalOptions& global, InitOptions options, bool install, bool print, std::ostream& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (options.project_dir.empty()) options.project_dir = fs::current_path(ec);
  if (options.home.empty()) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') {
      std::cerr << "kioku: HOME is not set; user-level config files cannot be found\n";
      return 2;
    }
    options.home = home;
  }
  if (options.kioku_path.empty()) options.kioku_path = fs::read_symlink("/proc/self/exe", ec);
  // The agent starts kioku with its own environment, not this shell's: a home or config
  // this shell names by variable is written into what init installs, or the agent's kioku
  // would use ~/.kioku and the embedded config.
  if (const std::string config = ConfigPath(global.config_path); !config.empty()) {
    options.config_path = fs::absolute(config, ec).lexically_normal().string();
    // Written into the agent's config, a missing file would stop its server at every start
    // and fail every hook quietly (they end in `|| true`).
    if (!fs::is_regular_file(options.config_path, ec) && !print) {
      std::cerr << "kioku: the config " << options.config_path << " (from "
                << (global.config_path.empty() ? "KIOKU_CONFIG" : "--config")
                << ") is not a file; the agent's kioku could not start with it. Name an existing file.\n";
      return 2;
    }
  }
  if (const char* env = std::getenv("KIOKU_HOME"); env != nullptr && *env != '\0') {
    options.data_home = fs::absolute(ResolveHome(""), ec).lexically_normal().string();
  }
  if (print) {
    out << PrintSnippet(options);
    return 0;
  }
  if (options.client.empty()) {
    std::cerr << "kioku: name a client (kioku " << (install ? "init" : "uninstall")
              << " claude-code|codex|cursor|gemini-cli|vscode), or use --print\n";
    return 2;
  }
  if (options.user && options.project) {
    std::cerr << "kioku: --user and --project exclude each other\n";
    return 2;
  }
  if (options.project && options.client != "codex") {
    std::cerr << "kioku: --project is the default for " << options.client << "; use --user for user-level files\n";
    return 2;
  }
  return RunInit(options, install, out, std::cerr);
}

}  // namespace kioku::host::cli
