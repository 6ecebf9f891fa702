#pragma once
/// @file foreign_import.hpp
/// `kioku import FILE`: a kioku export (data_export.hpp), recognised by its content.

#include <map>
#include <string>
#include <vector>

#include "kioku/sdk/tool.hpp"
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
ForeignImportReport ImportFile(Runtime& runtime, const std::string& file, const std::string& format,
                               const sdk::Caller& caller);

}  // namespace kioku::host
