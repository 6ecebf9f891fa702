#include "watch.hpp"

#include <set>
#include <thread>

#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

namespace fs = std::filesystem;

std::string DescribeReport(const FileReport& r) {
  if (!r.error.empty()) return r.path + ": error: " + r.error;
  if (r.unchanged) return r.path + ": nothing new";
  std::string s = r.path + " [" + r.format + "]: " + sdk::Plural(r.sessions.size(), "session", "sessions") + ", " +
                  sdk::Plural(r.messages, "message", "messages") + ", " +
                  sdk::Plural(r.tool_outcomes, "tool call", "tool calls") + " (" + std::to_string(r.failed_tools) +
                  " failed), " + sdk::Plural(r.statements, "durable statement", "durable statements") + " (" +
                  std::to_string(r.suggested) + " suggested), " + sdk::Plural(r.skipped_lines, "line", "lines") +
                  " skipped";
  if (r.oversize_lines > 0) s += " (" + std::to_string(r.oversize_lines) + " oversize)";
  if (r.duplicates > 0) s += ", " + std::to_string(r.duplicates) + " duplicate lines";
  if (r.bad_timestamps > 0) s += ", " + std::to_string(r.bad_timestamps) + " bad timestamps";
  std::set<std::string> projects;
  for (const auto& [session, project] : r.session_projects) projects.insert(project);
  if (!projects.empty()) {
    s += "; project" + std::string(projects.size() == 1 ? " " : "s ");
    int shown = 0;
    for (const auto& p : projects) {
      if (shown++ == 3) {
        s += ", …";
        break;
      }
      s += (shown > 1 ? ", " : "") + p;
    }
  }
  if (r.reset) s += "; file was replaced, read from the start";
  if (r.stopped) s += "; stopped early, run again to continue";
  return s;
}

std::vector<FileReport> PollOnce(Ingester& ingester, const fs::path& dir,
                                 std::map<std::string, std::uint64_t>& sizes) {
  std::vector<FileReport> out;
  for (const auto& path : ListTranscripts(dir)) {
    std::error_code ec;
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec) continue;
    auto it = sizes.find(path.string());
    if (it != sizes.end() && it->second == size) continue;
    sizes[path.string()] = size;
    FileReport r = ingester.IngestFile(path);
    if (!r.unchanged && (r.bytes > 0 || !r.error.empty())) out.push_back(std::move(r));
  }
  if (!out.empty()) ingester.Deliver();
  return out;
}

int RunWatch(Ingester& ingester, const WatchOptions& options, std::ostream& out,
             std::ostream& err) {
  std::error_code ec;
  if (!fs::is_directory(options.dir, ec)) {
    err << "kioku ingest --watch: " << options.dir.string() << " is not a directory\n";
    return 1;
  }
  auto stopped = [&] { return options.stop != nullptr && options.stop->load(); };
  auto sleep = options.sleep;
  if (!sleep) {
    sleep = [&](std::chrono::milliseconds d) {
      const auto until = std::chrono::steady_clock::now() + d;
      while (!stopped() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
            d, std::chrono::milliseconds(100)));
      }
    };
  }
  std::map<std::string, std::uint64_t> sizes;
  for (std::int64_t poll = 0; options.max_polls < 0 || poll < options.max_polls; ++poll) {
    if (stopped()) break;
    for (const auto& r : PollOnce(ingester, options.dir, sizes)) out << DescribeReport(r) << "\n";
    out.flush();
    if (options.max_polls >= 0 && poll + 1 >= options.max_polls) break;
    sleep(options.interval);
  }
  return 0;
}

}  // namespace kioku::episodic
