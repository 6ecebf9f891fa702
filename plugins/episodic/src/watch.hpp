#pragma once
/// @file watch.hpp
/// `kioku ingest --watch DIR`: follow growing transcripts by polling. Each poll lists the
/// *.jsonl files under DIR and ingests those whose size changed since the last poll
/// (the ingester itself reads only whole new lines from the stored offset, so a line
/// being written is picked up on a later poll, never split). Polling rather than inotify:
/// portable, and transcripts grow by whole lines a few times a second at most.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "ingest.hpp"

namespace kioku::episodic {

struct WatchOptions {
  std::filesystem::path dir;
  std::chrono::milliseconds interval{2000};
  std::int64_t max_polls = -1;                 ///< < 0 = until stopped
  const std::atomic<bool>* stop = nullptr;     ///< set to end the loop
  /// How to wait between polls (tests inject a no-op); default sleeps in 100 ms steps,
  /// returning early when `stop` is set.
  std::function<void(std::chrono::milliseconds)> sleep;
};

/// One poll: ingests every transcript under `dir` whose size differs from `sizes` (the
/// sizes seen last time; updated). Returns the reports of files that had something new
/// or failed.
std::vector<FileReport> PollOnce(Ingester& ingester, const std::filesystem::path& dir,
                                 std::map<std::string, std::uint64_t>& sizes);

/// Polls until `max_polls` or `stop`; prints one line per file with news. Returns 0, or 1
/// when `dir` is not a directory.
int RunWatch(Ingester& ingester, const WatchOptions& options, std::ostream& out,
             std::ostream& err);

/// One-line description of a file report, for the CLI and the tool text.
std::string DescribeReport(const FileReport& r);

}  // namespace kioku::episodic
