// Hook driver against the real `kioku` binary with the real memory layers (default config,
// plugins from the build tree), as Claude Code runs the hooks — one cold process each:
//   context  — `kioku context --hook-stdin` on a SessionStart envelope, and on a
//              UserPromptSubmit envelope, over a store of N semantic memories;
//   capture  — `kioku hook capture` on a Stop envelope after each append of one typical
//              turn (a prompt, 3 tool calls with results, an answer: 8 lines, ~4 KB) to a
//              transcript that keeps growing.
// Prints p50/p90/max wall time per mode. Usage:
//   hook_bench KIOKU_BIN [memories=10000] [runs=40]
#include <fcntl.h>
#include <spawn.h>
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

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Runs `args` with `input` on stdin (from a file), stdout/stderr to /dev/null, in `cwd`.
// Returns the wall time in ms, or -1 when the process failed.
double Run(const std::vector<std::string>& args, const std::string& input, const fs::path& cwd) {
  const fs::path in_file = fs::temp_directory_path() / ("hook-bench-in-" + std::to_string(::getpid()));
  std::ofstream(in_file, std::ios::binary) << input;
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const fs::path old = fs::current_path();
  fs::current_path(cwd);
  const auto start = Clock::now();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  fs::current_path(old);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  fs::remove(in_file);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

void Report(const char* what, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  if (ms.empty() || ms.front() < 0) {
    std::cout << what << ": a run failed\n";
    return;
  }
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))]; };
  std::printf("%-44s p50 %7.1f ms  p90 %7.1f ms  max %7.1f ms  (%zu runs)\n", what, at(0.5), at(0.9), ms.back(),
              ms.size());
}

std::string Line(const nlohmann::json& j) { return j.dump() + "\n"; }

// One typical turn of a Claude Code session: 8 transcript lines.
std::string Turn(int turn, const std::string& cwd, const std::string& session) {
  auto base = [&](const char* type, int k) {
    char ts[32];
    std::snprintf(ts, sizeof ts, "2026-11-03T%02d:%02d:%02d.000Z", 9 + turn / 3600 % 12, turn / 60 % 60, turn % 60);
    return nlohmann::json{{"parentUuid", nullptr}, {"isSidechain", false}, {"userType", "external"},
                          {"cwd", cwd}, {"sessionId", session}, {"version", "2.0.31"}, {"gitBranch", "main"},
                          {"type", type}, {"uuid", "u-" + std::to_string(turn) + "-" + std::to_string(k)},
                          {"timestamp", ts}};
  };
  std::string out;
  auto user = base("user", 0);
  user["message"] = {{"role", "user"}, {"content", "Turn " + std::to_string(turn) +
                                                       ": make the importer skip rows with a missing id and add a test"}};
  out += Line(user);
  for (int t = 0; t < 3; ++t) {
    const std::string id = "toolu_" + std::to_string(turn) + "_" + std::to_string(t);
    auto call = base("assistant", 1 + 2 * t);
    call["message"] = {{"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"id", "msg_" + std::to_string(turn)},
                       {"type", "message"},
                       {"content", {{{"type", "tool_use"}, {"id", id}, {"name", t == 2 ? "Bash" : "Edit"},
                                     {"input", t == 2 ? nlohmann::json{{"command", "ctest -R importer"}}
                                                      : nlohmann::json{{"file_path", cwd + "/src/importer.cpp"},
                                                                       {"old_string", "a"}, {"new_string", "b"}}}}}}};
    out += Line(call);
    auto result = base("user", 2 + 2 * t);
    result["message"] = {{"role", "user"},
                         {"content", {{{"type", "tool_result"}, {"tool_use_id", id},
                                       {"content", std::string(300, 'r') + " ok"}}}}};
    out += Line(result);
  }
  auto answer = base("assistant", 7);
  answer["message"] = {{"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"id", "msg_a" + std::to_string(turn)},
                       {"type", "message"},
                       {"content", {{{"type", "text"}, {"text", "Done: rows without an id are skipped; test added."}}}}};
  out += Line(answer);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: hook_bench KIOKU_BIN [memories=10000] [runs=40]\n";
    return 2;
  }
  const std::string bin = fs::absolute(argv[1]).string();
  const int memories = argc > 2 ? std::atoi(argv[2]) : 10'000;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 40;
  const fs::path dir = fs::temp_directory_path() / ("kioku-hook-bench-" + std::to_string(::getpid()));
  const fs::path project = dir / "project";
  fs::create_directories(project);
  ::setenv("KIOKU_HOME", (dir / "home").c_str(), 1);
  ::unsetenv("KIOKU_PROJECT_ROOT");
  ::unsetenv("KIOKU_CONFIG");
  ::setenv("KIOKU_AGENT_ID", "bench-agent", 1);

  // Seed: memories in batches of 100 through the real tool, from the project folder.
  for (int b = 0; b * 100 < memories; ++b) {
    nlohmann::json batch = nlohmann::json::array();
    for (int i = 0; i < 100 && b * 100 + i < memories; ++i) {
      const int n = b * 100 + i;
      batch.push_back({{"text", "Service s" + std::to_string(n) + " reads its settings from config/s" +
                                    std::to_string(n % 97) + ".yaml and retries " + std::to_string(n % 5 + 1) +
                                    " times on timeouts"},
                       {"kind", n % 4 == 0 ? "decision" : "fact"},
                       {"importance", n % 10 + 1}});
    }
    if (Run({bin, "call", "memory_remember", "-"}, nlohmann::json{{"memories", batch}}.dump(), project) < 0) {
      std::cerr << "seeding failed at batch " << b << "\n";
      return 1;
    }
  }
  std::cout << memories << " memories seeded in " << dir << "\n";

  const std::string cwd = project.string();
  const std::string start_env =
      nlohmann::json{{"session_id", "bench"}, {"transcript_path", "/nonexistent"}, {"cwd", cwd},
                     {"hook_event_name", "SessionStart"}, {"source", "startup"}}.dump();
  const std::string prompt_env =
      nlohmann::json{{"session_id", "bench"}, {"transcript_path", "/nonexistent"}, {"cwd", cwd},
                     {"hook_event_name", "UserPromptSubmit"},
                     {"prompt", "which config file does service s42 read its settings from?"}}.dump();
  std::vector<double> start_ms, prompt_ms, capture_ms;
  for (int i = 0; i < runs; ++i) start_ms.push_back(Run({bin, "context", "--hook-stdin"}, start_env, project));
  for (int i = 0; i < runs; ++i) prompt_ms.push_back(Run({bin, "context", "--hook-stdin"}, prompt_env, project));

  const fs::path transcript = dir / "session.jsonl";
  const std::string stop_env = nlohmann::json{{"session_id", "bench-session"}, {"transcript_path", transcript.string()},
                                              {"cwd", cwd}, {"hook_event_name", "Stop"}}.dump();
  for (int t = 0; t < 20; ++t) std::ofstream(transcript, std::ios::app) << Turn(t, cwd, "bench-session");
  Run({bin, "hook", "capture"}, stop_env, project);  // the session so far
  for (int i = 0; i < runs; ++i) {
    std::ofstream(transcript, std::ios::app) << Turn(100 + i, cwd, "bench-session");
    capture_ms.push_back(Run({bin, "hook", "capture"}, stop_env, project));
  }
  Report("context --hook-stdin, SessionStart", start_ms);
  Report("context --hook-stdin, UserPromptSubmit", prompt_ms);
  Report("hook capture, Stop after one appended turn", capture_ms);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
