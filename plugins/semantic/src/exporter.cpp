#include "exporter.hpp"

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include <map>
#include <optional>
#include <stdexcept>

#include "entity_store.hpp"
#include "index_lag.hpp"
#include "keys.hpp"
#include "memory.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "schema.hpp"
#include "kioku/sdk/export_references.hpp"
#include "kioku/sdk/ids.hpp"
#include "vectors.hpp"

namespace kioku::semantic {

namespace {

// Ids stored as text, outside the SQL foreign keys (the seq columns have those). A purged
// memory's id stays named by its "purged" history row and by the memories it superseded.
const std::vector<sdk::TextReference>& TextReferences() {
  static const std::vector<sdk::TextReference> refs{
      // own_id first: the file's ids (PrepareMemoryIds fills them) and this database's kept ids,
      // by index; then computed ids here (the view semantic_memory_ids, a scan: only what the
      // first two do not find).
      {"semantic_memory_history", "memory_id",
       {{"semantic_memories", "own_id", "", ""},
        {"semantic_memory_ids", "id", "", ""},
        {"semantic_memory_history", "memory_id", "action", "purged"}}},
      {"semantic_memories", "superseded_by",
       {{"semantic_memories", "own_id", "", ""},
        {"semantic_memory_ids", "id", "", ""},
        {"semantic_memory_history", "memory_id", "action", "purged"}}},
      {"semantic_relations", "replaces", {{"semantic_relations", "id", "", ""}}},
  };
  return refs;
}

// Whether `table` of a section has the shape ExportLayerTables writes: "columns" and "rows"
// arrays.
bool Shaped(const nlohmann::json& table) {
  return table.is_object() && table.contains("columns") && table["columns"].is_array() && table.contains("rows") &&
         table["rows"].is_array();
}

// The index of column `name` in a shaped table, nullopt when it has none.
std::optional<std::size_t> ColumnOf(const nlohmann::json& table, const char* name) {
  const nlohmann::json& columns = table["columns"];
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return std::nullopt;
}

// The ids a file gives its entities, for KeepImportedEntityIds: each entity's derived id in
// the file, the stored `id` column of a file written before entity ids were computed
// (migration 12; this database has no such column) and the file's semantic_entity_ids rows,
// whose entity_seq names a row of the file that the import may renumber or merge. Throws
// std::runtime_error naming the row when an id is not one (26 Crockford base32 characters,
// as kioku makes them) or an alias row is malformed: the file is refused, nothing changes.
std::vector<ImportedEntityId> EntityIdsOf(const nlohmann::json& section) {
  std::vector<ImportedEntityId> out;
  const nlohmann::json* tables = section.contains("tables") ? &section["tables"] : nullptr;
  if (tables == nullptr || !tables->is_object() || !tables->contains("semantic_entities")) return out;
  const nlohmann::json& entities = (*tables)["semantic_entities"];
  if (!Shaped(entities)) return out;  // the generic import names what is wrong with the table
  const auto seq = ColumnOf(entities, "seq"), id = ColumnOf(entities, "id"), created = ColumnOf(entities, "created_at"),
             norm = ColumnOf(entities, "norm_name"), type = ColumnOf(entities, "type");
  if (!seq || !created || !norm || !type) return out;  // the generic import names what is missing
  const auto checked = [](const nlohmann::json& v, const std::string& where) {
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (!v.is_string() || !sdk::IsUlid(text)) {
      // Not echoed: whatever it is (a secret, even) goes no further than the file.
      throw std::runtime_error(where + ": its id is not an entity id (26 characters of Crockford base32, as kioku "
                               "writes them); fix or remove it and import again");
    }
    return text;
  };
  std::map<std::int64_t, std::pair<std::string, std::string>> key_of;  // file seq → (norm_name, type)
  std::map<std::int64_t, std::string> shown_alias;                      // file seq → the id it was shown with
  std::vector<std::pair<std::string, std::int64_t>> other_aliases;      // (id, file seq)
  if (tables->contains("semantic_entity_ids")) {
    const nlohmann::json& aliases = (*tables)["semantic_entity_ids"];
    const bool shaped = Shaped(aliases);
    const auto a_id = shaped ? ColumnOf(aliases, "id") : std::nullopt;
    const auto a_seq = shaped ? ColumnOf(aliases, "entity_seq") : std::nullopt;
    const auto a_shown = shaped ? ColumnOf(aliases, "shown") : std::nullopt;
    if (!a_id || !a_seq || !a_shown || aliases["columns"].size() != 3) {
      throw std::runtime_error("table semantic_entity_ids: needs \"columns\": [\"id\", \"entity_seq\", \"shown\"] "
                               "and \"rows\" (an array of such rows); fix the file");
    }
    std::size_t n = 0;
    for (const nlohmann::json& row : aliases["rows"]) {
      const std::string where = "table semantic_entity_ids row " + std::to_string(++n);
      if (!row.is_array() || row.size() != 3) throw std::runtime_error(where + ": expected an array of 3 values");
      const nlohmann::json &v_seq = row[*a_seq], &v_shown = row[*a_shown];
      if (!v_seq.is_number_integer() || !v_shown.is_number_integer() ||
          (v_shown.get<std::int64_t>() != 0 && v_shown.get<std::int64_t>() != 1)) {
        throw std::runtime_error(where + ": entity_seq must be an integer and shown 0 or 1; fix the file");
      }
      const std::string alias = checked(row[*a_id], where);
      // One shown id per entity: a second is kept as another id it answers to.
      if (v_shown.get<std::int64_t>() == 1 && shown_alias.count(v_seq.get<std::int64_t>()) == 0) {
        shown_alias[v_seq.get<std::int64_t>()] = alias;
      } else {
        other_aliases.emplace_back(alias, v_seq.get<std::int64_t>());
      }
    }
  }
  std::size_t n = 0;
  const std::size_t width = entities["columns"].size();
  for (const nlohmann::json& row : entities["rows"]) {
    ++n;
    if (!row.is_array() || row.size() != width || !row[*seq].is_number_integer() || !row[*created].is_number_integer() ||
        !row[*norm].is_string() || !row[*type].is_string()) {
      continue;  // refused by the generic import, with the row named
    }
    const std::int64_t s = row[*seq].get<std::int64_t>();
    if (s < 1 || s > (std::int64_t{1} << 53)) {
      // An entity seq near 2^63 would leave AUTOINCREMENT nothing to give the next entity.
      throw std::runtime_error("table semantic_entities row " + std::to_string(n) + ": seq " + std::to_string(s) +
                               " is out of range (1 to 2^53); fix the file");
    }
    const std::string norm_name = row[*norm].get<std::string>(), kind = row[*type].get<std::string>();
    key_of[s] = {norm_name, kind};
    std::string shown = id && !row[*id].is_null() ? checked(row[*id], "table semantic_entities row " + std::to_string(n)) : "";
    if (auto it = shown_alias.find(s); it != shown_alias.end()) shown = it->second;
    if (!shown.empty()) out.push_back({shown, norm_name, kind, true});
    out.push_back({sdk::DerivedId(row[*created].get<std::int64_t>(), s), norm_name, kind, shown.empty()});
  }
  for (const auto& [alias, file_seq] : other_aliases) {
    auto key = key_of.find(file_seq);
    if (key == key_of.end()) {
      throw std::runtime_error("table semantic_entity_ids: id " + alias + " names entity_seq " +
                               std::to_string(file_seq) + ", which the file has no entity for; fix the file");
    }
    out.push_back({alias, key->second.first, key->second.second, false});
  }
  return out;
}

// `section` without what EntityIdsOf took from it (the stored id column and the
// semantic_entity_ids table), which the generic import cannot place: `section` itself when
// it has neither, else a copy in `stripped`.
const nlohmann::json& WithoutEntityIds(const nlohmann::json& section, nlohmann::json& stripped) {
  if (!section.contains("tables") || !section["tables"].is_object()) return section;
  const nlohmann::json& tables = section["tables"];
  const bool aliases = tables.contains("semantic_entity_ids");
  const bool entities = tables.contains("semantic_entities") && Shaped(tables["semantic_entities"]);
  const std::size_t id = entities ? ColumnOf(tables["semantic_entities"], "id").value_or(std::string::npos) : std::string::npos;
  if (!aliases && id == std::string::npos) return section;
  stripped = section;
  nlohmann::json& t = stripped["tables"];
  t.erase("semantic_entity_ids");
  if (id != std::string::npos) {
    nlohmann::json& e = t["semantic_entities"];
    e["columns"].erase(e["columns"].begin() + static_cast<std::ptrdiff_t>(id));
    for (nlohmann::json& row : e["rows"]) {
      if (row.is_array() && row.size() > id) row.erase(row.begin() + static_cast<std::ptrdiff_t>(id));
    }
  }
  return stripped;
}

// Marks the ids whose entity (norm_name, type) is in the database before the import, and
// returns the entity seqs there then, ascending.
std::vector<std::int64_t> MarkExisting(SQLite::Database& db, std::vector<ImportedEntityId>& ids) {
  SQLite::Statement q(db, "SELECT 1 FROM semantic_entities WHERE norm_name = ? AND type_key = " + KeyOfSql("?"));
  for (ImportedEntityId& in : ids) {
    q.reset();
    sdk::Bind(q, in.norm_name, in.type);
    in.existed = q.executeStep();
  }
  std::vector<std::int64_t> seqs;
  SQLite::Statement all(db, "SELECT seq FROM semantic_entities ORDER BY seq");
  while (all.executeStep()) seqs.push_back(all.getColumn(0).getInt64());
  return seqs;
}

// One-row counters of changes that tell a process's caches what moved (schema.cpp text and
// row epochs), and how far the lagging indexes got (index_lag.hpp): state of this database,
// not content. Not exported; ignored in files written before that (their row collided
// with this database's: the import was refused).
constexpr const char* kProcessCounters[] = {"semantic_text_epoch", "semantic_row_epoch", "semantic_index_marks"};

// `section` with every memory's id in own_id, so the import keeps it when it renumbers the
// row and finds it when the memory is here already (MemoryIdentity). A row without one has
// its id computed where the file was written (sdk::SeqId of captured_at, id_nonce and seq;
// the nonce tells apart two stores' memories of one seq and one millisecond, MemoryNonce);
// a file from before migration 15 names the column `id` (renamed_columns). Ids are kept in
// upper case. Throws std::runtime_error naming the row, and so refuses the file, for a row
// without a seq in [1, 2^40] or an id_nonce in [0, 2^20), with an id that is not one (26
// Crockford base32 characters) or that another row of the file has too, or superseded by
// itself.
void PrepareMemoryIds(nlohmann::json& section) {
  if (!section.contains("tables") || !section["tables"].is_object() ||
      !section["tables"].contains("semantic_memories")) {
    return;
  }
  nlohmann::json& memories = section["tables"]["semantic_memories"];
  if (!Shaped(memories)) return;  // the generic import names what is wrong with the table
  std::optional<std::size_t> own = ColumnOf(memories, "own_id");
  if (!own) {
    memories["columns"].push_back("own_id");
    for (nlohmann::json& row : memories["rows"]) {
      if (row.is_array()) row.push_back(nullptr);
    }
    own = memories["columns"].size() - 1;
  }
  const auto seq = ColumnOf(memories, "seq"), captured = ColumnOf(memories, "captured_at"),
             nonce = ColumnOf(memories, "id_nonce"), successor = ColumnOf(memories, "superseded_by");
  auto integer = [](const nlohmann::json& row, const std::optional<std::size_t>& at) {
    return at && row.size() > *at && row[*at].is_number_integer();
  };
  std::map<std::string, std::size_t> ids_in_file;
  std::map<std::int64_t, std::size_t> seqs_in_file;
  std::size_t n = 0;
  for (nlohmann::json& row : memories["rows"]) {
    const std::string where = "table semantic_memories row " + std::to_string(++n);
    if (!row.is_array() || row.size() <= *own) continue;  // the generic import names it
    // 2^40 leaves this store room to grow past an imported seq within the 2^53 a JSON number
    // holds exactly, which its own exports are read back with.
    if (!integer(row, seq) || row[*seq].get<std::int64_t>() <= 0 || row[*seq].get<std::int64_t>() > (std::int64_t{1} << 40)) {
      throw std::runtime_error(where + ": seq must be an integer from 1 to 2^40");
    }
    if (nonce && row.size() > *nonce &&
        (!row[*nonce].is_number_integer() || row[*nonce].get<std::int64_t>() < 0 ||
         row[*nonce].get<std::int64_t>() >= (std::int64_t{1} << sdk::kSeqIdNonceBits))) {
      throw std::runtime_error(where + ": id_nonce must be an integer from 0 to 2^20 - 1");
    }
    if (auto [it, fresh] = seqs_in_file.emplace(row[*seq].get<std::int64_t>(), n); !fresh) {
      throw std::runtime_error(where + ": seq " + row[*seq].dump() + " is row " + std::to_string(it->second) +
                               "'s too; each memory needs its own");
    }
    if (row[*own].is_null()) {
      if (!integer(row, captured) || !integer(row, nonce)) {
        throw std::runtime_error(where + ": own_id is null and captured_at or id_nonce is missing, so the memory's "
                                         "id is unknown; export the memories again with this kioku");
      }
      row[*own] = MemoryId("", row[*captured].get<std::int64_t>(), row[*nonce].get<std::int64_t>(),
                           row[*seq].get<std::int64_t>());
    }
    if (!row[*own].is_string() || !sdk::IsUlid(row[*own].get<std::string>())) {
      throw std::runtime_error(where + ": own_id " + row[*own].dump() +
                               " is not a memory id (26 characters of Crockford base32, as kioku makes them)");
    }
    const std::string id = AsciiUpper(row[*own].get<std::string>());
    if (auto [it, fresh] = ids_in_file.emplace(id, n); !fresh) {
      throw std::runtime_error(where + ": id " + id + " is row " + std::to_string(it->second) +
                               "'s too; each memory needs its own");
    }
    if (successor && row.size() > *successor && row[*successor].is_string() &&
        AsciiUpper(row[*successor].get<std::string>()) == id) {
      throw std::runtime_error(where + ": superseded by itself");
    }
    row[*own] = id;
  }
}

// A memory of the file that is here already, by its id (PrepareMemoryIds put it in own_id).
std::optional<std::int64_t> MemoryIdentity(SQLite::Database& db, const std::vector<std::string>& columns,
                                           const nlohmann::json& row) {
  for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i) {
    if (columns[i] == "own_id" && row[i].is_string()) return MemorySeqOfId(db, row[i].get<std::string>());
  }
  return std::nullopt;
}

// Drops own_id where it equals the memory's computed id (an import that kept the file's seq
// and time): those memories cost the id's bytes no more.
void CompactMemoryIds(SQLite::Database& db) {
  db.exec("UPDATE semantic_memories SET own_id = NULL WHERE own_id IS NOT NULL AND own_id = " + DerivedMemoryIdSql());
}

// The interned columns (keys.hpp) and the names files give them: a file names a memory's
// project, agent and session and an entity's type by their text, as before migrations 16
// and 18, so files from either side of them read alike and keys stay this database's own.
struct KeyColumn {
  const char* table;
  const char* key;
  const char* text;
};
constexpr KeyColumn kKeyColumns[] = {{"semantic_memories", "project_key", "project_id"},
                                     {"semantic_memories", "agent_key", "agent_id"},
                                     {"semantic_memories", "session_key", "session_id"},
                                     {"semantic_entities", "type_key", "type"}};

// An export's interned columns as text.
void KeysToText(SQLite::Database& db, nlohmann::json& tables) {
  tables.erase("semantic_keys");
  std::map<std::int64_t, std::string> text_of;
  SQLite::Statement q(db, "SELECT seq, text FROM semantic_keys");
  while (q.executeStep()) text_of.emplace(q.getColumn(0).getInt64(), q.getColumn(1).getString());
  for (const KeyColumn& c : kKeyColumns) {
    if (!tables.contains(c.table) || !Shaped(tables[c.table])) continue;
    nlohmann::json& table = tables[c.table];
    const std::optional<std::size_t> at = ColumnOf(table, c.key);
    if (!at) continue;
    table["columns"][*at] = c.text;
    for (nlohmann::json& row : table["rows"]) {
      const auto it = text_of.find(row[*at].get<std::int64_t>());
      row[*at] = it == text_of.end() ? std::string() : it->second;
    }
  }
}

// A file's interned columns as keys here (keys.hpp), interned in the import's transaction.
// Throws std::runtime_error naming the row, and so refuses the file, for a value that is not
// text, holds a NUL or looks like a secret, or for a file naming keys (semantic_keys,
// project_key, ...), which are another database's numbers.
void TextToKeys(SQLite::Database& db, nlohmann::json& section) {
  if (!section.contains("tables") || !section["tables"].is_object()) return;
  nlohmann::json& tables = section["tables"];
  if (tables.contains("semantic_keys")) {
    throw std::runtime_error("table semantic_keys: keys are this database's own; name a memory's project, agent "
                             "and session by project_id, agent_id and session_id text, an entity's type by type");
  }
  sdk::StatementCache statements;
  KeyInterner keys;
  for (const KeyColumn& c : kKeyColumns) {
    if (!tables.contains(c.table) || !Shaped(tables[c.table])) continue;
    nlohmann::json& table = tables[c.table];
    if (ColumnOf(table, c.key)) {
      throw std::runtime_error(std::string("table ") + c.table + ": column " + c.key + " holds another database's "
                               "key; send " + c.text + " (text) instead");
    }
    const std::optional<std::size_t> at = ColumnOf(table, c.text);
    if (!at) continue;
    table["columns"][*at] = c.key;
    std::size_t n = 0;
    for (nlohmann::json& row : table["rows"]) {
      ++n;
      if (!row.is_array() || row.size() <= *at) continue;  // the generic import names it
      const std::string where = std::string("table ") + c.table + " row " + std::to_string(n) + " column " + c.text;
      if (!row[*at].is_string()) throw std::runtime_error(where + ": must be text (\"\" for none)");
      const std::string& text = row[*at].get_ref<const std::string&>();
      sdk::ScreenImportedText(text, where);  // keys are not rows the generic import screens
      row[*at] = keys.Key(db, statements, text);
    }
  }
}

}  // namespace

