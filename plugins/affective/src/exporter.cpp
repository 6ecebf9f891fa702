#include "exporter.hpp"


namespace kioku::affective {

sdk::ExporterSpec AffectiveExporter() {
  sdk::ExporterSpec spec;
  return spec;
}

}  // namespace kioku::affective
