#include "data/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace kioku::host {
namespace {

namespace fs = std::filesystem;

// Writes `text` to a new 0600 file `tmp` (O_EXCL: never someone else's file) and fsyncs it.
void WriteTemp(const fs::path& tmp, const fs::path& shown, const std::string& text) {
  const int fd = ::open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + shown.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + shown.string() + ": " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const std::string why = std::strerror(errno);
  ::close(fd);
  if (!synced) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + shown.string() + " (fsync): " + why);
  }
}

fs::path TempBeside(const fs::path& dir, const std::string& name) {
  return dir / ("." + name + ".tmp-" + std::to_string(::getpid()));
}

}  // namespace

std::string FileStamp(std::int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(((ms % 1000) + 1000) % 1000));
  return buf;
}

void MakePrivateDir(const fs::path& dir) {
  std::error_code ec;
  // Never through a symlink: the folder would be made private (0700) and written wherever
  // the link points.
  if (fs::is_symlink(fs::symlink_status(dir, ec))) {
    throw std::runtime_error(dir.string() + " is a symbolic link; kioku writes its private files only into a "
                             "real folder (remove the link)");
  }
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create directory " + dir.string() + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
}

void WritePrivateFile(const fs::path& path, const std::string& text) {
  // The rename below replaces whatever has the name: a link (not what it points to), a
  // FIFO, or, as root, a device node (`-o /dev/full` became a regular file). Only a
  // regular file is replaced.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    const char* kind = S_ISLNK(st.st_mode)   ? "a symbolic link"
                       : S_ISDIR(st.st_mode) ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                    : "not a regular file";
    throw std::runtime_error("cannot write " + path.string() + ": it is " + kind +
                             "; kioku replaces only a regular file (name a new file, or write to stdout)");
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path tmp = TempBeside(dir, path.filename().string());
  ::unlink(tmp.c_str());  // ours, from a process with this pid that died mid-write
  WriteTemp(tmp, path, text);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot move " + tmp.string() + " to " + path.string() + ": " + why);
  }
}

fs::path LinkToFreeName(const fs::path& tmp, const fs::path& dir, const std::string& stem, const std::string& ext) {
  for (int n = 0; n < 1000; ++n) {
    const fs::path target = dir / (stem + (n ? "-" + std::to_string(n) : std::string()) + ext);
    if (::link(tmp.c_str(), target.c_str()) == 0) return target;
    if (errno != EEXIST) throw std::runtime_error("cannot create " + target.string() + ": " + std::strerror(errno));
  }
  throw std::runtime_error("too many files named " + stem + ext + " in " + dir.string());
}

fs::path WriteNewPrivateFile(const fs::path& dir, const std::string& stem, const std::string& ext,
                             const std::string& text) {
  MakePrivateDir(dir);
  const fs::path tmp = TempBeside(dir, stem + ext);
  ::unlink(tmp.c_str());
  WriteTemp(tmp, dir / (stem + ext), text);
  struct Cleanup {
    const fs::path& p;
    ~Cleanup() { ::unlink(p.c_str()); }
  } cleanup{tmp};
  return LinkToFreeName(tmp, dir, stem, ext);
}

}  // namespace kioku::host
