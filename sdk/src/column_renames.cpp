#include "kioku/sdk/column_renames.hpp"

#include <algorithm>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

namespace kioku::sdk {
namespace {

std::string Quote(const std::string& id) { return "\"" + id + "\""; }

}  // namespace

Migration RenameColumnsMigration(const ColumnRenames& renames, std::string description) {
  Migration m;
  m.version = renames.version;
  m.description = std::move(description);
  for (const RenamedColumn& c : renames.columns) {
    m.sql += "ALTER TABLE " + Quote(c.table) + " RENAME COLUMN " + Quote(c.from) + " TO " + Quote(c.to) + ";\n";
  }
  return m;
}

void UpgradeSectionColumns(nlohmann::json& section, std::int64_t schema_version,
                           const std::vector<ColumnRenames>& renames) {
  if (!section.is_object() || !section.contains("tables") || !section["tables"].is_object()) return;
  std::vector<const ColumnRenames*> due;
  for (const ColumnRenames& r : renames) {
    if (r.version > schema_version) due.push_back(&r);
  }
  std::sort(due.begin(), due.end(), [](const ColumnRenames* a, const ColumnRenames* b) { return a->version < b->version; });
  nlohmann::json& tables = section["tables"];
  for (const ColumnRenames* r : due) {
    for (const RenamedColumn& c : r->columns) {
      if (!tables.contains(c.table)) continue;
      nlohmann::json& columns = tables[c.table]["columns"];
      if (!columns.is_array()) continue;
      for (nlohmann::json& name : columns) {
        if (name.is_string() && name.get_ref<const std::string&>() == c.from) name = c.to;
      }
    }
  }
}

}  // namespace kioku::sdk
