#include "exporter.hpp"


namespace kioku::working {

sdk::ExporterSpec WorkingExporter() {
  sdk::ExporterSpec spec;
  spec.screened_columns = {"working_blocks.content",
                          "working_block_history.content",
                          "working_focus.content",
                          "working_handoffs.summary",
                          "working_handoffs.open_items",
                          "working_questions.question",
                          "working_questions.context",
                          "working_questions.answer",
                          "working_dumps.summary"};
  return spec;
}

}  // namespace kioku::working
