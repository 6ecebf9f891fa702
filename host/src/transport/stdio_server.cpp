#include "transport/stdio_server.hpp"

#include <cerrno>
#include <functional>
#include <mutex>
#include <optional>
#include <poll.h>
#include <string>
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

}  // namespace

void RunStdio(mcp::Dispatcher& dispatcher, mcp::Session& session, const StdioOptions& options) {
  LineWriter writer(options.out_fd);
  // Server→client requests (roots/list) go out on the same line writer.
  session.send = [&writer](const nlohmann::json& message) { writer.Send(sdk::DumpJson(message)); };
  PreferredWorkerPool pool(options.workers);  // a client that waits for each answer keeps one connection

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
  for (;;) {
    // stdout is watched too (no events asked: errors are always reported): a pipe whose
    // reader closed reports POLLERR, and a client that stopped reading is gone even while
    // it keeps stdin open.
    pollfd fds[3] = {{options.in_fd, POLLIN, 0}, {options.out_fd, 0, 0}, {options.wake_fd, POLLIN, 0}};
    int n = ::poll(fds, options.wake_fd >= 0 ? 3 : 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if ((options.wake_fd >= 0 && (fds[2].revents & POLLIN)) || (fds[1].revents & (POLLERR | POLLHUP | POLLNVAL))) {
      dispatcher.CancelAll();  // SIGTERM or no reader: running calls stop at their next check
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
  if (!oversized && !buffer.empty()) handle_line(std::move(buffer));
  pool.Join();
  session.send = nullptr;
}

}  // namespace kioku::host
