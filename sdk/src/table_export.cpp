// The default export/import of a layer: every table copied row for row, driven by SQLite's
// own metadata (sqlite_master, table_info, index_list, foreign_key_list), so a new table or
// column of a layer is exported without anyone remembering to add it.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include "kioku/sdk/export.hpp"
#include "kioku/sdk/secrets.hpp"

namespace kioku::sdk {
namespace {

using nlohmann::json;

struct ForeignKey {
  std::string column, parent_table, parent_column;
};

struct TableInfo {
  std::string name;
  std::vector<std::string> columns;  // insertable columns, "rowid" first when exported
  std::vector<std::string> pk;       // declared primary key, in key order
  bool rowid_table = true;
  std::string surrogate;  // INTEGER PRIMARY KEY alias or "rowid"; empty for WITHOUT ROWID
  std::vector<std::vector<std::string>> unique_keys;  // PK (when natural) + UNIQUE indexes
  std::vector<ForeignKey> fks;
};

std::string Quote(const std::string& id) {
  std::string out = "\"";
  for (char c : id) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

const char* kShadowSuffixes[] = {"_data", "_idx", "_content", "_docsize", "_config"};

// Ordinary tables of the layer (no virtual tables, no FTS5 shadow tables), by name.
std::vector<std::pair<std::string, std::string>> LayerTables(SQLite::Database& db, const std::string& layer) {
  std::vector<std::pair<std::string, std::string>> all;
  std::set<std::string> virtuals;
  SQLite::Statement q(db, "SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'table' AND "
                          "substr(name, 1, length(?1) + 1) = ?1 || '_' ORDER BY name");
  q.bind(1, layer);
  while (q.executeStep()) {
    std::string name = q.getColumn(0).getString(), sql = q.getColumn(1).getString();
    if (Upper(sql).rfind("CREATE VIRTUAL TABLE", 0) == 0) {
      virtuals.insert(name);
      continue;
    }
    all.emplace_back(std::move(name), std::move(sql));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, sql] : all) {
    bool shadow = false;
    for (const std::string& v : virtuals) {
      for (const char* suffix : kShadowSuffixes) shadow = shadow || name == v + suffix;
    }
    if (!shadow) out.emplace_back(name, sql);
  }
  return out;
}

TableInfo Describe(SQLite::Database& db, const std::string& name, const std::string& sql) {
  TableInfo t;
  t.name = name;
  t.rowid_table = Upper(sql).find("WITHOUT ROWID") == std::string::npos;
  std::vector<std::pair<int, std::string>> pk;
  std::string pk_type;
  {
    SQLite::Statement q(db, "SELECT name, upper(type), pk FROM pragma_table_info(?)");
    q.bind(1, name);
    while (q.executeStep()) {
      t.columns.push_back(q.getColumn(0).getString());
      if (q.getColumn(2).getInt() > 0) {
        pk.emplace_back(q.getColumn(2).getInt(), q.getColumn(0).getString());
        pk_type = q.getColumn(1).getString();
      }
    }
  }
  std::sort(pk.begin(), pk.end());
  for (auto& [i, c] : pk) t.pk.push_back(c);
  if (t.rowid_table) {
    if (t.pk.size() == 1 && pk_type == "INTEGER") {
      t.surrogate = t.pk[0];
    } else {
      t.surrogate = "rowid";
      t.columns.insert(t.columns.begin(), "rowid");
    }
  }
  if (!t.pk.empty() && !(t.pk.size() == 1 && t.pk[0] == t.surrogate)) t.unique_keys.push_back(t.pk);
  {
    SQLite::Statement q(db, "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND origin <> 'pk'");
    q.bind(1, name);
    std::vector<std::string> indexes;
    while (q.executeStep()) indexes.push_back(q.getColumn(0).getString());
    for (const std::string& index : indexes) {
      SQLite::Statement c(db, "SELECT name FROM pragma_index_info(?) ORDER BY seqno");
      c.bind(1, index);
      std::vector<std::string> cols;
      bool expression = false;
      while (c.executeStep()) {
        if (c.getColumn(0).isNull()) expression = true;
        else cols.push_back(c.getColumn(0).getString());
      }
      if (!expression && !cols.empty()) t.unique_keys.push_back(cols);
    }
  }
  {
    SQLite::Statement q(db, "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?)");
    q.bind(1, name);
    while (q.executeStep()) {
      t.fks.push_back({q.getColumn(1).getString(), q.getColumn(0).getString(),
                       q.getColumn(2).isNull() ? "" : q.getColumn(2).getString()});
    }
  }
  return t;
}

// Parents before children; a cycle (or a self reference) keeps name order.
std::vector<TableInfo> DescribeLayer(SQLite::Database& db, const std::string& layer) {
  std::vector<TableInfo> pending;
  for (const auto& [name, sql] : LayerTables(db, layer)) pending.push_back(Describe(db, name, sql));
  std::vector<TableInfo> ordered;
  std::set<std::string> placed;
  while (!pending.empty()) {
    bool progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      bool ready = std::all_of(it->fks.begin(), it->fks.end(), [&](const ForeignKey& fk) {
        return fk.parent_table == it->name || placed.count(fk.parent_table) ||
               std::none_of(pending.begin(), pending.end(),
                            [&](const TableInfo& p) { return p.name == fk.parent_table; });
      });
      if (ready) {
        placed.insert(it->name);
        ordered.push_back(std::move(*it));
        it = pending.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
    if (!progress) {
      for (auto& t : pending) ordered.push_back(std::move(t));
      pending.clear();
    }
  }
  return ordered;
}

json ColumnValue(const SQLite::Column& c) {
  switch (c.getType()) {
    case SQLITE_INTEGER: return c.getInt64();
    case SQLITE_FLOAT: return c.getDouble();
    case SQLITE_TEXT: return c.getString();
    case SQLITE_BLOB: {
      static const char* kHex = "0123456789abcdef";
      const auto* p = static_cast<const unsigned char*>(c.getBlob());
      std::string hex;
      for (int i = 0; i < c.getBytes(); ++i) {
        hex += kHex[p[i] >> 4];
        hex += kHex[p[i] & 15];
      }
      return json{{"hex", hex}};
    }
    default: return nullptr;
  }
}

std::string Snippet(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

void Bind(SQLite::Statement& st, int index, const json& v, const std::string& where) {
  if (v.is_null()) {
    st.bind(index);
  } else if (v.is_boolean()) {
    st.bind(index, v.get<bool>() ? 1 : 0);
  } else if (v.is_number_integer()) {
    st.bind(index, static_cast<int64_t>(v.get<std::int64_t>()));
  } else if (v.is_number_float()) {
    st.bind(index, v.get<double>());
  } else if (v.is_string()) {
    st.bind(index, v.get<std::string>());
  } else if (v.is_object() && v.size() == 1 && v.contains("hex") && v["hex"].is_string()) {
    const std::string& hex = v["hex"].get_ref<const std::string&>();
    if (hex.size() % 2 != 0) throw std::runtime_error(where + ": odd-length hex blob");
    std::string bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      auto nibble = [&](char ch) -> int {
        if (ch >= '0' && ch <= '9') return ch - '0';
        if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
        if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
        throw std::runtime_error(where + ": blob is not hex");
      };
      bytes += static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
    }
    st.bind(index, bytes.data(), static_cast<int>(bytes.size()));
  } else {
    throw std::runtime_error(where + ": value " + Snippet(v) +
                             " is not a number, string, null or {\"hex\": ...} blob");
  }
}

// Rebuilds every external-content FTS5 table whose content table is in `tables`.
void RebuildFts(SQLite::Database& db, const std::string& layer, const std::set<std::string>& tables) {
  std::vector<std::string> rebuild;
  SQLite::Statement q(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND "
                          "substr(name, 1, length(?1) + 1) = ?1 || '_' AND upper(sql) LIKE "
                          "'CREATE VIRTUAL TABLE%USING FTS5%'");
  q.bind(1, layer);
  while (q.executeStep()) {
    const std::string name = q.getColumn(0).getString(), sql = q.getColumn(1).getString();
    for (const std::string& t : tables) {
      for (const std::string& form : {"content='" + t + "'", "content=\"" + t + "\"", "content=" + t + ","}) {
        std::string compact;
        for (char c : sql) {
          if (c != ' ' && c != '\n' && c != '\t') compact += c;
        }
        if (compact.find(form) != std::string::npos) {
          rebuild.push_back(name);
          break;
        }
      }
    }
  }
  for (const std::string& name : rebuild) {
    db.exec("INSERT INTO " + Quote(name) + "(" + Quote(name) + ") VALUES ('rebuild')");
  }
}

class TableImporter {
 public:
  TableImporter(SQLite::Database& db, const TableInfo& info, std::map<std::string, std::map<std::int64_t, std::int64_t>>& remap,
                const RowIdentity* identity)
      : db_(db), t_(info), remap_(remap), identity_(identity) {}

  ImportCounts Run(const json& body) {
    const std::string where = "table " + t_.name;
    if (!body.is_object() || !body.contains("columns") || !body["columns"].is_array() ||
        !body.contains("rows") || !body["rows"].is_array()) {
      throw std::runtime_error(where + ": expected {\"columns\": [...], \"rows\": [[...], ...]}");
    }
    for (const json& c : body["columns"]) {
      if (!c.is_string()) throw std::runtime_error(where + ": column names must be strings");
      const std::string name = c.get<std::string>();
      if (std::find(t_.columns.begin(), t_.columns.end(), name) == t_.columns.end()) {
        throw std::runtime_error(where + ": column '" + name + "' does not exist in this database (" +
                                 "the file was written by another schema)");
      }
      if (std::find(cols_.begin(), cols_.end(), name) != cols_.end()) {
        throw std::runtime_error(where + ": column '" + name + "' listed twice");
      }
      cols_.push_back(name);
    }
    for (std::size_t i = 0; i < cols_.size(); ++i) {
      if (cols_[i] == t_.surrogate) surrogate_index_ = static_cast<int>(i);
      for (const ForeignKey& fk : t_.fks) surrogate_is_fk_ |= fk.column == t_.surrogate && cols_[i] == fk.column;
    }
    ImportCounts counts;
    std::size_t row_no = 0;
    for (const json& row : body["rows"]) {
      ++row_no;
      const std::string at = where + " row " + std::to_string(row_no);
      if (!row.is_array() || row.size() != cols_.size()) {
        throw std::runtime_error(at + ": expected an array of " + std::to_string(cols_.size()) + " values");
      }
      json values = row;
      Rewrite(values, at);
      Screen(values, at);
      if (auto existing = Existing(values, at)) {
        ++counts.skipped;
        Map(values, *existing);
        continue;
      }
      Insert(values, at);
      ++counts.inserted;
    }
    return counts;
  }

 private:
  // Foreign keys that point at a remapped surrogate take the parent's new key.
  void Rewrite(json& values, const std::string& at) {
    for (const ForeignKey& fk : t_.fks) {
      auto col = std::find(cols_.begin(), cols_.end(), fk.column);
      if (col == cols_.end()) continue;
      json& v = values[static_cast<std::size_t>(col - cols_.begin())];
      if (!v.is_number_integer()) continue;
      auto table = remap_.find(fk.parent_table);
      if (table == remap_.end()) continue;
      auto it = table->second.find(v.get<std::int64_t>());
      if (it != table->second.end()) v = it->second;
      (void)at;
    }
  }

  void Screen(const json& values, const std::string& at) {
    // Every text value: a file is outside input, whatever table or column it names.
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i].is_string()) ScreenImportedText(values[i].get_ref<const std::string&>(), at + " column " + cols_[i]);
    }
  }

