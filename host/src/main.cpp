// kioku entry point: keep the real stdout for the protocol, send everything else to stderr.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  // SQLite's allocation statistics take a process-wide mutex on every malloc and free: ~5%
  // of a batch memory_remember's instructions (callgrind), for figures kioku never reads.
  // Only settable before SQLite initializes.
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  // A reader that goes away (`kioku call … | head -1`, an agent that stops reading a hook)
  // makes the next write fail with EPIPE instead of killing the process: a one-shot command
  // still commits its deferred writes (recall counters, the call's outcome) after its output,
  // and a stdio server notices the closed pipe and stops (transport/stdio_server.cpp).
  std::signal(SIGPIPE, SIG_IGN);
  // A parent may start kioku with stdin or stderr closed (`2>&-`): the dup below would take
  // the free number, and every log line meant for stderr would land in the protocol stream.
  // Both are pointed at /dev/null. A closed stdout stays closed: the output cannot be
  // written, and the exit code says so (cli::Run).
  for (const int fd : {STDIN_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int null_fd = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
  }
  const int proto_out = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  kioku::host::cli::AllowExitWithoutTeardown();
  const int code = kioku::host::cli::Run(argc, argv, proto_out);
  if (kioku::host::cli::OneShotKept()) {
    // A one-shot command kept its runtime (cli::EndOneShot): its output is written, its
    // deferred writes committed; the kernel frees the rest faster than destructors would.
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
