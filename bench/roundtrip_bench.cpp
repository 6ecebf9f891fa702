// Round-trip driver against the real `kioku` binary with the fixture plugin:
//   stdio  — one `kioku serve` child, sequential tools/call of a trivial tool over pipes;
//   http   — `kioku serve --http 127.0.0.1:PORT`, keep-alive POST /mcp, same call;
//   cold   — `kioku call echo_bytes` process start → plugin load → one call → exit.
// Prints median/p90/p99 per mode. Usage:
//   roundtrip_bench KIOKU_BIN FIXTURE_PLUGIN_DIR [iterations=2000] [cold_runs=50]
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  int in = -1;   // write end → child's stdin
  int out = -1;  // read end ← child's stdout
};

Child Spawn(const std::vector<std::string>& argv, bool pipes) {
  int to_child[2], from_child[2];
  if (pipes && (pipe(to_child) != 0 || pipe(from_child) != 0)) std::exit(2);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (pipes) {
    posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
    posix_spawn_file_actions_addclose(&fa, to_child[1]);
    posix_spawn_file_actions_addclose(&fa, from_child[0]);
  } else {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Child c;
  if (posix_spawn(&c.pid, args[0], &fa, nullptr, args.data(), environ) != 0) {
    std::cerr << "cannot start " << argv[0] << "\n";
    std::exit(2);
  }
  posix_spawn_file_actions_destroy(&fa);
  if (pipes) {
    close(to_child[0]);
    close(from_child[1]);
    c.in = to_child[1];
    c.out = from_child[0];
  }
  return c;
}

void WriteAll(int fd, const std::string& s) {
  for (std::size_t off = 0; off < s.size();) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n <= 0) std::exit(3);
    off += static_cast<std::size_t>(n);
  }
}

std::string ReadLine(int fd, std::string& buffer) {
  for (;;) {
    if (auto nl = buffer.find('\n'); nl != std::string::npos) {
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return line;
    }
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) std::exit(4);
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

void Report(const std::string& name, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) { return us[static_cast<std::size_t>(p * (us.size() - 1))]; };
  std::printf("%-28s n=%-6zu median=%9.1f us  p90=%9.1f us  p99=%9.1f us\n", name.c_str(), us.size(), pct(0.5),
              pct(0.9), pct(0.99));
}

const std::string kCall = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_bytes","arguments":{}}})";
const std::string kInit =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})";

void Stdio(const std::vector<std::string>& base, int iterations) {
  auto argv = base;
  argv.push_back("serve");
  Child c = Spawn(argv, true);
  std::string buffer;
  WriteAll(c.in, kInit + "\n");
  ReadLine(c.out, buffer);
  std::vector<double> us;
  for (int i = 0; i < iterations + 100; ++i) {
    auto t0 = Clock::now();
    WriteAll(c.in, kCall + "\n");
    ReadLine(c.out, buffer);
    if (i >= 100) us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  close(c.in);
  waitpid(c.pid, nullptr, 0);
  Report("stdio tools/call", us);
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Minimal HTTP/1.1 exchange for the driver: returns {headers, body}.
std::pair<std::string, std::string> Post(int fd, const std::string& body, const std::string& session, std::string& buffer) {
  std::string req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n";
  if (!session.empty()) req += "Mcp-Session-Id: " + session + "\r\n";
  req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  WriteAll(fd, req);
  for (;;) {
    auto end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      std::string headers = buffer.substr(0, end);
      std::string lower = headers;
      std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
      auto cl = lower.find("content-length:");
      std::size_t len = cl == std::string::npos ? 0 : std::stoul(headers.substr(cl + 15));
      if (buffer.size() >= end + 4 + len) {
        std::string b = buffer.substr(end + 4, len);
        buffer.erase(0, end + 4 + len);
        return {headers, b};
      }
    }
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) std::exit(5);
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

void Http(const std::vector<std::string>& base, int iterations) {
  const int port = 20000 + static_cast<int>(getpid() % 20000);
  auto argv = base;
  argv.insert(argv.end(), {"serve", "--http", "127.0.0.1:" + std::to_string(port)});
  Child c = Spawn(argv, false);
  int fd = -1;
  for (int i = 0; i < 500 && fd < 0; ++i) {
    fd = Connect(port);
    if (fd < 0) usleep(10'000);
  }
  if (fd < 0) {
    std::cout << "http: server did not start (skipped)\n";
    kill(c.pid, SIGTERM);
    waitpid(c.pid, nullptr, 0);
    return;
  }
  std::string buffer;
  auto [headers, body] = Post(fd, kInit, "", buffer);
  std::string session;
  std::string lower = headers;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (auto p = lower.find("mcp-session-id:"); p != std::string::npos) {
    auto start = headers.find_first_not_of(' ', p + 15);
    session = headers.substr(start, headers.find("\r\n", start) - start);
  }
  std::vector<double> us;
  for (int i = 0; i < iterations + 100; ++i) {
    auto t0 = Clock::now();
    Post(fd, kCall, session, buffer);
    if (i >= 100) us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  close(fd);
  kill(c.pid, SIGTERM);
  waitpid(c.pid, nullptr, 0);
  Report("http tools/call keep-alive", us);
}

void Cold(const std::vector<std::string>& base, int runs) {
  std::vector<double> us;
  for (int i = 0; i < runs; ++i) {
    auto argv = base;
    argv.insert(argv.end(), {"call", "echo_bytes"});
    auto t0 = Clock::now();
    Child c = Spawn(argv, false);
    int status = 0;
    waitpid(c.pid, &status, 0);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  Report("cold kioku call", us);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: roundtrip_bench KIOKU_BIN FIXTURE_PLUGIN_DIR [iterations] [cold_runs]\n";
    return 2;
  }
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 2000;
  const int cold_runs = argc > 4 ? std::atoi(argv[4]) : 50;
  auto home = std::filesystem::temp_directory_path() / ("kioku-roundtrip-" + std::to_string(getpid()));
  std::filesystem::create_directories(home);
  auto config = home / "kioku.yaml";
  std::ofstream(config) << "plugins:\n  enabled: [fixture]\n";
  setenv("KIOKU_HOME", home.c_str(), 1);
  setenv("KIOKU_CONFIG", config.c_str(), 1);
  std::vector<std::string> base{argv[1], "--plugin-dir", argv[2]};
  Stdio(base, iterations);
  Http(base, iterations);
  Cold(base, cold_runs);
  std::filesystem::remove_all(home);
  return 0;
}
