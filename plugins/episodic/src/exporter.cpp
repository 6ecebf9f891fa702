#include "exporter.hpp"

#include "schema.hpp"

namespace kioku::episodic {

sdk::ExporterSpec EpisodicExporter() {
  sdk::ExporterSpec spec;
  spec.after_import = RecountSessions;
  // Embeddings are re-derived: imported summaries are queued by the insert trigger.
  spec.export_section = [](SQLite::Database& db) {
    nlohmann::json body = sdk::ExportLayerTables(db, "episodic");
    sdk::EraseVectorTables(body, SummaryVectorTables());
    return body;
  };
  spec.doctor_counts = [](SQLite::Database& db) { return sdk::VectorDoctorCounts(db, SummaryVectorTables()); };
  return spec;
}

}  // namespace kioku::episodic
