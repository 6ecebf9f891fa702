// Episodic benchmarks (Google Benchmark; run a Release build):
//   BM_IngestClaudeTranscript  ingest of a generated ~100 MB Claude Code transcript
//                              (MB/s and messages/s); the file is generated once in a temp
//                              dir, never committed.
//   BM_Recall*                 session_recall over 10,000 sessions (one summary each):
//                              p50/p95 latency per call, with a query and recency-only.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include <SQLiteCpp/Statement.h>

#include "episodic_plugin.hpp"
#include "ingest.hpp"
#include "kioku/sdk/db.hpp"
#include "store.hpp"
#include "test_runtime.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using kioku::testing::TestRuntime;

class BenchHost : public kioku::sdk::HostServices {
 public:
  explicit BenchHost(TestRuntime& rt) : rt_(rt) {}
  std::string_view PluginName() const override { return "episodic"; }
  SQLite::Database& Db() override { return rt_.Db(); }
  const kioku::sdk::Clock& GetClock() const override { return *rt_.clock; }
  kioku::sdk::Logger& Log() override { return log_; }
  const json& Settings() const override { return settings_; }
  kioku::sdk::EventBus& Events() override { return rt_.runtime->Events(); }
  kioku::sdk::ToolResult CallTool(std::string_view n, const json& a,
                                  const kioku::sdk::Caller& c) override {
    return rt_.runtime->CallTool(n, a, c);
  }
  bool HasTool(std::string_view n) const override { return rt_.runtime->FindTool(n) != nullptr; }
  fs::path DataDir() const override { return rt_.dir; }
  void DeferWrite(std::function<void(SQLite::Database&)> write) override { write(rt_.Db()); }

 private:
  struct NullLogger : kioku::sdk::Logger {
    void Log(kioku::sdk::LogLevel, std::string_view) override {}
  };
  TestRuntime& rt_;
  NullLogger log_;
  json settings_ = json::object();
};

struct Generated {
  fs::path path;
  std::uint64_t bytes = 0;
  std::int64_t messages = 0;
};

// A Claude Code transcript of `target` bytes: turns of a human prompt, assistant text,
// Read/Bash/Edit calls with realistic result sizes (file contents ~6 KB), 1 in 50 prompts
// carrying a durable statement, a new session every 500 turns.
const Generated& BigTranscript(std::uint64_t target = 100ull << 20) {
  static Generated g = [target] {
    Generated out;
    out.path = fs::temp_directory_path() / "kioku-episodic-bench-100mb.jsonl";
    std::mt19937 rng(42);
    std::ofstream o(out.path, std::ios::binary | std::ios::trunc);
    std::string file_body;
    for (int i = 0; i < 150; ++i) file_body += "  const value" + std::to_string(i) + " = compute(input, " + std::to_string(i) + ");\n";
    std::int64_t n = 0, turn = 0;
    auto ts = [&](std::int64_t k) {
      return kioku::sdk::FormatRfc3339(1'760'000'000'000 + k * 1000);
    };
    while (out.bytes < target) {
      const std::string sid = "bench-session-" + std::to_string(turn / 500);
      auto env = [&](const char* type, json message, json extra = json::object()) {
        json l = {{"parentUuid", nullptr}, {"isSidechain", false}, {"userType", "external"},
                  {"cwd", "/home/dev/shop"}, {"sessionId", sid}, {"version", "2.0.31"},
                  {"gitBranch", "main"}, {"type", type}, {"message", message},
                  {"uuid", "u-" + std::to_string(++n)}, {"timestamp", ts(n)}};
        l.update(extra);
        const std::string s = l.dump() + "\n";
        o << s;
        out.bytes += s.size();
      };
      std::string prompt = "Please fix the total computation in src/module" +
                           std::to_string(turn % 97) + ".ts, the tests fail for rounding.";
      if (turn % 50 == 0) prompt += " From now on run pnpm test before committing.";
      env("user", {{"role", "user"}, {"content", prompt}});
      ++out.messages;
      const std::string mid = "msg_" + std::to_string(turn);
      auto asst = [&](json block) {
        env("assistant", {{"model", "claude-sonnet-4-5"}, {"id", mid}, {"role", "assistant"},
                          {"content", json::array({block})}});
      };
      asst({{"type", "text"}, {"text", "Let me look at the module and run the tests."}});
      ++out.messages;
      const std::string file = "/home/dev/shop/src/module" + std::to_string(turn % 97) + ".ts";
      asst({{"type", "tool_use"}, {"id", "t-r" + std::to_string(turn)}, {"name", "Read"},
            {"input", {{"file_path", file}}}});
      env("user", {{"role", "user"}, {"content", json::array({{{"type", "tool_result"},
                                                              {"tool_use_id", "t-r" + std::to_string(turn)},
                                                              {"content", file_body}}})}},
          {{"toolUseResult", {{"type", "text"}, {"file", {{"filePath", file}, {"content", file_body}}}}}});
      asst({{"type", "tool_use"}, {"id", "t-b" + std::to_string(turn)}, {"name", "Bash"},
            {"input", {{"command", "pnpm test -- module"}}}});
      const bool fail = rng() % 4 == 0;
      json res = {{"type", "tool_result"}, {"tool_use_id", "t-b" + std::to_string(turn)},
                  {"content", fail ? "Exit code 1\n1 failed" : "Tests passed"}};
      if (fail) res["is_error"] = true;
      env("user", {{"role", "user"}, {"content", json::array({res})}});
      asst({{"type", "tool_use"}, {"id", "t-e" + std::to_string(turn)}, {"name", "Edit"},
            {"input", {{"file_path", file}, {"old_string", "a"}, {"new_string", "b"}}}});
      env("user", {{"role", "user"}, {"content", json::array({{{"type", "tool_result"},
                                                              {"tool_use_id", "t-e" + std::to_string(turn)},
                                                              {"content", "updated"}}})}});
      ++turn;
    }
    return out;
  }();
  return g;
}

