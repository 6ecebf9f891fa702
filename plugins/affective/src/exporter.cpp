#include "exporter.hpp"

#include "schema.hpp"
#include "store.hpp"

namespace kioku::affective {

sdk::ExporterSpec AffectiveExporter(double half_life_ms) {
  sdk::ExporterSpec spec;
  spec.renamed_columns = {TimeColumnRenames()};
  // Aggregates merge by the rule of store.hpp (BeginImportBaseline): new keys as in the
  // file, known keys gain the outcomes the import added; idempotent.
  spec.import_section = [half_life_ms](SQLite::Database& db, const nlohmann::json& section) {
    BeginImportBaseline(db);
    const sdk::ImportCounts counts = sdk::ImportLayerTables(db, "affective", section);
    FoldImportedOutcomes(db, half_life_ms);
    return counts;
  };
  // Totals from a file written under another half-life: rebuilt now from the day buckets,
  // not at the next start.
  spec.after_import = [half_life_ms](SQLite::Database& db) {
    if (DecayStale(db, half_life_ms)) RebuildDecay(db, half_life_ms);
  };
  return spec;
}

}  // namespace kioku::affective
