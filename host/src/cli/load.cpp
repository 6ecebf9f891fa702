#include "cli/load.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <sys/stat.h>

#include "cli/cli.hpp"
#include "data/export_tool.hpp"
#include "logging.hpp"
#include "migrations.hpp"
#include "module_file.hpp"
#include "plugin_loader.hpp"
#include "providers/openai_chat.hpp"
#include "providers/openai_embedder.hpp"
#include "providers/provider_call.hpp"
#include "kioku/sdk/caller.hpp"
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
  nlohmann::json raw;
  const bool embedded_default = text == EmbeddedDefaultConfig();
  try {
    // The same text as the embedded default: its JSON, converted at build time.
    raw = embedded_default ? nlohmann::json::parse(EmbeddedDefaultConfigJson()) : YamlToJson(text);
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
  loaded.config = ParseConfigDoc(std::move(raw), source, ListModules(loaded.search_path), embedded_default);
  SetLogLevel(loaded.config.log_level);
  return loaded;
}

namespace {
bool exit_without_teardown = false;
Loaded* kept_for_exit = nullptr;  // deliberately never freed: the process ends next
}  // namespace

void AllowExitWithoutTeardown() { exit_without_teardown = true; }

void EndOneShot(Loaded& loaded) {
  if (!loaded.runtime) return;
  if (exit_without_teardown && kept_for_exit == nullptr && loaded.runtime->StopForExit()) {
    kept_for_exit = new Loaded(std::move(loaded));
    return;
  }
  loaded.runtime.reset();
}

bool OneShotKept() { return kept_for_exit != nullptr; }

Loaded LoadRuntime(const GlobalOptions& options, StartMode mode, bool one_shot) {
  return StartRuntime(LoadConfig(options), mode, one_shot);
}

Loaded StartRuntime(Loaded loaded, StartMode mode, bool one_shot) {
  const auto& config = loaded.config;
  RuntimeOptions ro;
  ro.data_dir = ResolveHome(config.home.string());
  ro.call_timeout_ms = config.call_timeout_ms;
  ro.max_result_bytes = config.max_result_bytes;
  ro.tools = config.tools;
  ro.projects = config.projects;
  ro.one_shot = one_shot;
  if (!config.embedding.url.empty()) {
    try {
      ro.embedder =
          providers::MakeOpenAiEmbedder(config.embedding, nullptr, providers::BreakerStateFile(ro.data_dir, "embedding"));
    } catch (const std::exception& e) {
      throw std::runtime_error("config " + config.source + ": " + e.what());
    }
  }
  if (!config.chat.url.empty()) {
    try {
      ro.chat = providers::MakeOpenAiChat(config.chat, nullptr, providers::BreakerStateFile(ro.data_dir, "chat"));
    } catch (const std::exception& e) {
      throw std::runtime_error("config " + config.source + ": " + e.what());
    }
  }
  loaded.runtime = std::make_unique<Runtime>(ro);
  // The embedded default's plugin sections are written for the bundled plugins, which live
  // in the install's own plugin directory (Runtime::AddPluginWithSchema, settings_checked).
  const auto bundled_dir = BundledPluginDir();
  for (const auto& name : config.enabled) {
    auto module = FindModule(name, loaded.search_path);
    auto it = config.plugin_settings.find(name);
    const bool bundled = bundled_dir && module.parent_path().lexically_normal() == *bundled_dir;
    loaded.runtime->LoadPlugin(name, module, it == config.plugin_settings.end() ? nlohmann::json::object() : it->second,
                               one_shot && config.embedded_default && bundled);
  }
  AddExportTool(*loaded.runtime, KIOKU_VERSION);
  try {
    loaded.runtime->Start(mode);
  } catch (const DatabaseLockedError&) {
    throw;  // a lock, not a config problem: its message names the database
  } catch (const std::exception& e) {
    throw std::runtime_error("config " + config.source + ": " + e.what());
  }
  if (mode == StartMode::kServe) ::chmod(loaded.runtime->Options().db_path.c_str(), 0600);
  return loaded;
}

sdk::Caller LocalCaller(const std::string& default_agent, const sdk::ProjectOptions& projects) {
  sdk::Caller caller;
  const char* agent = std::getenv("KIOKU_AGENT_ID");
  caller.agent_id = (agent && *agent) ? agent : default_agent;
  if (!caller.agent_id.empty()) caller.agent_source = sdk::AgentSource::kConfig;
  sdk::UseCommandLineProject(caller, std::nullopt, projects);
  return caller;
}

std::string NewInstanceId() {
  std::random_device rd;
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rd()));
  return buf;
}

mcp::DispatcherOptions MakeDispatcherOptions(const Loaded& loaded) {
  mcp::DispatcherOptions o;
  o.server_version = KIOKU_VERSION;
  o.page_size = loaded.config.tools_page_size;
  o.json_text_block = loaded.config.json_text_block;
  o.projects = loaded.config.projects;
  o.context_token_budget = loaded.config.context_token_budget;
  o.context_max_chars = loaded.config.context_max_chars;
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
