#pragma once
/// @file stdio_server.hpp
/// MCP stdio transport (2025-11-25 basic_transports.mdx "stdio"; 2026-07-28
/// basic_transports_stdio.mdx): newline-delimited JSON-RPC on stdin/stdout.
/// stdin is read with blocking reads on the calling thread (not an Asio descriptor: epoll
/// refuses regular files and /dev/null); tool calls run on a worker pool so cancellation
/// can arrive while they run; responses are written whole, one line each, under a mutex.

#include <atomic>
#include <cstddef>
#include <functional>

#include "mcp/dispatcher.hpp"

namespace kioku::host {

struct StdioOptions {
  int in_fd = 0;
  int out_fd = 1;  ///< The real stdout (main moves fd 1 to stderr and passes a dup here).
  /// Wakes the read loop for shutdown: a readable byte here ends Run() (self-pipe for
  /// SIGTERM). -1 = none.
  int wake_fd = -1;
  std::size_t max_message_bytes = 16 * 1024 * 1024;  ///< Longer lines are answered -32600.
  /// Tool calls running at once (worker_pool.hpp: each call goes to the lowest-numbered idle
  /// worker, or waits for the first to free).
  int workers = 4;
  /// Run on worker 0 as the server starts, beside the client's handshake: serve opens that
  /// worker's database connection here (parsing the schema, ~5 M instructions), which the
  /// first tool call, served by worker 0, then finds open (it waits for the warming to end).
  /// What it throws is dropped. Empty = nothing.
  std::function<void()> warm_worker;
};

/// Serves one client until EOF on stdin, an error on out_fd (a pipe whose reader closed) or
/// a byte on wake_fd (a stop), then waits for the calls read so far and returns. After a
/// stop, running calls are cancelled, queued ones never start and a line cut off without
/// its newline is dropped. After EOF, a final line without a newline is still handled and
/// every call read still runs, unless a stop comes while they do: then as above.
void RunStdio(mcp::Dispatcher& dispatcher, mcp::Session& session, const StdioOptions& options);

}  // namespace kioku::host
