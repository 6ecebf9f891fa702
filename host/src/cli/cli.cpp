#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <set>

#include <ext/stdio_filebuf.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/init.hpp"
#include "kioku/sdk/plugin_entry.hpp"

#ifndef KIOKU_VERSION
#define KIOKU_VERSION "0.0.0"
#endif

namespace kioku::host::cli {
namespace {

const std::set<std::string> kBuiltins = {"serve", "tools", "call", "doctor", "version", "init", "uninstall", "context",
                                      "export", "import", "backup"};

// Finds the first command word, skipping the global options and their values, so a plugin
// command (unknown until plugins load) can be routed before CLI11 parses anything.
int CommandIndex(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" || a == "--plugin-dir") {
      ++i;
      continue;
    }
    if (!a.empty() && a[0] == '-') continue;
    return i;
  }
  return -1;
}

// `--name=value` as two arguments, `--name` and `value` (GNU and CLI11 accept both forms; the
// commands that parse their own arguments, plugin commands and `kioku context`, then take
// both too). Nothing after a bare `--` is split.
std::vector<std::string> SplitLongOptions(std::vector<std::string> args) {
  std::vector<std::string> out;
  bool options = true;
  for (std::string& a : args) {
    if (a == "--") options = false;
    const std::size_t eq = a.find('=');
    const bool named = options && a.size() > 2 && a.starts_with("--") && eq != std::string::npos && eq > 2 &&
                       std::all_of(a.begin() + 2, a.begin() + static_cast<std::ptrdiff_t>(eq),
                                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
    if (named) {
      out.push_back(a.substr(0, eq));
      out.push_back(a.substr(eq + 1));
    } else {
      out.push_back(std::move(a));
    }
  }
  return out;
}

int RunPluginCommand(const GlobalOptions& global, const std::string& name, std::vector<std::string> args,
                     std::ostream& out) {
  args = SplitLongOptions(std::move(args));
  // One-shot start-up (RuntimeOptions::one_shot): hooks run as a process per agent event,
  // and no command needs every tool's schemas compiled before it runs.
  auto loaded = LoadRuntime(global, StartMode::kServe, /*one_shot=*/true);
  const auto& commands = loaded.runtime->Commands();
  // A two-word command ("hook capture") wins over the one-word group ("hook").
  if (!args.empty()) {
    for (const auto& command : commands) {
      if (command.name != name + " " + args[0]) continue;
      std::vector<std::string> rest(args.begin() + 1, args.end());
      if (!rest.empty() && (rest[0] == "--help" || rest[0] == "-h")) {
        out << command.summary << "\n\n" << command.usage << "\n";
        return 0;
      }
      const int code = command.run(rest, std::cin, out, std::cerr);
      EndOneShot(loaded);
      return code;
    }
  }
  std::string group;  // the two-word commands under `name`
  for (const auto& command : commands) {
    if (command.name.rfind(name + " ", 0) == 0) group += "  " + command.name + "  " + command.summary + "\n";
  }
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h") && !group.empty()) {
    out << "Subcommands of `kioku " << name << "`:\n" << group << "\n";
  }
  // A shared name (sdk::kEmbedCommandName) runs every plugin's command in turn; the help of
  // the first stands for them all.
  int ran = 0, code = 0;
  for (const auto& command : commands) {
    if (command.name != name) continue;
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      out << command.summary << "\n\n" << command.usage << "\n";
      return 0;
    }
    code = std::max(code, command.run(args, std::cin, out, std::cerr));
    ++ran;
  }
  if (ran > 0) {
    EndOneShot(loaded);
    return code;
  }
  if (!group.empty()) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) return 0;  // the listing above
    std::cerr << "kioku " << name << ": "
              << (args.empty() ? "name a subcommand" : "unknown subcommand '" + args[0] + "'") << ":\n"
              << group;
    return 2;
  }
  std::cerr << "kioku: unknown command '" << name << "'; run `kioku --help` for the list\n";
  return 2;
}

std::string PluginCommandsFooter(const GlobalOptions& global) {
  try {
    // Describe mode: the plugins register their commands, nothing is migrated or started.
    auto loaded = LoadRuntime(global, StartMode::kDescribe);
    std::string text = "Plugin commands (run `kioku <command> --help`):\n";
    std::set<std::string> listed;  // a shared name (several layers' `embed`) once
    for (const auto& c : loaded.runtime->Commands()) {
      if (listed.insert(c.name).second) text += "  " + c.name + "  " + c.summary + "\n";
    }
    return text;
  } catch (const std::exception&) {
    return "";
  }
}