void BM_IngestClaudeTranscript(benchmark::State& state) {
  const Generated& g = BigTranscript();
  std::int64_t messages = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto rt = std::make_unique<TestRuntime>();
    rt->Add<kioku::episodic::EpisodicPlugin>("episodic");
    rt->Start();
    BenchHost host(*rt);
    kioku::episodic::Settings settings;
    kioku::sdk::Caller caller;
    caller.agent_id = "bench";
    kioku::episodic::Ingester ingester(host, settings, caller);
    state.ResumeTiming();
    auto report = ingester.IngestFile(g.path);
    benchmark::DoNotOptimize(report);
    state.PauseTiming();
    if (!report.error.empty()) state.SkipWithError(report.error.c_str());
    messages = report.messages;
    rt.reset();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * g.bytes));
  state.counters["MB"] = static_cast<double>(g.bytes) / (1 << 20);
  state.counters["messages"] = static_cast<double>(messages);
  state.counters["messages_per_s"] =
      benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_IngestClaudeTranscript)->Unit(benchmark::kSecond)->Iterations(1)->Repetitions(3)->UseRealTime();

// 10,000 sessions, one summary each, words drawn from a fixed vocabulary.
TestRuntime& RecallRuntime() {
  static std::unique_ptr<TestRuntime> rt = [] {
    auto r = std::make_unique<TestRuntime>();
    r->Add<kioku::episodic::EpisodicPlugin>("episodic");
    r->Start();
    std::vector<std::string> vocab;
    for (const char* w : {"cart", "total", "rounding", "login", "race", "refresh", "token", "cursor",
                          "pagination", "plots", "booking", "overlap", "migration", "postgres",
                          "index", "deploy", "staging", "script", "pnpm", "tests", "flaky", "ci",
                          "docker", "cache", "redis", "queue", "worker", "cron", "rollup", "timezone",
                          "utc", "api", "endpoint", "schema", "validation", "error", "retry",
                          "timeout", "latency", "memory", "leak", "profile", "render", "hook",
                          "state", "reducer", "form", "upload", "s3", "auth"}) {
      vocab.emplace_back(w);
    }
    for (int i = 0; i < 500; ++i) vocab.push_back("term" + std::to_string(i));
    std::mt19937 rng(7);
    auto& db = r->Db();
    const std::int64_t base = 1'760'000'000'000;
    kioku::sdk::WithWriteTransaction(db, [&] {
      for (int i = 0; i < 10'000; ++i) {
        kioku::episodic::SessionSeed seed;
        seed.id = "s-" + std::to_string(i);
        seed.project = "/tmp/project";
        seed.started_at = base + i * 60'000LL;
        kioku::episodic::UpsertSession(db, seed, seed.started_at);
        kioku::episodic::Summary s;
        s.session_id = seed.id;
        for (int w = 0; w < 60; ++w) s.text += vocab[rng() % vocab.size()] + (w % 12 == 11 ? ". " : " ");
        s.token_count = static_cast<std::int64_t>(s.text.size() / 4);
        s.started_at = seed.started_at;
        s.ended_at = seed.started_at + 1'800'000;
        s.created_at = s.ended_at;
        s.model = "m";
        kioku::episodic::InsertSummary(db, s);
      }
    });
    return r;
  }();
  return *rt;
}

void RunRecall(benchmark::State& state, const json& args) {
  TestRuntime& rt = RecallRuntime();
  std::vector<double> ms;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = rt.Call("session_recall", args);
    const auto t1 = std::chrono::steady_clock::now();
    if (r.is_error) state.SkipWithError(r.text.c_str());
    benchmark::DoNotOptimize(r);
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    state.counters["p50_ms"] = ms[ms.size() / 2];
    state.counters["p95_ms"] = ms[std::min(ms.size() - 1, ms.size() * 95 / 100)];
  }
}

void BM_RecallQuery10k(benchmark::State& state) {
  RunRecall(state, {{"query", "login race token refresh"}});
}
BENCHMARK(BM_RecallQuery10k)->Unit(benchmark::kMillisecond)->Iterations(200);

void BM_RecallQueryWindow10k(benchmark::State& state) {
  RunRecall(state, {{"query", "cursor pagination"},
                    {"since", "2025-10-09T10:00:00Z"},
                    {"until", "2025-10-12T10:00:00Z"}});
}
BENCHMARK(BM_RecallQueryWindow10k)->Unit(benchmark::kMillisecond)->Iterations(200);

void BM_RecallRecency10k(benchmark::State& state) { RunRecall(state, json::object()); }
BENCHMARK(BM_RecallRecency10k)->Unit(benchmark::kMillisecond)->Iterations(200);

}  // namespace

BENCHMARK_MAIN();
