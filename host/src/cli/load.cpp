#include "cli/load.hpp"

#include <cstdlib>
#include <stdexcept>
#include <sys/stat.h>

#include "logging.hpp"
#include "plugin_loader.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/ids.hpp"

#ifndef KIOKU_VERSION
#define KIOKU_VERSION "0.0.0"
#endif

namespace kioku::host::cli {

Loaded LoadConfig(const GlobalOptions& options) {
  auto [text, source] = ReadConfigText(options.config_path);
  // plugins.dirs is needed to know which plugin names exist before full validation.
  std::vector<std::filesystem::path> extra = options.plugin_dirs;
  try {
    auto raw = YamlToJson(text);
    if (raw.is_object() && raw.contains("plugins") && raw["plugins"].is_object()) {
      for (const auto& d : raw["plugins"].value("dirs", nlohmann::json::array())) {
        if (d.is_string()) extra.emplace_back(d.get<std::string>());
      }
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("config " + source + ": " + e.what());
  }
  Loaded loaded;
  loaded.search_path = PluginSearchPath(extra);
  loaded.config = ParseConfig(text, source, ListModules(loaded.search_path));
  SetLogLevel(loaded.config.log_level);
  return loaded;
}

Loaded LoadRuntime(const GlobalOptions& options, StartMode mode) {
  Loaded loaded = LoadConfig(options);
  const auto& config = loaded.config;
  RuntimeOptions ro;
  ro.data_dir = ResolveHome(config.home.string());
  ro.call_timeout_ms = config.call_timeout_ms;
  loaded.runtime = std::make_unique<Runtime>(ro);
  for (const auto& name : config.enabled) {
    auto module = FindModule(name, loaded.search_path);
    auto it = config.plugin_settings.find(name);
    loaded.runtime->LoadPlugin(name, module, it == config.plugin_settings.end() ? nlohmann::json::object() : it->second);
  }
  try {
    loaded.runtime->Start(mode);
  } catch (const std::exception& e) {
    throw std::runtime_error("config " + config.source + ": " + e.what());
  }
  if (mode == StartMode::kServe) ::chmod(loaded.runtime->Options().db_path.c_str(), 0600);
  return loaded;
}

sdk::Caller LocalCaller(const std::string& default_agent) {
  sdk::Caller caller;
  const char* agent = std::getenv("KIOKU_AGENT_ID");
  caller.agent_id = (agent && *agent) ? agent : default_agent;
  const char* root = std::getenv("KIOKU_PROJECT_ROOT");
  std::error_code ec;
  std::filesystem::path project = (root && *root) ? std::filesystem::path(root) : std::filesystem::current_path(ec);
  caller.project_root = std::filesystem::absolute(project, ec).lexically_normal().string();
  caller.project_id = sdk::ProjectIdentity(caller.project_root);
  return caller;
}

mcp::DispatcherOptions MakeDispatcherOptions(const Loaded& loaded) {
  mcp::DispatcherOptions o;
  o.server_version = KIOKU_VERSION;
  o.page_size = loaded.config.tools_page_size;
  o.json_text_block = loaded.config.json_text_block;
  std::string text =
      "kioku is a persistent memory for coding agents, shared across sessions and agents. "
      "Enabled layers:";
  for (const auto& [name, version] : loaded.runtime->Plugins()) {
    std::string line = loaded.runtime->PluginInstructions(name);
    if (line.empty()) {
      line = "tools ";
      bool first = true;
      for (const auto* tool : loaded.runtime->Tools()) {
        if (tool->plugin != name) continue;
        line += (first ? "" : ", ") + tool->spec.name;
        first = false;
      }
    }
    text += "\n- " + name + ": " + line;
  }
  o.instructions = text;
  return o;
}

}  // namespace kioku::host::cli
