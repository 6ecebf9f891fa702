#include "database_use_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kioku::host {

std::filesystem::path DatabaseUseLock::LockPath(const std::filesystem::path& db_path) {
  return db_path.string() + ".lock";
}

std::unique_ptr<DatabaseUseLock> DatabaseUseLock::TryAcquire(const std::filesystem::path& db_path, Mode mode) {
  const auto path = LockPath(db_path);
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot open lock file " + path.string() + ": " + std::strerror(errno));
  int rc;
  do {
    rc = ::flock(fd, (mode == Mode::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return nullptr;
    throw std::runtime_error("cannot lock " + path.string() + ": " + std::strerror(err));
  }
  return std::unique_ptr<DatabaseUseLock>(new DatabaseUseLock(fd));
}

DatabaseUseLock::~DatabaseUseLock() { ::close(fd_); }  // closing the descriptor releases the lock

}  // namespace kioku::host
