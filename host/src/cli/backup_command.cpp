// `kioku backup snapshot | list | restore FILE`, and the automatic snapshot at serve start.
#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "data/backup.hpp"
#include "logging.hpp"

namespace kioku::host::cli {
namespace {

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Age(std::int64_t ms) {
  const double hours = static_cast<double>(ms) / 3.6e6;
  char buf[32];
  if (hours < 1) std::snprintf(buf, sizeof buf, "%.0f min", hours * 60);
  else if (hours < 48) std::snprintf(buf, sizeof buf, "%.1f h", hours);
  else std::snprintf(buf, sizeof buf, "%.1f days", hours / 24);
  return buf;
}

}  // namespace

std::string DescribeBackupAge(const Config& config, const std::filesystem::path& data_dir) {
  const auto all = ListSnapshots(BackupDir(config.backup, data_dir));
  if (all.empty()) return "no snapshot yet in " + BackupDir(config.backup, data_dir).string();
  return "newest " + all.front().path.filename().string() + " (" + Age(NowMs() - all.front().taken_at_ms) + " old), " +
         std::to_string(all.size()) + " kept in " + BackupDir(config.backup, data_dir).string();
}

void RunAutoSnapshot(const Loaded& loaded, std::stop_token stop) {
  try {
    const auto& options = loaded.runtime->Options();
    if (auto taken = AutoSnapshot(options.db_path, loaded.config.backup, options.data_dir, NowMs(),
                                  [&stop] { return stop.stop_requested(); })) {
      MakeLogger("host")->Info("automatic snapshot " + taken->path.string());
    }
  } catch (const std::exception& e) {
    if (stop.stop_requested()) {
      MakeLogger("host")->Info("automatic snapshot left for the next start: the server is stopping");
    } else {
      MakeLogger("host")->Warn(std::string("automatic snapshot failed: ") + e.what());
    }
  }
}

int Backup(const GlobalOptions& global, const std::string& action, const std::string& file, std::ostream& out) {
  Loaded loaded = LoadConfig(global);
  const auto data_dir = ResolveHome(loaded.config.home.string());
  const auto db_path = data_dir / "kioku.db";
  const auto dir = BackupDir(loaded.config.backup, data_dir);
  try {
    if (action == "snapshot") {
      const SnapshotInfo taken = TakeSnapshot(db_path, dir, NowMs());
      const auto removed = RotateSnapshots(dir, loaded.config.backup.keep);
      out << "snapshot " << taken.path.string() << " (" << taken.bytes << " bytes, integrity ok)";
      if (!removed.empty()) out << "; rotated out " << removed.size() << " older";
      out << "\n";
      return 0;
    }
    if (action == "list") {
      for (const auto& s : ListSnapshots(dir)) {
        out << s.path.string() << "  " << s.bytes << " bytes  " << Age(NowMs() - s.taken_at_ms) << " old\n";
      }
      return 0;
    }
    if (action == "restore") {
      if (file.empty()) {
        std::cerr << "kioku backup restore: name the snapshot file to restore\n";
        return 2;
      }
      const auto aside = RestoreSnapshot(file, db_path, NowMs());
      out << "restored " << file << " as " << db_path.string();
      if (!aside.empty()) out << "; the previous database is kept as " << aside.string();
      out << "\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "kioku backup " << action << ": " << e.what() << "; nothing was changed\n";
    return 1;
  }
  std::cerr << "kioku backup: unknown action '" << action << "'; use snapshot, list or restore FILE\n";
  return 2;
}

}  // namespace kioku::host::cli
