#include "exporter.hpp"


namespace kioku::episodic {

sdk::ExporterSpec EpisodicExporter() {
  sdk::ExporterSpec spec;
  spec.screened_columns = {"episodic_log.entry",
                          "episodic_summaries.summary",
                          "episodic_sessions.title",
                          "episodic_sessions.last_message"};
  return spec;
}

}  // namespace kioku::episodic
