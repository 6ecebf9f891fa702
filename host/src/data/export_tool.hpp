#pragma once
/// @file export_tool.hpp
/// The `data_export` tool: what `kioku export` does, for an MCP client.
///
/// Why the host owns it (ARCHITECTURE.md keeps the host small and layer-blind): the export
/// envelope is a host mechanism over every layer's ExporterSpec (sdk/export.hpp), and no
/// layer may reach another's exporter; the tool only adapts BuildExport to a tool call, as
/// `kioku export` adapts it to the command line, and names no layer.
///
/// A result is capped (server.max_result_bytes, 48 KiB by default) and an export is the
/// whole database, so the envelope goes to a new file, never into the result:
///   <data dir>/exports/kioku-export-YYYYMMDDTHHMMSSmmmZ[-N].json|md
/// written 0600 in a 0700 folder through a temporary file linked to a free name (an
/// existing file is never replaced; private_file.hpp). The result names the file, its
/// size and the rows per layer; `kioku import FILE` reads it back.
///
/// Who may call it: an export holds every project's data, so a connection limited to some
/// projects (an HTTP token's `projects`) is refused by the dispatcher
/// (RegisteredTool::every_project); stdio callers and unlimited tokens may export. There is
/// no project-only export: the envelope copies whole tables, global memories, entities and
/// tool statistics belong to no project, and an import of a partial envelope could not tell
/// a missing row from a deleted one.

#include <string>

#include "runtime.hpp"

namespace kioku::host {

/// Name of the tool.
inline constexpr const char* kExportToolName = "data_export";

/// Registers `data_export` on `runtime` (before Start) as a full-profile host tool.
/// `kioku_version` is written into the envelope.
void AddExportTool(Runtime& runtime, const std::string& kioku_version);

}  // namespace kioku::host
