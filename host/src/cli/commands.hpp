#pragma once
/// @file commands.hpp
/// One function per built-in command; each returns the process exit code.

#include <ostream>
#include <istream>
#include <stop_token>
#include <optional>
#include <string>
#include <vector>

#include "cli/init.hpp"
#include "cli/load.hpp"

namespace kioku::host::cli {

struct ServeOptions {
  bool http = false;
  std::string listen;  ///< ADDR:PORT; empty = config server.http.listen
};

int Serve(const GlobalOptions& global, const ServeOptions& serve, int proto_out_fd);
/// Serves Streamable HTTP on `listen` until a byte arrives on `wake_fd` (SIGTERM).
int ServeHttp(Loaded& loaded, mcp::Dispatcher& dispatcher, const std::string& listen, int wake_fd);
/// One line per listed tool; `all` adds the unlisted ones, marked.
int Tools(const GlobalOptions& global, bool all, std::ostream& out);
/// `arguments` is JSON text, "-" for stdin, or empty for {}. `project`: the --project
/// value, if given (sdk::UseCommandLineProject: a folder or project key; empty is refused).
int Call(const GlobalOptions& global, const std::string& tool, const std::string& arguments,
         const std::optional<std::string>& project, std::ostream& out);
/// `kioku context` (context.cpp): never fails — errors go to `err`, the result is 0.
int Context(const GlobalOptions& global, const std::vector<std::string>& args, std::istream& in,
            std::ostream& out, std::ostream& err);
/// `online`: also sends one embedding request to `providers.embedding` (when configured)
/// and reports its model, dimension and latency, or the error.
int Doctor(const GlobalOptions& global, bool json, std::ostream& out, bool online = false);
/// `kioku export` (export_command.cpp): `format` "json" or "md"; `output` "" or "-" = `out`,
/// else a 0600 file written through a rename.
int Export(const GlobalOptions& global, const std::string& format, const std::string& output, std::ostream& out);
/// The export text of a started runtime ("json" or "md").
std::string RenderExport(Runtime& runtime, const std::string& format);
/// `kioku import [--from FORMAT] FILE` (export_command.cpp): all or nothing; exit 1 with the
/// reason. `project`: absent = the working directory's project, "-" = none (global
/// memories), else a folder or key (sdk::UseCommandLineProject; empty is refused).
int Import(const GlobalOptions& global, const std::string& file, const std::string& format,
           const std::optional<std::string>& project, std::ostream& out);
/// `kioku backup snapshot | list | restore FILE` (backup_command.cpp).
int Backup(const GlobalOptions& global, const std::string& action, const std::string& file, std::ostream& out);
/// The automatic snapshot at serve start (config backup.auto_after_hours); logs, never
/// throws. `stop` requested: the snapshot is abandoned (the next start takes it).
void RunAutoSnapshot(const Loaded& loaded, std::stop_token stop = {});
/// One line on the newest snapshot for `kioku doctor`.
std::string DescribeBackupAge(const Config& config, const std::filesystem::path& data_dir);
/// `kioku init` (install) / `kioku uninstall`: fills the paths InitOptions leaves empty
/// (project = cwd, home = $HOME, kioku = this executable) and runs RunInit or PrintSnippet.
int Init(const GlobalOptions& global, InitOptions options, bool install, bool print, std::ostream& out);

}  // namespace kioku::host::cli