  std::optional<std::int64_t> Lookup(const std::vector<std::size_t>& idx, const json& values, const std::string& at) {
    std::string sql = "SELECT " + (t_.surrogate.empty() ? std::string("1") : Quote(t_.surrogate)) + " FROM " +
                      Quote(t_.name) + " WHERE ";
    for (std::size_t k = 0; k < idx.size(); ++k) sql += (k ? " AND " : "") + Quote(cols_[idx[k]]) + " IS ?";
    sql += " LIMIT 1";
    SQLite::Statement& st = Cached(sql);
    st.reset();
    st.clearBindings();
    for (std::size_t k = 0; k < idx.size(); ++k) Bind(st, static_cast<int>(k + 1), values[idx[k]], at);
    if (!st.executeStep()) return std::nullopt;
    return st.getColumn(0).getInt64();
  }

  // The existing row's surrogate (1 without one) when the row is already there.
  std::optional<std::int64_t> Existing(const json& values, const std::string& at) {
    if (identity_ != nullptr) {
      if (std::optional<std::int64_t> hit = (*identity_)(cols_, values)) return hit;
    }
    bool identified = false;  // a complete natural key decided
    for (const auto& key : t_.unique_keys) {
      std::vector<std::size_t> idx;
      bool complete = true;
      for (const std::string& c : key) {
        auto it = std::find(cols_.begin(), cols_.end(), c);
        if (it == cols_.end() || values[static_cast<std::size_t>(it - cols_.begin())].is_null()) {
          complete = false;
          break;
        }
        idx.push_back(static_cast<std::size_t>(it - cols_.begin()));
      }
      if (!complete) continue;
      identified = true;
      if (auto hit = Lookup(idx, values, at)) return hit;
    }
    if (identified || surrogate_index_ < 0) return std::nullopt;
    // A key that is also a foreign key ("memory_seq INTEGER PRIMARY KEY REFERENCES …": one
    // row per parent, e.g. a derived vector or queue row) is never renumbered: the parent's
    // row already there (a trigger may have made it) is this row.
    if (surrogate_is_fk_ && !SurrogateFree(values)) {
      return values[static_cast<std::size_t>(surrogate_index_)].get<std::int64_t>();
    }
    // Only a surrogate identifies the row: the same row under the same key, else an equal
    // row under another key (an earlier import that had to renumber it).
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < cols_.size(); ++i) all.push_back(i);
    if (auto hit = Lookup(all, values, at)) return hit;
    if (!SurrogateFree(values)) {
      all.erase(all.begin() + surrogate_index_);
      return Lookup(all, values, at);
    }
    return std::nullopt;
  }

  bool SurrogateFree(const json& values) {
    const json& v = values[static_cast<std::size_t>(surrogate_index_)];
    if (!v.is_number_integer()) return true;
    SQLite::Statement& st = Cached("SELECT 1 FROM " + Quote(t_.name) + " WHERE rowid = ?");
    st.reset();
    st.bind(1, static_cast<int64_t>(v.get<std::int64_t>()));
    return !st.executeStep();
  }

  void Map(const json& values, std::int64_t db_key) {
    if (surrogate_index_ < 0 || t_.surrogate.empty()) return;
    const json& v = values[static_cast<std::size_t>(surrogate_index_)];
    if (v.is_number_integer()) remap_[t_.name][v.get<std::int64_t>()] = db_key;
  }

  void Insert(const json& values, const std::string& at) {
    const bool keep_key = surrogate_index_ < 0 || SurrogateFree(values);
    std::string names, marks;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < cols_.size(); ++i) {
      if (!keep_key && static_cast<int>(i) == surrogate_index_) continue;
      names += (idx.empty() ? "" : ", ") + Quote(cols_[i]);
      marks += idx.empty() ? "?" : ", ?";
      idx.push_back(i);
    }
    SQLite::Statement& st = Cached("INSERT INTO " + Quote(t_.name) + " (" + names + ") VALUES (" + marks + ")");
    st.reset();
    st.clearBindings();
    for (std::size_t k = 0; k < idx.size(); ++k) Bind(st, static_cast<int>(k + 1), values[idx[k]], at);
    try {
      st.exec();
    } catch (const SQLite::Exception& e) {
      throw std::runtime_error(at + ": " + e.what());
    }
    if (!t_.surrogate.empty()) Map(values, db_.getLastInsertRowid());
  }

  SQLite::Statement& Cached(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it == statements_.end()) it = statements_.emplace(sql, std::make_unique<SQLite::Statement>(db_, sql)).first;
    return *it->second;
  }

  SQLite::Database& db_;
  const TableInfo& t_;
  std::map<std::string, std::map<std::int64_t, std::int64_t>>& remap_;
  const RowIdentity* identity_;
  std::vector<std::string> cols_;
  int surrogate_index_ = -1;
  bool surrogate_is_fk_ = false;
  std::map<std::string, std::unique_ptr<SQLite::Statement>> statements_;
};

}  // namespace

