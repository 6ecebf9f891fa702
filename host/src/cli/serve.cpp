#include <csignal>
#include <iostream>
#include <thread>
#include <fcntl.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "kioku/sdk/ids.hpp"
#include "logging.hpp"
#include "transport/http_server.hpp"
#include "transport/stdio_server.hpp"

namespace kioku::host::cli {
namespace {

int g_wake_write_fd = -1;

extern "C" void OnTerminate(int) {
  if (g_wake_write_fd >= 0) {
    char b = 1;
    [[maybe_unused]] auto n = ::write(g_wake_write_fd, &b, 1);
  }
}

// Self-pipe: SIGTERM/SIGINT/SIGHUP write one byte that wakes the transport's poll loop.
int InstallTerminationPipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  g_wake_write_fd = fds[1];
  struct sigaction sa {};
  sa.sa_handler = OnTerminate;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);  // a closed terminal: the same clean stop
  return fds[0];
}

}  // namespace

int Serve(const GlobalOptions& global, const ServeOptions& serve, int proto_out_fd) {
  Loaded configured = LoadConfig(global);
  if (serve.http) {
    // A wrong address is a usage error found before anything is opened or snapshot.
    HttpServerOptions probe;
    try {
      ParseListenAddress(serve.listen.empty() ? configured.config.http.listen : serve.listen, probe);
    } catch (const std::exception& e) {
      std::cerr << "kioku serve: " << e.what() << "\n";
      return 2;
    }
  }
  // A database this start creates has nothing to keep yet: only an existing one is snapshot.
  std::error_code ec;
  const bool had_database = std::filesystem::exists(ResolveHome(configured.config.home.string()) / "kioku.db", ec);
  auto loaded = StartRuntime(std::move(configured));
  // The daily snapshot (VACUUM INTO, then integrity_check of the copy: ~2 s at 100,000
  // memories) runs beside the server instead of before it, so a client's initialize is not
  // held up: VACUUM INTO reads in one read transaction, which WAL lets the server's writes
  // run beside. When Serve returns, the thread is asked to stop (the copy is abandoned and
  // removed; the next start takes it) and joined, so an exit is prompt and leaves no file.
  std::jthread snapshot;
  if (had_database) snapshot = std::jthread([&loaded](std::stop_token stop) { RunAutoSnapshot(loaded, stop); });
  mcp::Dispatcher dispatcher(*loaded.runtime, MakeDispatcherOptions(loaded));
  const int wake_fd = InstallTerminationPipe();
  auto log = MakeLogger("host");
  if (serve.http) {
    return ServeHttp(loaded, dispatcher, serve.listen.empty() ? loaded.config.http.listen : serve.listen, wake_fd);
  }
  mcp::Session session;
  session.id = sdk::NewId(loaded.runtime->Clock().NowMs());
  session.base_caller = LocalCaller("", loaded.config.projects);
  session.instance_id = NewInstanceId();
  log->Info("serving MCP over stdio; " + std::to_string(loaded.runtime->Tools().size()) + " tools; database " +
            loaded.runtime->Options().db_path.string());
  StdioOptions options;
  options.out_fd = proto_out_fd;
  options.wake_fd = wake_fd;
  options.warm_worker = [&loaded] { loaded.runtime->Db(); };
  RunStdio(dispatcher, session, options);
  loaded.runtime->Stop();
  return 0;
}

}  // namespace kioku::host::cli
