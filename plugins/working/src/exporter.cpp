#include "exporter.hpp"


namespace kioku::working {

sdk::ExporterSpec WorkingExporter() {
  sdk::ExporterSpec spec;
  return spec;
}

}  // namespace kioku::working