void ScreenImportedText(std::string_view text, const std::string& where) {
  if (text.find('\0') != std::string_view::npos) {
    // As for tool arguments: a NUL cuts the text for SQLite's text functions and FTS.
    throw std::runtime_error(where + ": holds a NUL character (\\u0000); remove it from the file and import again");
  }
  if (auto found = FindSecret(text)) {
    throw std::runtime_error(where + ": looks like a secret (" + found->kind +
                             "); remove it from the file (kioku stores no secrets)");
  }
}

json ExportLayerTables(SQLite::Database& db, const std::string& layer) {
  json tables = json::object();
  for (const TableInfo& t : DescribeLayer(db, layer)) {
    std::string select;
    for (const std::string& c : t.columns) select += (select.empty() ? "" : ", ") + Quote(c);
    std::string order;
    if (!t.surrogate.empty()) {
      order = Quote(t.surrogate);
    } else {
      for (const std::string& c : t.pk) order += (order.empty() ? "" : ", ") + Quote(c);
    }
    SQLite::Statement q(db, "SELECT " + select + " FROM " + Quote(t.name) + (order.empty() ? "" : " ORDER BY " + order));
    json rows = json::array();
    while (q.executeStep()) {
      json row = json::array();
      for (int i = 0; i < q.getColumnCount(); ++i) row.push_back(ColumnValue(q.getColumn(i)));
      rows.push_back(std::move(row));
    }
    tables[t.name] = {{"columns", t.columns}, {"rows", std::move(rows)}};
  }
  return {{"tables", std::move(tables)}};
}

