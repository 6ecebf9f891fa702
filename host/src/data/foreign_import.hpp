#pragma once
/// @file foreign_import.hpp
/// `kioku import FILE`: reads the file, recognises its format by content and imports it.
/// Formats: a kioku export (data_export.hpp). Foreign formats (CLAUDE.md bullets, the
/// reference memory server's memory.jsonl, token-goat-mem exports) are not read yet.

#include <map>
#include <string>
#include <vector>

#include "kioku/sdk/export.hpp"
#include "runtime.hpp"

namespace kioku::host {

struct ForeignImportReport {
  std::string format;                          ///< what the file was read as
  std::map<std::string, sdk::ImportCounts> layers;
  std::vector<std::string> notes;              ///< one line each, for the user
};

/// Imports `file` read as `format` ("auto" = by content). Throws std::runtime_error saying
/// what is wrong with the file; then nothing was written.
ForeignImportReport ImportFile(Runtime& runtime, const std::string& file, const std::string& format);

}  // namespace kioku::host
