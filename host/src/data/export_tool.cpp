#include "data/export_tool.hpp"

#include "data/data_export.hpp"
#include "data/private_file.hpp"
#include "kioku/sdk/schema.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;
namespace schema = sdk::schema;

sdk::ToolSpec ExportSpec() {
  sdk::ToolSpec spec;
  spec.name = kExportToolName;
  spec.title = "Export all memory";
  spec.description =
      "Write every layer's data (all projects) to a new 0600 file under the server's data folder; returns its "
      "path and row counts. Read it back with `kioku import FILE`.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema =
        schema::Object({{"format", schema::Enum({"json", "md"}, "json (importable, default) or md (for people)")}});
    t.output_schema = schema::Output({{"path", schema::Type("string")},
                                      {"bytes", schema::Type("integer")},
                                      {"format", schema::Type("string")},
                                      {"exported_at", schema::Type("string")},
                                      {"rows", schema::Type("object")}},
                                     {"path", "bytes", "format", "rows"});
  };
  spec.annotations.read_only = false;  // it creates a file (never the database)
  spec.annotations.destructive = false;
  spec.annotations.idempotent = false;
  spec.profile = sdk::ToolProfile::kFull;
  return spec;
}

}  // namespace

void AddExportTool(Runtime& runtime, const std::string& kioku_version) {
  runtime.AddHostTool(
      ExportSpec(),
      [&runtime, kioku_version](const json& args, const sdk::CallContext&) {
        const std::string format = args.value("format", std::string("json"));
        const json envelope = BuildExport(runtime, kioku_version);
        const std::string text = ExportText(envelope, format);
        const std::string stamp = FileStamp(runtime.Clock().NowMs());
        std::filesystem::path path;
        try {
          path = WriteNewPrivateFile(runtime.Options().data_dir / "exports", "kioku-export-" + stamp,
                                     format == "md" ? ".md" : ".json", text);
        } catch (const std::runtime_error& e) {  // the folder or disk, not a bug: say what
          throw sdk::ToolError(std::string(e.what()) + "; nothing was written");
        }
        const auto rows = ExportRowCounts(envelope);
        std::string summary;
        for (const auto& [layer, n] : rows) summary += (summary.empty() ? "" : ", ") + layer + " " + std::to_string(n);
        std::string line = "wrote " + path.string() + " (" + std::to_string(text.size()) + " bytes; rows: " +
                           (summary.empty() ? "no layer exports" : summary) + ")";
        if (format != "md") line += "; `kioku import " + path.string() + "` reads it back";
        return sdk::ToolResult::Ok(line, json{{"path", path.string()},
                                             {"bytes", text.size()},
                                             {"format", format == "md" ? "md" : "json"},
                                             {"exported_at", envelope.value("exported_at", std::string())},
                                             {"rows", rows}});
      },
      /*every_project=*/true);
}

}  // namespace kioku::host
