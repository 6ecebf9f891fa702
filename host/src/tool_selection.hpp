#pragma once
/// @file tool_selection.hpp
/// Which registered tools a deployment lists to clients (config `server.tools`).

#include <string>
#include <vector>

#include "kioku/sdk/tool.hpp"

namespace kioku::host {

/// `server.tools`: a tool is listed (tools/list, tools/call from clients, the HTTP API) when
/// its ToolSpec::profile is within `profile` or it is named in `include`, and it is not named
/// in `exclude`. Unlisted tools stay callable between plugins (HostServices::CallTool) and
/// from `kioku call`. Runtime::Start refuses a name in either list that no enabled plugin
/// registered.
struct ToolSelection {
  /// kCore lists core tools only; kFull lists every tool. The config default is kCore; the
  /// RuntimeOptions default is kFull so in-process tests see every tool.
  sdk::ToolProfile profile = sdk::ToolProfile::kFull;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

}  // namespace kioku::host
