#include "transport/stdio_server.hpp"

#include <cerrno>
#include <fcntl.h>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "transport/worker_pool.hpp"

namespace kioku::host {
namespace {

void WriteAll(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // client went away; nothing sensible to do
    }
    off += static_cast<std::size_t>(n);
  }
}

class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}
  void Send(const std::string& line) {
    if (line.empty()) return;
    std::lock_guard lock(mutex_);
    WriteAll(fd_, line + "\n");
  }

 private:
  int fd_;
  std::mutex mutex_;
};

// Whether `fds` (as the read loop polls them: stdout, then the wake fd when `wake`) say to
// stop: a wake byte (SIGTERM), or stdout in error (a pipe whose reader closed: the client
// is gone even while it keeps stdin open; no events are asked, errors are always reported).
bool StopSeen(const pollfd& out, const pollfd& wake_fd, bool wake) {
  return (wake && (wake_fd.revents & POLLIN)) || (out.revents & (POLLERR | POLLHUP | POLLNVAL));
}

// Joins `pool` after stdin ended: queued calls still run (a client may write its requests
// and close stdin without waiting), but a stop (StopSeen) still cancels them, as in the read
// loop: the SDKs' close() ends stdin, then sends SIGTERM, then SIGKILL, and a server that
// ignored the SIGTERM was killed in the middle of its queue.
void JoinWatchingForStop(PreferredWorkerPool& pool, mcp::Dispatcher& dispatcher, const StdioOptions& options) {
  int joined[2];
  if (::pipe2(joined, O_CLOEXEC) != 0) {
    pool.Join();
    return;
  }
  std::thread joiner([&] {
    pool.Join();
    const char done = 1;
    while (::write(joined[1], &done, 1) < 0 && errno == EINTR) {
    }
  });
  for (bool watching = true;;) {
    pollfd fds[3] = {{joined[0], POLLIN, 0}, {options.out_fd, 0, 0}, {options.wake_fd, POLLIN, 0}};
    const nfds_t n = !watching ? 1 : options.wake_fd >= 0 ? 3 : 2;
    if (::poll(fds, n, -1) < 0 && errno != EINTR) break;  // the join below still waits
    if (fds[0].revents & POLLIN) break;
    if (watching && StopSeen(fds[1], fds[2], n == 3)) {
      dispatcher.CancelAll();
      watching = false;  // the wake byte stays readable: poll only for the join from here on
    }
  }
  joiner.join();
  ::close(joined[0]);
  ::close(joined[1]);
}

}  // namespace

void RunStdio(mcp::Dispatcher& dispatcher, mcp::Session& session, const StdioOptions& options) {
  LineWriter writer(options.out_fd);
  // Server→client requests (roots/list) go out on the same line writer.
  session.send = [&writer](const nlohmann::json& message) { writer.Send(sdk::DumpJson(message)); };
  // The first tool call waits for the warming to end, so it finds worker 0 idle and its
  // connection open rather than going to worker 1 and opening another. The promise is kept
  // in the continuation, which runs once worker 0 counts as idle again. (Declared before
  // the pool, which joins its workers when it goes.)
  std::promise<void> warmed;
  std::future<void> warming;
  PreferredWorkerPool pool(options.workers);  // a client that waits for each answer keeps one connection
  if (options.warm_worker) {
    warming = warmed.get_future();
    pool.Post([&options, &warmed]() -> std::function<void()> {
      try {
        options.warm_worker();
      } catch (...) {  // the first call does it again and says what failed
      }
      return [&warmed] { warmed.set_value(); };
    });
  }

  auto handle_line = [&](std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    nlohmann::json error;
    auto parsed = mcp::Dispatcher::ParseMessage(line, error);
    if (!parsed) {
      writer.Send(sdk::DumpJson(error));
      return;
    }
    nlohmann::json message = std::move(*parsed);
    if (mcp::Dispatcher::IsToolCall(message)) {
      if (warming.valid()) warming.get();
      pool.Post([&dispatcher, &session, &writer, message = std::move(message)]() -> std::function<void()> {
        std::optional<nlohmann::json> r = dispatcher.Handle(message, session);
        if (!r) return {};
        return [&writer, r = std::move(r)] { writer.Send(sdk::DumpJson(*r)); };
      });
    } else if (auto r = dispatcher.Handle(message, session)) {
      writer.Send(sdk::DumpJson(*r));
    }
  };

  std::string buffer;
  bool oversized = false;  // discarding the rest of a too-long line
  auto refuse = [&] {
    writer.Send(sdk::DumpJson(mcp::Dispatcher::ErrorResponse(
        nullptr, mcp::kInvalidRequest,
        "Invalid Request: message longer than " + std::to_string(options.max_message_bytes) +
            " bytes; it was discarded")));
  };
  char chunk[65536];
  bool stopped = false;  // by StopSeen, not by the end of stdin
  for (;;) {
    pollfd fds[3] = {{options.in_fd, POLLIN, 0}, {options.out_fd, 0, 0}, {options.wake_fd, POLLIN, 0}};
    int n = ::poll(fds, options.wake_fd >= 0 ? 3 : 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (StopSeen(fds[1], fds[2], options.wake_fd >= 0)) {
      dispatcher.CancelAll();  // running calls stop at their next check, queued ones do not start
      stopped = true;
      break;
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t got = ::read(options.in_fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF or error
    std::size_t start = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(got); ++i) {
      if (chunk[i] != '\n') continue;
      // A line that ends inside this chunk is measured too, not only one still open at the
      // end of a read: otherwise the limit leaks by up to a chunk.
      if (oversized) {
        oversized = false;
      } else if (buffer.size() + (i - start) > options.max_message_bytes) {
        refuse();
      } else {
        buffer.append(chunk + start, i - start);
        handle_line(std::move(buffer));
      }
      buffer.clear();
      start = i + 1;
    }
    const std::size_t rest = static_cast<std::size_t>(got) - start;
    if (oversized) continue;
    if (buffer.size() + rest > options.max_message_bytes) {
      refuse();
      buffer.clear();
      buffer.shrink_to_fit();
      oversized = true;
    } else {
      buffer.append(chunk + start, rest);
    }
  }
  if (!stopped && options.wake_fd >= 0) {
    // A stop sent just before stdin closed (SIGTERM, then the pipe shut) may not have been
    // seen by the last poll, which returned for stdin's end alone.
    pollfd wake{options.wake_fd, POLLIN, 0};
    if (::poll(&wake, 1, 0) > 0 && (wake.revents & POLLIN)) {
      dispatcher.CancelAll();
      stopped = true;
    }
  }
  if (stopped) {
    pool.Join();  // a line cut off by the stop is a fragment, not a message: not answered
  } else {
    if (!oversized && !buffer.empty()) handle_line(std::move(buffer));
    JoinWatchingForStop(pool, dispatcher, options);
  }
  session.send = nullptr;
}

}  // namespace kioku::host