sdk::ExporterSpec SemanticExporter() {
  sdk::ExporterSpec spec;
  spec.renamed_columns = {{kDerivedMemoryIdsVersion, {{"semantic_memories", "id", "own_id"}}}};
  spec.import_section = [](SQLite::Database& db, const nlohmann::json& section) {
    std::vector<ImportedEntityId> ids = EntityIdsOf(section);
    const std::vector<std::int64_t> seqs_before = MarkExisting(db, ids);
    nlohmann::json stripped;
    const nlohmann::json& without = WithoutEntityIds(section, stripped);
    nlohmann::json rows = &without == &section ? section : std::move(stripped);
    if (rows.contains("tables") && rows["tables"].is_object()) {
      for (const char* table : kProcessCounters) rows["tables"].erase(table);
    }
    PrepareMemoryIds(rows);
    TextToKeys(db, rows);
    // The import rebuilds the indexes of the tables it adds rows to, over every row: with
    // nothing lagging before it, every row is indexed after it.
    CatchUpLaggingIndexes(db);
    // After the rows (screened for secrets first); a refusal rolls the host's transaction back.
    sdk::ImportCounts counts = sdk::ImportLayerTables(
        db, "semantic", rows,
        {{"semantic_memories", [&db](const std::vector<std::string>& columns, const nlohmann::json& row) {
            return MemoryIdentity(db, columns, row);
          }}});
    MarkIndexesWhole(db);
    counts.inserted += KeepImportedEntityIds(db, ids, seqs_before);
    DropUnusedKeys(db);  // those of rows that were here already
    CutDedupHashes(db);  // files written before migration 17 hold 64-bit reaffirm keys
    sdk::CheckTextReferences(db, rows, TextReferences());
    CompactMemoryIds(db);
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
      for (const char* table : kProcessCounters) body["tables"].erase(table);
      KeysToText(db, body["tables"]);
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
