#include "data/foreign_import.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "data/data_export.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::host {
namespace {

std::string ReadText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file + ": cannot read the file");
  std::string text;
  text.resize(kMaxImportBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxImportBytes) {
    throw std::runtime_error(file + ": larger than " + std::to_string(kMaxImportBytes >> 20) + " MiB; split it");
  }
  if (!sdk::IsValidUtf8(text)) throw std::runtime_error(file + ": not UTF-8 text");
  return text;
}

const sdk::ForeignFormat* FindFormat(const Runtime& runtime, const std::string& name) {
  for (const sdk::ExporterSpec& e : runtime.Exporters()) {
    for (const sdk::ForeignFormat& f : e.foreign_formats) {
      if (f.name == name) return &f;
    }
  }
  return nullptr;
}

std::string JoinFormats(const Runtime& runtime) {
  std::string all;
  for (const std::string& name : ImportFormats(runtime)) all += (all.empty() ? "" : ", ") + name;
  return all;
}

}  // namespace

std::vector<std::string> ImportFormats(const Runtime& runtime) {
  std::vector<std::string> names = {"auto", "kioku"};
  for (const sdk::ExporterSpec& e : runtime.Exporters()) {
    for (const sdk::ForeignFormat& f : e.foreign_formats) names.push_back(f.name);
  }
  return names;
}

ForeignImportReport ImportFile(Runtime& runtime, const std::string& file, const std::string& format,
                               const ImportTarget& target) {
  const sdk::ForeignFormat* foreign = nullptr;
  if (format != "auto" && format != "kioku") {
    foreign = FindFormat(runtime, format);
    if (!foreign) throw UnknownImportFormat("unknown import format '" + format + "'; send one of " + JoinFormats(runtime));
  }
  const std::string text = ReadText(file);
  if (text.find_first_not_of(" \t\r\n", text.starts_with("\xEF\xBB\xBF") ? 3 : 0) == std::string::npos) {
    throw std::runtime_error(file + ": the file is empty (" + std::to_string(text.size()) +
                             " bytes, no text); nothing to import");
  }
  if (format == "auto") {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (!IsKiokuExport(doc)) {
      for (const sdk::ExporterSpec& e : runtime.Exporters()) {
        for (const sdk::ForeignFormat& f : e.foreign_formats) {
          if (!foreign && f.detect && f.detect(file, text)) foreign = &f;
        }
      }
      if (!foreign) {
        throw std::runtime_error(file + ": not a kioku export and no known format; name it with --from (" +
                                 JoinFormats(runtime) + ")");
      }
    }
  }
  ForeignImportReport report;
  if (!foreign) {
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) throw std::runtime_error(file + ": not valid JSON");
    if (!IsKiokuExport(doc)) throw std::runtime_error(file + ": not a kioku export (no \"kioku_export\" member)");
    report.format = "kioku export v" + std::to_string(doc["kioku_export"].is_number_integer() ? doc["kioku_export"].get<int>() : 0);
    report.layers = ImportExport(runtime, doc);
    return report;
  }
  sdk::ForeignImportRequest request;
  request.file = file;
  request.text = text;
  request.agent_id = target.agent_id;
  request.project_id = target.project_id;
  request.project_root = target.project_root;
  sdk::ForeignImportResult result;
  sdk::WithWriteTransaction(runtime.Db(), [&] { result = foreign->import(runtime.Db(), request); });
  report.format = foreign->name;
  report.layers = std::move(result.counts);
  report.notes = std::move(result.notes);
  return report;
}

}  // namespace kioku::host
