#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/init.hpp"

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
  if (!global.config_path.empty()) options.config_path = fs::absolute(global.config_path, ec).lexically_normal().string();
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
