#include "exporter.hpp"

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include <map>
#include <optional>
#include <set>

#include "entity_store.hpp"
#include "kioku/sdk/export_references.hpp"
#include "kioku/sdk/ids.hpp"
#include "vectors.hpp"

namespace kioku::semantic {

namespace {

// Ids stored as text, outside the SQL foreign keys (the seq columns have those). A purged
// memory's id stays named by its "purged" history row and by the memories it superseded.
const std::vector<sdk::TextReference>& TextReferences() {
  static const std::vector<sdk::TextReference> refs{
      {"semantic_memory_history", "memory_id",
       {{"semantic_memories", "id", "", ""}, {"semantic_memory_history", "memory_id", "action", "purged"}}},
      {"semantic_memories", "superseded_by",
       {{"semantic_memories", "id", "", ""}, {"semantic_memory_history", "memory_id", "action", "purged"}}},
      {"semantic_relations", "replaces", {{"semantic_relations", "id", "", ""}}},
  };
  return refs;
}

// Takes the entity ids out of `section` before the rows go in: the stored `id` column of a
// file written before entity ids were computed (migration 12; this database has no such
// column) and the file's semantic_entity_ids rows, whose entity_seq names a row of the file
// that the import may renumber or merge. Each entity's derived id in the file comes too. The
// file's ids are then kept by entity key (KeepImportedEntityIds), so an id the file showed
// still names the same entity here.
std::vector<ImportedEntityId> TakeEntityIds(nlohmann::json& section) {
  std::vector<ImportedEntityId> out;
  if (!section.contains("tables") || !section["tables"].is_object()) return out;
  nlohmann::json& tables = section["tables"];
  if (!tables.contains("semantic_entities")) return out;
  nlohmann::json& entities = tables["semantic_entities"];
  const nlohmann::json& columns = entities.at("columns");
  const auto column = [&](const char* name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == name) return i;
    }
    return std::nullopt;
  };
  const auto seq = column("seq"), id = column("id"), created = column("created_at"), norm = column("norm_name"),
             type = column("type");
  if (!seq || !created || !norm || !type) return out;  // the generic import names what is missing
  std::map<std::int64_t, std::pair<std::string, std::string>> key_of;  // file seq → (norm_name, type)
  std::map<std::int64_t, std::string> shown_alias;                      // file seq → id it showed
  if (tables.contains("semantic_entity_ids")) {
    const nlohmann::json& aliases = tables["semantic_entity_ids"];
    for (const nlohmann::json& row : aliases.at("rows")) {
      nlohmann::json named;
      for (std::size_t i = 0; i < aliases.at("columns").size(); ++i) named[aliases["columns"][i].get<std::string>()] = row.at(i);
      if (named.value("shown", 0) == 1) shown_alias[named.value("entity_seq", std::int64_t{0})] = named.value("id", "");
    }
  }
  for (const nlohmann::json& row : entities.at("rows")) {
    if (!row.at(*seq).is_number_integer() || !row.at(*created).is_number_integer() || !row.at(*norm).is_string() ||
        !row.at(*type).is_string()) {
      continue;  // refused by the generic import, with the row named
    }
    const std::int64_t s = row[*seq].get<std::int64_t>();
    ImportedEntityId base{"", row[*norm].get<std::string>(), row[*type].get<std::string>(), false};
    key_of[s] = {base.norm_name, base.type};
    const std::string derived = sdk::DerivedId(row[*created].get<std::int64_t>(), s);
    std::string shown = id && row.at(*id).is_string() ? row[*id].get<std::string>() : "";
    if (auto it = shown_alias.find(s); it != shown_alias.end()) shown = it->second;
    if (!shown.empty()) out.push_back({shown, base.norm_name, base.type, true});
    out.push_back({derived, base.norm_name, base.type, shown.empty()});
  }
  if (tables.contains("semantic_entity_ids")) {
    const nlohmann::json& aliases = tables["semantic_entity_ids"];
    for (const nlohmann::json& row : aliases.at("rows")) {
      nlohmann::json named;
      for (std::size_t i = 0; i < aliases.at("columns").size(); ++i) named[aliases["columns"][i].get<std::string>()] = row.at(i);
      auto key = key_of.find(named.value("entity_seq", std::int64_t{0}));
      if (key != key_of.end() && named.value("shown", 0) != 1) {
        out.push_back({named.value("id", ""), key->second.first, key->second.second, false});
      }
    }
    tables.erase("semantic_entity_ids");
  }
  if (id) {
    nlohmann::json& cols = entities["columns"];
    cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(*id));
    for (nlohmann::json& row : entities["rows"]) row.erase(row.begin() + static_cast<std::ptrdiff_t>(*id));
  }
  return out;
}

// The (norm_name, type) of every entity in the database.
std::set<std::pair<std::string, std::string>> EntityKeys(SQLite::Database& db) {
  std::set<std::pair<std::string, std::string>> out;
  SQLite::Statement q(db, "SELECT norm_name, type FROM semantic_entities");
  while (q.executeStep()) out.emplace(q.getColumn(0).getString(), q.getColumn(1).getString());
  return out;
}

}  // namespace

sdk::ExporterSpec SemanticExporter() {
  sdk::ExporterSpec spec;
  spec.import_section = [](SQLite::Database& db, const nlohmann::json& section) {
    nlohmann::json rows = section;
    const std::vector<ImportedEntityId> ids = TakeEntityIds(rows);
    const auto existed = EntityKeys(db);
    // After the rows (screened for secrets first); a refusal rolls the host's transaction back.
    sdk::ImportCounts counts = sdk::ImportLayerTables(db, "semantic", rows);
    counts.inserted += KeepImportedEntityIds(db, ids, existed);
    sdk::CheckTextReferences(db, rows, TextReferences());
    return counts;
  };
  // The embed queue and whether it is on are work in progress of this database (random
  // tickets, attempts): left out; an import queues its memories again through the queue's
  // triggers, or the first embedder to start there does (sdk::VectorStore::StartQueueing).
  spec.export_section = [](SQLite::Database& db) {
    nlohmann::json body = sdk::ExportLayerTables(db, "semantic");
    if (body.contains("tables")) {
      body["tables"].erase("semantic_embed_queue");
      body["tables"].erase(MemoryVectorTables().QueueingTable());
    }
    return body;
  };
  spec.doctor_counts = [](SQLite::Database& db) {
    nlohmann::json by_status = nlohmann::json::object();
    std::int64_t backlog = 0;
    SQLite::Statement q(db, "SELECT status, count(*) FROM semantic_memories GROUP BY status ORDER BY status");
    while (q.executeStep()) {
      const std::string status = q.getColumn(0).getString();
      const std::int64_t n = q.getColumn(1).getInt64();
      by_status[status] = n;
      if (status == "pending" || status == "contested") backlog += n;
    }
    return nlohmann::json{{"memories", by_status}, {"review_backlog", backlog}};
  };
  return spec;
}

}  // namespace kioku::semantic
