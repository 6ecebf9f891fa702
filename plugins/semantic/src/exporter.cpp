#include "exporter.hpp"

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/export_references.hpp"
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

}  // namespace

sdk::ExporterSpec SemanticExporter() {
  sdk::ExporterSpec spec;
  spec.import_section = [](SQLite::Database& db, const nlohmann::json& section) {
    // After the rows (screened for secrets first); a refusal rolls the host's transaction back.
    const sdk::ImportCounts counts = sdk::ImportLayerTables(db, "semantic", section);
    sdk::CheckTextReferences(db, section, TextReferences());
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
