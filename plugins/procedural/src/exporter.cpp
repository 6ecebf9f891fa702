#include "exporter.hpp"

#include "procedure_store.hpp"
#include "schema.hpp"

namespace kioku::procedural {

sdk::ExporterSpec ProceduralExporter() {
  sdk::ExporterSpec spec;
  spec.renamed_columns = {TimeColumnRenames()};
  // The procedures' text index is kept by code, not by triggers or external content.
  spec.after_import = [](SQLite::Database& db) { ReindexProcedures(db); };
  return spec;
}

}  // namespace kioku::procedural