ImportCounts ImportLayerTables(SQLite::Database& db, const std::string& layer, const json& section) {
  return ImportLayerTables(db, layer, section, {});
}

ImportCounts ImportLayerTables(SQLite::Database& db, const std::string& layer, const json& section,
                               const std::map<std::string, RowIdentity>& identities) {
  if (!section.is_object() || !section.contains("tables") || !section["tables"].is_object()) {
    throw std::runtime_error("section '" + layer + "': expected {\"tables\": {...}}");
  }
  const json& tables = section["tables"];
  std::vector<TableInfo> order = DescribeLayer(db, layer);
  for (const auto& [name, body] : tables.items()) {
    if (std::none_of(order.begin(), order.end(), [&](const TableInfo& t) { return t.name == name; })) {
      throw std::runtime_error("section '" + layer + "': table '" + name + "' does not exist in this database");
    }
  }
  db.exec("PRAGMA defer_foreign_keys = ON");
  std::map<std::string, std::map<std::int64_t, std::int64_t>> remap;
  std::set<std::string> touched;
  ImportCounts total;
  for (const TableInfo& t : order) {
    if (!tables.contains(t.name)) continue;
    const auto identity = identities.find(t.name);
    TableImporter importer(db, t, remap, identity == identities.end() ? nullptr : &identity->second);
    ImportCounts c = importer.Run(tables[t.name]);
    if (c.inserted > 0) touched.insert(t.name);
    total.inserted += c.inserted;
    total.skipped += c.skipped;
  }
  RebuildFts(db, layer, touched);
  return total;
}

}  // namespace kioku::sdk
