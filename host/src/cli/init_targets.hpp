#pragma once
/// @file init_targets.hpp
/// What `kioku init` writes for each client: which files, at which level, in which format.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/init.hpp"

namespace kioku::host::cli {

/// The marker kioku's MCP entries carry (in `env`): its value is the client name.
inline constexpr const char* kInitMarkerEnv = "KIOKU_INIT";
/// The comment every hook command kioku writes ends with.
inline constexpr const char* kHookMarker = "# kioku init";
/// The MCP server name.
inline constexpr const char* kServerName = "kioku";

enum class EditKind {
  kMcpJson,    ///< `container` object of a JSON file gets member "kioku" = entry
  kMcpToml,    ///< `[container.kioku]` table of a TOML file = entry
  kHooksJson,  ///< `hooks.<event>` arrays of a JSON file get one group each
  kBlock,      ///< the marked block of a Markdown file
};

struct HookSpec {
  std::string event;    ///< e.g. "SessionStart"
  std::string command;  ///< shell command, ends with kHookMarker
  int timeout_s = 10;
};

struct FileEdit {
  EditKind kind = EditKind::kMcpJson;
  std::filesystem::path path;
  std::vector<std::string> container;  ///< kMcpJson / kMcpToml: key path of the server map
  nlohmann::ordered_json entry;        ///< kMcpJson / kMcpToml: the server entry
  std::vector<HookSpec> hooks;         ///< kHooksJson
};

/// The files for `options` (client, level, hooks/instructions switches). Throws
/// std::invalid_argument naming the supported clients for an unknown one.
std::vector<FileEdit> PlanInit(const InitOptions& options);

/// The MCP server entry (command, args, env with KIOKU_AGENT_ID and the marker).
nlohmann::ordered_json ServerEntry(const InitOptions& options, bool with_type);

}  // namespace kioku::host::cli
