#pragma once
/// @file data_export.hpp
/// The export envelope (sdk/export.hpp describes it) over every enabled layer's exporter:
/// building it, printing it for people, and importing it all or nothing.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "kioku/sdk/export.hpp"
#include "runtime.hpp"

namespace kioku::host {

/// Every exporter's section, read inside one read transaction (a consistent snapshot across
/// layers), with each layer's `schema_version`. `kioku_version` names this build.
nlohmann::json BuildExport(Runtime& runtime, const std::string& kioku_version);

/// The envelope for people: one heading per layer and table, one bullet per row
/// (non-empty values only, long values cut at 200 bytes).
std::string ExportMarkdown(const nlohmann::json& envelope);

/// The envelope as written to a file: "json" (indented by one space, newline-terminated)
/// or "md" (ExportMarkdown). Any other format is "json".
std::string ExportText(const nlohmann::json& envelope, const std::string& format);

/// Rows per layer of `envelope` (every table's rows summed), e.g. {"semantic": 120}.
std::map<std::string, std::int64_t> ExportRowCounts(const nlohmann::json& envelope);

/// Per-layer counts of an import.
using ImportReport = std::map<std::string, sdk::ImportCounts>;

/// Imports `envelope` in one write transaction: every check that needs no write runs first
/// (envelope version <= sdk::kExportFormatVersion, sections of enabled layers only, no
/// section newer than the database), then each layer imports its section and runs
/// `after_import`. Throws std::runtime_error saying what is wrong; then nothing was written.
ImportReport ImportExport(Runtime& runtime, const nlohmann::json& envelope);

/// True when `doc` looks like a kioku export envelope (has "kioku_export").
bool IsKiokuExport(const nlohmann::json& doc);

}  // namespace kioku::host
