#include "exporter.hpp"

#include "schema.hpp"

namespace kioku::episodic {

sdk::ExporterSpec EpisodicExporter() {
  sdk::ExporterSpec spec;
  spec.after_import = RecountSessions;
  return spec;
}

}  // namespace kioku::episodic
