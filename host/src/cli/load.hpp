#pragma once
/// @file load.hpp
/// Turns command-line options into a started Runtime: config → plugin search path →
/// modules → migrations → tools. Shared by every CLI command.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "kioku/sdk/tool.hpp"
#include "mcp/dispatcher.hpp"
#include "runtime.hpp"

namespace kioku::host::cli {

/// Options every command accepts.
struct GlobalOptions {
  std::string config_path;                       ///< --config (else KIOKU_CONFIG, else embedded)
  std::vector<std::filesystem::path> plugin_dirs;  ///< --plugin-dir (repeatable)
};

struct Loaded {
  Config config;
  std::vector<std::filesystem::path> search_path;
  std::unique_ptr<Runtime> runtime;
};

/// Reads and validates the config and finds the plugin search path (no loading).
/// Throws std::runtime_error with the one-line start-up message.
Loaded LoadConfig(const GlobalOptions& options);

/// LoadConfig, then loads every enabled plugin and starts the runtime. With
/// StartMode::kDescribe (`kioku --help`) plugins only register: no migrations, no Start().
/// `one_shot`: the process makes one call and exits (RuntimeOptions::one_shot).
Loaded LoadRuntime(const GlobalOptions& options, StartMode mode = StartMode::kServe, bool one_shot = false);
/// LoadRuntime for a config LoadConfig already read (a config file is parsed once: yaml-cpp
/// takes ~12 M instructions for the default config's 15 KB).
Loaded StartRuntime(Loaded configured, StartMode mode = StartMode::kServe, bool one_shot = false);

/// Ends the runtime of a one-shot command that has written its output: Runtime::StopForExit
/// (deferred writes written, plugins stopped), then, when AllowExitWithoutTeardown (cli.hpp)
/// was called
/// and the runtime may be abandoned, keeps it alive until the process ends instead of
/// destroying it. That skips what an exiting process does not need: freeing every tool's
/// specs, unloading the modules, closing the connections (~2 ms of a ~34 ms `kioku call`,
/// measured). Otherwise `loaded` is destroyed here as usual.
void EndOneShot(Loaded& loaded);
/// The caller for in-process use (CLI, stdio, HTTP base): agent from KIOKU_AGENT_ID (else
/// `default_agent`), project from KIOKU_PROJECT_ROOT or the working directory through
/// sdk::ResolveProject with the config's `identity:` settings.
sdk::Caller LocalCaller(const std::string& default_agent, const sdk::ProjectOptions& projects);

/// A fresh connection instance id: 8 hex digits from std::random_device (Caller::instance_id).
std::string NewInstanceId();

/// Dispatcher options (server info, instructions from the enabled layers, list paging).
mcp::DispatcherOptions MakeDispatcherOptions(const Loaded& loaded);

}  // namespace kioku::host::cli
