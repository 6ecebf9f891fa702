// `kioku export` and `kioku import`.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "data/data_export.hpp"
#include "data/foreign_import.hpp"
#include "kioku/sdk/json.hpp"

#ifndef KIOKU_VERSION
#define KIOKU_VERSION "0.0.0"
#endif

namespace kioku::host::cli {
namespace {

// Writes `text` to `path` with mode 0600 (an export holds everything kioku knows) through
// a temporary file renamed into place, so a failed write leaves no half file behind.
void WritePrivateFile(const std::filesystem::path& path, const std::string& text) {
  const std::string tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + path.string());
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + path.string() + " (disk full?)");
    }
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot move " + tmp + " to " + path.string());
  }
}

}  // namespace

std::string RenderExport(Runtime& runtime, const std::string& format) {
  nlohmann::json envelope = BuildExport(runtime, KIOKU_VERSION);
  return format == "md" ? ExportMarkdown(envelope) : sdk::DumpJson(envelope, 1) + "\n";
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
           const std::string& project, std::ostream& out) {
  auto loaded = LoadRuntime(global);
  try {
    sdk::Caller caller = LocalCaller("cli", loaded.config.projects);
    if (project == "-") {
      caller.project_id.clear();
      caller.project_root.clear();
    } else if (!project.empty()) {
      UseProject(caller, project, loaded.config.projects);
    }
    ImportTarget target;
    target.agent_id = caller.agent_id;
    target.project_id = caller.project_id;
    target.project_root = caller.project_root;
    const ForeignImportReport report = ImportFile(*loaded.runtime, file, format, target);
    std::int64_t added = 0;
    out << "imported " << file << " (" << report.format << "):";
    for (const auto& [what, c] : report.layers) {
      out << " " << what << " " << c.inserted << " new, " << c.skipped << " already there;";
      added += c.inserted;
    }
    out << "\n";
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < report.notes.size() && i < kShown; ++i) out << "  " << report.notes[i] << "\n";
    if (report.notes.size() > kShown) out << "  … and " << report.notes.size() - kShown << " more\n";
    if (added == 0) out << "nothing new: everything in the file was already there\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "kioku import: " << e.what() << "; nothing was changed\n";
    return 1;
  }
}

}  // namespace kioku::host::cli
