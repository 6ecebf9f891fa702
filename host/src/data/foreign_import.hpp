#pragma once
/// @file foreign_import.hpp
/// `kioku import [--from FORMAT] FILE`: reads the file and imports it, all or nothing.
/// Formats: "kioku" (a kioku export, data_export.hpp) and every foreign format an enabled
/// layer declares (sdk::ExporterSpec::foreign_formats: the semantic layer reads
/// claude-md, agents-md, mcp-memory and token-goat). "auto" picks by content.

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kioku/sdk/export.hpp"
#include "runtime.hpp"

namespace kioku::host {

struct ForeignImportReport {
  std::string format;                          ///< what the file was read as
  std::map<std::string, sdk::ImportCounts> layers;  ///< layer (kioku) or item kind (foreign) → counts
  std::vector<std::string> notes;              ///< one line each, for the user
};

/// Who imports and into which project (foreign formats; a kioku export carries its own).
struct ImportTarget {
  std::string agent_id = "cli";
  std::string project_id;
  std::string project_root;
};

/// Largest file read (bytes).
inline constexpr std::size_t kMaxImportBytes = 32u << 20;

/// Thrown by ImportFile for a `format` that is not one of ImportFormats (a usage error).
class UnknownImportFormat : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Imports `file` read as `format` ("auto" = by content). Throws UnknownImportFormat for a
/// format not offered here, else std::runtime_error saying what is wrong with the file
/// (naming the line for foreign formats); then nothing was written.
ForeignImportReport ImportFile(Runtime& runtime, const std::string& file, const std::string& format,
                               const ImportTarget& target = {});

/// The format names `--from` accepts here: "auto", "kioku", then each enabled layer's.
std::vector<std::string> ImportFormats(const Runtime& runtime);

}  // namespace kioku::host
