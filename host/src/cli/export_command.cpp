// `kioku export` and `kioku import`.
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "data/data_export.hpp"
#include "data/foreign_import.hpp"
#include "data/private_file.hpp"
#include "kioku/sdk/caller.hpp"

#ifndef KIOKU_VERSION
#define KIOKU_VERSION "0.0.0"
#endif

namespace kioku::host::cli {

std::string RenderExport(Runtime& runtime, const std::string& format) {
  return ExportText(BuildExport(runtime, KIOKU_VERSION), format);
}

int Export(const GlobalOptions& global, const std::string& format, const std::string& output, std::ostream& out) {
  auto loaded = LoadRuntime(global);
  const std::string text = RenderExport(*loaded.runtime, format);
  if (output.empty() || output == "-") {
    out << text;
  } else {
    WritePrivateFile(output, text);
    std::cerr << "kioku: wrote " << output << " (" << text.size() << " bytes)\n";
  }
  return 0;
}

int Import(const GlobalOptions& global, const std::string& file, const std::string& format,
           const std::optional<std::string>& project, std::ostream& out) {
  auto loaded = LoadRuntime(global);
  try {
    sdk::Caller caller = LocalCaller("cli", loaded.config.projects);
    if (project == "-") {
      caller.project_id.clear();
      caller.project_root.clear();
    } else if (project) {
      try {
        sdk::UseCommandLineProject(caller, project, loaded.config.projects);
      } catch (const std::invalid_argument& e) {
        std::cerr << "kioku import: " << e.what() << "; nothing was changed\n";
        return 2;  // a usage error, as in kioku call and review
      }
    }
    ImportTarget target;
    target.agent_id = caller.agent_id;
    target.project_id = caller.project_id;
    target.project_root = caller.project_root;
    const ForeignImportReport report = ImportFile(*loaded.runtime, file, format, target);
    std::int64_t added = 0;
    std::int64_t seen = 0;
    out << "imported " << file << " (" << report.format << "):";
    for (const auto& [what, c] : report.layers) {
      out << " " << what << " " << c.inserted << " new, " << c.skipped << " already there;";
      added += c.inserted;
      seen += c.inserted + c.skipped;
    }
    out << "\n";
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < report.notes.size() && i < kShown; ++i) out << "  " << report.notes[i] << "\n";
    if (report.notes.size() > kShown) out << "  … and " << report.notes.size() - kShown << " more\n";
    if (seen == 0) {
      out << "nothing found to import: the file holds no items of this format (for Markdown, "
             "bullet or numbered lines)\n";
    } else if (added == 0) {
      out << "nothing new: everything in the file was already there\n";
    }
    return 0;
  } catch (const UnknownImportFormat& e) {
    std::cerr << "kioku import: " << e.what() << "; nothing was changed\n";
    return 2;  // a usage error, as CLI11 reports those of the options it checks itself
  } catch (const std::exception& e) {
    std::cerr << "kioku import: " << e.what() << "; nothing was changed\n";
    return 1;
  }
}

}  // namespace kioku::host::cli
