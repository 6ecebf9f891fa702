#include <poll.h>
#include <thread>

#include <stdexcept>

#include "cli/commands.hpp"
#include "mcp/client_project.hpp"
#include "transport/http_server.hpp"

namespace kioku::host::cli {

int ServeHttp(Loaded& loaded, mcp::Dispatcher& dispatcher, const std::string& listen, int wake_fd) {
  const auto& http = loaded.config.http;
  HttpServerOptions options;
  ParseListenAddress(listen, options);
  options.tokens = http.tokens;
  options.allowed_origins = http.allowed_origins;
  options.allowed_hosts = http.allowed_hosts;
  options.max_body_bytes = http.max_body_bytes;
  options.header_timeout_ms = http.header_timeout_ms;
  options.max_connections = http.max_connections;
  options.max_connections_per_ip = http.max_connections_per_ip;
  options.read_timeout_ms = http.read_timeout_ms;
  options.write_timeout_ms = http.write_timeout_ms;
  options.worker_threads = http.workers;
  options.base_caller = LocalCaller("", loaded.config.projects);
  for (const auto& [agent, projects] : http.agent_projects) {
    auto& limits = options.agent_projects[agent];
    for (const auto& named : projects) {
      auto info = mcp::ProjectNamedByClient(named, loaded.config.projects);
      if (!info) {
        throw std::runtime_error("config " + loaded.config.source + ": server.http.tokens: project '" + named +
                                 "' of agent '" + agent +
                                 "' is neither an absolute path nor a project id such as github.com/acme/webapp");
      }
      limits.push_back(std::move(*info));
    }
  }

  HttpServer server(*loaded.runtime, dispatcher, options);
  server.Start();
  // SIGTERM/SIGINT write to the wake pipe; Stop() drains in-flight requests.
  std::thread waiter([&] {
    pollfd fd{wake_fd, POLLIN, 0};
    while (::poll(&fd, 1, -1) < 0 && errno == EINTR) {
    }
    dispatcher.CancelAll();
    server.Stop();
  });
  server.Wait();
  waiter.join();
  loaded.runtime->Stop();
  return 0;
}

}  // namespace kioku::host::cli
