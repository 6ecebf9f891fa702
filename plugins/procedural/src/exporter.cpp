#include "exporter.hpp"

#include "procedure_store.hpp"

namespace kioku::procedural {

sdk::ExporterSpec ProceduralExporter() {
  sdk::ExporterSpec spec;
  spec.screened_columns = {"procedural_plans.title",
                          "procedural_plans.goal",
                          "procedural_tasks.title",
                          "procedural_tasks.description",
                          "procedural_tasks.note",
                          "procedural_criteria.text",
                          "procedural_blockers.reason",
                          "procedural_procedures.name",
                          "procedural_procedures.when_text",
                          "procedural_procedures.steps"};
  // The procedures' text index is kept by code, not by triggers or external content.
  spec.after_import = [](SQLite::Database& db) { ReindexProcedures(db); };
  return spec;
}

}  // namespace kioku::procedural