int RunCommand(int argc, char** argv, int proto_out_fd, std::ostream& out) {
  GlobalOptions global;
  try {
    // Pre-scan for global options so plugin commands can be routed before parsing.
    for (int i = 1; i + 1 < argc; ++i) {
      std::string a = argv[i];
      if (a == "--config") global.config_path = argv[i + 1];
      if (a == "--plugin-dir") global.plugin_dirs.emplace_back(argv[i + 1]);
    }
    int cmd = CommandIndex(argc, argv);
    // `context` parses its own arguments so that even a bad one fails open (exit 0).
    if (cmd > 0 && std::string(argv[cmd]) == "context") {
      return Context(global, SplitLongOptions({argv + cmd + 1, argv + argc}), std::cin, out, std::cerr);
    }
    if (cmd > 0 && !kBuiltins.count(argv[cmd])) {
      std::vector<std::string> args(argv + cmd + 1, argv + argc);
      return RunPluginCommand(global, argv[cmd], std::move(args), out);
    }

    CLI::App app{"kioku — a memory server for coding agents (MCP over stdio and HTTP)", "kioku"};
    app.set_version_flag("--version", KIOKU_VERSION);
    app.require_subcommand(0, 1);
    // Global options may also follow the command (`kioku serve --config F`), as agent
    // configs write them: subcommands hand options they do not know to the app.
    app.fallthrough();
    app.add_option("--config", global.config_path, "YAML config file (else $KIOKU_CONFIG, else the embedded default)");
    app.add_option("--plugin-dir", global.plugin_dirs, "Extra directory to search for kioku-<name>.so (repeatable)");

    ServeOptions serve_options;
    auto* serve = app.add_subcommand("serve", "Serve MCP over stdio (default) or Streamable HTTP");
    auto* http = serve->add_option("--http", serve_options.listen,
                                   "Serve HTTP on ADDR:PORT (default: config server.http.listen)");
    http->expected(0, 1);

    bool tools_all = false;
    auto* tools = app.add_subcommand("tools", "List the tools clients see, with one-line descriptions");
    tools->add_flag("--all", tools_all, "Also list tools outside server.tools (marked [unlisted])");

    std::string tool, arguments;
    std::optional<std::string> call_project;
    auto* call = app.add_subcommand("call", "Call a tool in-process and print the result (exit 1 on isError)");
    call->add_option("tool", tool, "Tool name")->required();
    call->add_option("arguments", arguments, "Arguments as a JSON object, or - to read them from stdin");
    call->add_option("--project", call_project,
                     "Act in this project: a folder, or a project key as memory_list shows it");

    bool doctor_json = false;
    auto* doctor = app.add_subcommand("doctor", "Check config, plugins, database, FTS5 and permissions");
    doctor->add_flag("--json", doctor_json, "Print the report as JSON");
    bool doctor_online = false;
    doctor->add_flag("--online", doctor_online, "Also call the configured embedding endpoint once");

    InitOptions init_options;
    bool init_print = false;
    std::string clients;
    for (const auto& c : InitClients()) clients += (clients.empty() ? "" : ", ") + c;
    auto add_init_options = [&](CLI::App* sub, bool install) {
      sub->add_option("client", init_options.client, "One of: " + clients);
      sub->add_flag("--user", init_options.user, "User-level config files (default: this project's; codex: user)");
      sub->add_flag("--project", init_options.project, "Project-level files (codex only; its default is --user)");
      sub->add_flag("--dry-run", init_options.dry_run, "Print the change to each file as a diff; write nothing");
      sub->add_flag("--no-hooks", [&](std::int64_t) { init_options.hooks = false; }, "Leave the client's hooks alone");
      sub->add_flag("--no-instructions", [&](std::int64_t) { init_options.instructions = false; },
                    "Leave AGENTS.md / CLAUDE.md / GEMINI.md alone");
      if (install) {
        sub->add_flag("--force", init_options.force, "Replace a hand-written MCP server entry named kioku");
        sub->add_flag("--print", init_print, "Print a generic MCP JSON snippet instead of editing files");
      }
    };
    auto* init = app.add_subcommand("init", "Wire kioku into an agent: MCP entry, hooks, instructions block (CLAUDE.md, AGENTS.md or GEMINI.md)");
    add_init_options(init, true);
    auto* uninstall = app.add_subcommand("uninstall", "Remove exactly what `kioku init` wrote for a client");
    add_init_options(uninstall, false);

    std::string export_format = "json", export_output;
    auto* exp = app.add_subcommand("export", "Write every enabled layer's data as one versioned JSON file (or --format md)");
    exp->add_option("--format", export_format, "json (full fidelity, importable) or md (for people)")
        ->check(CLI::IsMember({"json", "md"}));
    exp->add_option("-o,--output", export_output, "File to write (mode 0600); default stdout");

    std::string import_file, import_format = "auto";
    std::optional<std::string> import_project;
    auto* imp = app.add_subcommand("import", "Import a kioku export, CLAUDE.md/AGENTS.md, memory.jsonl or a "
                                             "token-goat-mem export: one transaction, nothing twice");
    imp->add_option("file", import_file, "The file to import")->required();
    imp->add_option("--from,--format", import_format,
                    "auto (by content), kioku, claude-md, agents-md, mcp-memory (memory.jsonl), token-goat");
    bool import_global = false;
    auto* import_project_opt =
        imp->add_option("--project", import_project, "Folder or project key the memories belong to (default: this folder's)");
    imp->add_flag("--global", import_global, "File the memories as global (e.g. ~/.claude/CLAUDE.md)")->excludes(import_project_opt);

    std::string backup_action, backup_file;
    auto* backup = app.add_subcommand("backup", "Database snapshots: snapshot, list, restore FILE");
    backup->add_option("action", backup_action, "snapshot | list | restore")->required()
        ->check(CLI::IsMember({"snapshot", "list", "restore"}));
    backup->add_option("file", backup_file, "The snapshot to restore (restore only)");

    app.add_subcommand("version", "Print the version");
    app.add_subcommand("context", "Print what kioku knows for this project, under a budget (hooks: --hook-stdin)");
    app.footer([&] { return PluginCommandsFooter(global); });

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // --help and --version end parsing as "errors" with code 0; every other parse error is
      // a usage error, exit 2 as for the commands' own (CLI11's codes run from 100 up).
      return app.exit(e, out, std::cerr) == 0 ? 0 : 2;
    }
    serve_options.http = http->count() > 0;

    if (serve->parsed()) return Serve(global, serve_options, proto_out_fd);
    if (tools->parsed()) return Tools(global, tools_all, out);
    if (call->parsed()) return Call(global, tool, arguments, call_project, out);
    if (doctor->parsed()) return Doctor(global, doctor_json, out, doctor_online);
    if (init->parsed() || uninstall->parsed()) {
      return Init(global, init_options, init->parsed(), init_print, out);
    }
    if (exp->parsed()) return Export(global, export_format, export_output, out);
    if (imp->parsed()) return Import(global, import_file, import_format, import_global ? std::optional<std::string>("-") : import_project, out);
    if (backup->parsed()) return Backup(global, backup_action, backup_file, out);
    if (app.got_subcommand("version")) {
      out << "kioku " << KIOKU_VERSION << " (SDK ABI " << KIOKU_SDK_ABI << ", " << KIOKU_BUILD_FINGERPRINT << ")\n";
      return 0;
    }
    out << app.help();
    return 0;
  } catch (const std::exception& e) {
    out.flush();
    std::cerr << "kioku: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int Run(int argc, char** argv, int proto_out_fd) {
  // Command output goes to the real stdout, which main moved away from fd 1.
  __gnu_cxx::stdio_filebuf<char> out_buf(::dup(proto_out_fd), std::ios::out);
  std::ostream out(&out_buf);
  const int code = RunCommand(argc, argv, proto_out_fd, out);
  // SIGPIPE is ignored (main), so output lost to a reader that went away, or to a full
  // disk, shows only here: the exit code says so, as a write error does for other tools;
  // except for the hook commands, which exit 0 whatever happens (`context`, `hook …`).
  if (!out.flush()) {
    std::cerr << "kioku: the output could not be written (its reader went away, or the disk is full)\n";
    const int cmd = CommandIndex(argc, argv);
    const std::string word = cmd > 0 ? argv[cmd] : "";
    const bool fails_open = word == "context" || word == "hook";
    return code == 0 && !fails_open ? 1 : code;
  }
  return code;
}

}  // namespace kioku::host::cli
