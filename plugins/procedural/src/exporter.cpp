#include "exporter.hpp"

#include "procedure_store.hpp"
#include "schema.hpp"

namespace kioku::procedural {

sdk::ExporterSpec ProceduralExporter() {
  sdk::ExporterSpec spec;
  spec.renamed_columns = {TimeColumnRenames()};
  // The procedures' text index is kept by code, not by triggers or external content.
  spec.after_import = [](SQLite::Database& db) { ReindexProcedures(db); };
  // Embeddings are re-derived: imported procedures are queued by the insert trigger.
  spec.export_section = [](SQLite::Database& db) {
    nlohmann::json body = sdk::ExportLayerTables(db, "procedural");
    sdk::EraseVectorTables(body, ProcedureVectorTables());
    return body;
  };
  spec.doctor_counts = [](SQLite::Database& db) { return sdk::VectorDoctorCounts(db, ProcedureVectorTables()); };
  return spec;
}

}  // namespace kioku::procedural
