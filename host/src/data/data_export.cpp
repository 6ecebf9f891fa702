#include "data/data_export.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <SQLiteCpp/SQLiteCpp.h>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/json.hpp"
#include "migrations.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;

// A read transaction that always ends (an exception included).
struct ReadTransaction {
  explicit ReadTransaction(SQLite::Database& db) : db_(db) { db_.exec("BEGIN"); }
  ~ReadTransaction() {
    try {
      db_.exec("COMMIT");
    } catch (const std::exception&) {
    }
  }
  SQLite::Database& db_;
};

std::string Cell(const json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : sdk::DumpJson(v);
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (s.size() > 200) {
    std::size_t cut = 200;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "…";
  }
  return s;
}

}  // namespace

bool IsKiokuExport(const json& doc) { return doc.is_object() && doc.contains("kioku_export"); }

json BuildExport(Runtime& runtime, const std::string& kioku_version) {
  SQLite::Database& db = runtime.Db();
  json sections = json::object();
  {
    ReadTransaction read(db);
    for (const sdk::ExporterSpec& e : runtime.Exporters()) {
      json body = e.export_section ? e.export_section(db) : sdk::ExportLayerTables(db, e.name);
      if (!body.is_object()) throw std::runtime_error("layer '" + e.name + "' exported a non-object section");
      body["schema_version"] = AppliedVersion(db, e.name);
      sections[e.name] = std::move(body);
    }
  }
  return {{"kioku_export", sdk::kExportFormatVersion},
          {"kioku_version", kioku_version},
          {"exported_at", sdk::FormatRfc3339(runtime.Clock().NowMs())},
          {"sections", std::move(sections)}};
}

std::string ExportMarkdown(const json& envelope) {
  std::ostringstream out;
  out << "# kioku export (" << envelope.value("exported_at", std::string()) << ")\n";
  for (const auto& [layer, section] : envelope.at("sections").items()) {
    out << "\n## " << layer << " (schema " << section.value("schema_version", 0) << ")\n";
    if (!section.contains("tables")) continue;
    for (const auto& [table, body] : section["tables"].items()) {
      const json& cols = body["columns"];
      out << "\n### " << table << " (" << body["rows"].size() << " rows)\n\n";
      for (const json& row : body["rows"]) {
        std::string line;
        for (std::size_t i = 0; i < cols.size() && i < row.size(); ++i) {
          if (row[i].is_null() || (row[i].is_string() && row[i].get_ref<const std::string&>().empty())) continue;
          line += (line.empty() ? "" : "; ") + cols[i].get<std::string>() + ": " + Cell(row[i]);
        }
        out << "- " << line << "\n";
      }
    }
  }
  return out.str();
}

std::string ExportText(const json& envelope, const std::string& format) {
  return format == "md" ? ExportMarkdown(envelope) : sdk::DumpJson(envelope, 1) + "\n";
}

std::map<std::string, std::int64_t> ExportRowCounts(const json& envelope) {
  std::map<std::string, std::int64_t> out;
  for (const auto& [layer, section] : envelope.at("sections").items()) {
    std::int64_t rows = 0;
    if (section.contains("tables")) {
      for (const auto& [table, body] : section["tables"].items()) rows += static_cast<std::int64_t>(body["rows"].size());
    }
    out[layer] = rows;
  }
  return out;
}

ImportReport ImportExport(Runtime& runtime, const json& envelope) {
  if (!IsKiokuExport(envelope) || !envelope["kioku_export"].is_number_integer()) {
    throw std::runtime_error("not a kioku export: expected an object with an integer \"kioku_export\" version");
  }
  const auto version = envelope["kioku_export"].get<std::int64_t>();
  if (version > sdk::kExportFormatVersion || version < 1) {
    throw std::runtime_error("export format version " + std::to_string(version) + " is not supported (this kioku reads 1.." +
                             std::to_string(sdk::kExportFormatVersion) + "); import it with a newer kioku");
  }
  if (!envelope.contains("sections") || !envelope["sections"].is_object()) {
    throw std::runtime_error("not a kioku export: \"sections\" must be an object of layer sections");
  }
  SQLite::Database& db = runtime.Db();
  const json& sections = envelope["sections"];
  for (const auto& [layer, section] : sections.items()) {
    const auto& exporters = runtime.Exporters();
    auto it = std::find_if(exporters.begin(), exporters.end(), [&](const sdk::ExporterSpec& e) { return e.name == layer; });
    if (it == exporters.end()) {
      throw std::runtime_error("section '" + layer + "' is for a layer that is not enabled here; enable it in the config "
                               "(plugins.enabled) or remove the section");
    }
    if (!section.is_object() || !section.contains("schema_version") || !section["schema_version"].is_number_integer()) {
      throw std::runtime_error("section '" + layer + "' has no integer \"schema_version\"");
    }
    const auto file_version = section["schema_version"].get<std::int64_t>();
    const int here = AppliedVersion(db, layer);
    if (file_version > here) {
      throw std::runtime_error("section '" + layer + "' has schema version " + std::to_string(file_version) +
                               ", newer than this database's " + std::to_string(here) + "; import it with a newer kioku");
    }
  }
  ImportReport report;
  sdk::WithWriteTransaction(db, [&] {
    report.clear();
    for (const sdk::ExporterSpec& e : runtime.Exporters()) {
      if (!sections.contains(e.name)) continue;
      const json& as_written = sections[e.name];
      json upgraded;  // a copy only for a layer whose migrations renamed columns
      if (!e.renamed_columns.empty()) {
        upgraded = as_written;
        sdk::UpgradeSectionColumns(upgraded, as_written["schema_version"].get<std::int64_t>(), e.renamed_columns);
      }
      const json& section = e.renamed_columns.empty() ? as_written : upgraded;
      report[e.name] = e.import_section ? e.import_section(db, section)
                                        : sdk::ImportLayerTables(db, e.name, section);
      if (e.after_import) e.after_import(db);
    }
  });
  return report;
}

}  // namespace kioku::host
