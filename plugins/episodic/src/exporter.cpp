#include "exporter.hpp"


namespace kioku::episodic {

sdk::ExporterSpec EpisodicExporter() {
  sdk::ExporterSpec spec;
  return spec;
}

}  // namespace kioku::episodic
