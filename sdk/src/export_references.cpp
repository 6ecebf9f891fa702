#include "kioku/sdk/export_references.hpp"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_set>

#include "kioku/sdk/json.hpp"

namespace kioku::sdk {
namespace {

using nlohmann::json;

std::string Quote(const std::string& name) { return "\"" + name + "\""; }

// Index of `column` in a table body's "columns", or -1.
int ColumnIndex(const json& body, const std::string& column) {
  if (!body.is_object() || !body.contains("columns") || !body["columns"].is_array()) return -1;
  const json& cols = body["columns"];
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].is_string() && cols[i].get_ref<const std::string&>() == column) return static_cast<int>(i);
  }
  return -1;
}

const json* TableBody(const json& section, const std::string& table) {
  if (!section.is_object() || !section.contains("tables") || !section["tables"].is_object()) return nullptr;
  auto it = section["tables"].find(table);
  if (it == section["tables"].end() || !it->is_object() || !it->contains("rows") || !(*it)["rows"].is_array()) {
    return nullptr;
  }
  return &*it;
}

// The text form of a key value for the in-file set (ids are text; integers kept distinct).
std::string Key(const json& v) { return v.is_string() ? "s" + v.get<std::string>() : "j" + DumpJson(v); }

bool IsNone(const json& v) { return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()); }

// The keys of `target` rows in the section, and a lookup of the same rows in the database.
struct TargetLookup {
  TargetLookup(SQLite::Database& db, const json& section, const ReferenceTarget& t)
      : query(db, "SELECT 1 FROM " + Quote(t.table) + " WHERE " + Quote(t.column) + " = ?" +
                      (t.where_column.empty() ? std::string() : " AND " + Quote(t.where_column) + " = ?") + " LIMIT 1"),
        target(t) {
    const json* body = TableBody(section, t.table);
    if (body == nullptr) return;
    const int col = ColumnIndex(*body, t.column);
    const int filter = t.where_column.empty() ? -1 : ColumnIndex(*body, t.where_column);
    if (col < 0 || (!t.where_column.empty() && filter < 0)) return;
    for (const json& row : (*body)["rows"]) {
      if (!row.is_array() || row.size() <= static_cast<std::size_t>(std::max(col, filter))) continue;
      if (filter >= 0 && !(row[filter].is_string() && row[filter].get_ref<const std::string&>() == t.where_value)) continue;
      in_file.insert(Key(row[col]));
    }
  }
  bool Has(const json& v) {
    if (in_file.count(Key(v))) return true;
    if (!v.is_string() && !v.is_number_integer()) return false;
    query.reset();
    if (v.is_string()) query.bind(1, v.get<std::string>());
    else query.bind(1, v.get<std::int64_t>());
    if (!target.where_column.empty()) query.bind(2, target.where_value);
    return query.executeStep();
  }
  std::string Name() const {
    return target.table + "." + target.column +
           (target.where_column.empty() ? std::string() : " (" + target.where_column + " = '" + target.where_value + "')");
  }
  SQLite::Statement query;
  const ReferenceTarget& target;
  std::unordered_set<std::string> in_file;
};

}  // namespace

void CheckTextReferences(SQLite::Database& db, const json& section, const std::vector<TextReference>& refs) {
  for (const TextReference& ref : refs) {
    const json* body = TableBody(section, ref.table);
    if (body == nullptr) continue;
    const int col = ColumnIndex(*body, ref.column);
    if (col < 0) continue;
    std::vector<std::unique_ptr<TargetLookup>> targets;
    for (const ReferenceTarget& t : ref.targets) targets.push_back(std::make_unique<TargetLookup>(db, section, t));
    std::size_t row_no = 0;
    for (const json& row : (*body)["rows"]) {
      ++row_no;
      if (!row.is_array() || row.size() <= static_cast<std::size_t>(col)) continue;  // ImportLayerTables says why
      const json& v = row[col];
      if (IsNone(v)) continue;
      bool found = false;
      for (auto& t : targets) {
        if ((found = t->Has(v))) break;
      }
      if (found) continue;
      std::string names;
      for (const auto& t : targets) names += (names.empty() ? "" : " or ") + t->Name();
      std::string shown = DumpJson(v);
      if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
      throw std::runtime_error("table " + ref.table + " row " + std::to_string(row_no) + " field " + ref.column + ": " +
                               shown + " names no " + names + " in the file or this database");
    }
  }
}

}  // namespace kioku::sdk
