#include "data/foreign_import.hpp"

#include <stdexcept>

#include "data/data_export.hpp"

namespace kioku::host {

ForeignImportReport ImportFile(Runtime& runtime, const std::string& file, const std::string& format) {
  if (format != "auto" && format != "kioku") {
    throw std::runtime_error("unknown import format '" + format + "'; send auto or kioku");
  }
  const nlohmann::json doc = ReadExportFile(file);
  if (!IsKiokuExport(doc)) throw std::runtime_error(file + ": not a kioku export (no \"kioku_export\" member)");
  ForeignImportReport report;
  report.format = "kioku export v" + std::to_string(doc["kioku_export"].is_number_integer() ? doc["kioku_export"].get<int>() : 0);
  report.layers = ImportExport(runtime, doc);
  return report;
}

}  // namespace kioku::host
