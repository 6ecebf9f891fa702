#include "exporter.hpp"


namespace kioku::affective {

sdk::ExporterSpec AffectiveExporter() {
  sdk::ExporterSpec spec;
  spec.screened_columns = {"affective_outcomes.error"};
  return spec;
}

}  // namespace kioku::affective
