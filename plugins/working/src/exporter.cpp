#include "exporter.hpp"

#include "schema.hpp"

namespace kioku::working {

sdk::ExporterSpec WorkingExporter() {
  sdk::ExporterSpec spec;
  spec.renamed_columns = {TimeColumnRenames()};
  return spec;
}

}  // namespace kioku::working
