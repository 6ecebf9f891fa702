#pragma once
/// @file client_project.hpp
/// The project a client names for a connection or a request — MCP roots, the
/// `Kioku-Project` header / `_meta["dev.kioku/project"]` — mapped with the SDK's one
/// folder → project function (project_identity.hpp).

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kioku/sdk/project_identity.hpp"

namespace kioku::host::mcp {

/// A project named by the client: a `file://` URI or an absolute / `~` path (resolved with
/// sdk::ProjectOfRecord, so a folder that does not exist on this machine still maps), else a
/// project id (sdk::CanonicalProjectKey). nullopt for an empty or relative value.
std::optional<sdk::ProjectInfo> ProjectNamedByClient(std::string_view value, const sdk::ProjectOptions& options);

/// From a ListRootsResult `roots` array: the root holding `working_dir` (the deepest one),
/// else the first `file://` root. nullopt when no root is a local file URI.
std::optional<sdk::ProjectInfo> ProjectFromRoots(const nlohmann::json& roots, const std::string& working_dir,
                                                 const sdk::ProjectOptions& options);

}  // namespace kioku::host::mcp
