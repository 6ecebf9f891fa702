// Benchmarks of the affective layer (Release build):
//   - record throughput, batched through feedback_record (1000 per call) and through the
//     store directly, and one-at-a-time through the tool.called capture path;
//   - feedback_route / feedback_query latency with 1,000,000 stored outcomes across 200
//     tools (4 agents, 90 days), generated into the database once at start-up;
//   - the hook command's in-process cost for one envelope.
// Per-call latencies are collected and reported as p50_ms / p95_ms counters.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "affective_plugin.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/events.hpp"
#include "store.hpp"
#include "test_runtime.hpp"

namespace kioku::affective {
namespace {

using nlohmann::json;

constexpr int kTools = 200;
constexpr int kAgents = 4;
constexpr int kDays = 90;
constexpr std::int64_t kRows = 1'000'000;

std::string ToolName(int i) { return "tool_" + std::to_string(1000 + i); }

struct World {
  kioku::testing::TestRuntime rt;
  World() {
    rt.Add<AffectivePlugin>("affective");
    rt.Start();
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int> tool(0, kTools - 1);
    std::uniform_int_distribution<int> agent(0, kAgents - 1);
    std::uniform_int_distribution<std::int64_t> age(0, kDays * sdk::kMsPerDay - 1);
    std::lognormal_distribution<double> latency(3.5, 1.2);
    std::uniform_real_distribution<double> unit(0, 1);
    const std::int64_t now = rt.clock->NowMs();
    auto& db = rt.Db();
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<OutcomeRecord> batch;
    for (std::int64_t done = 0; done < kRows;) {
      batch.clear();
      for (int i = 0; i < 10'000 && done < kRows; ++i, ++done) {
        OutcomeRecord r;
        const int t = tool(rng);
        r.tool = ToolName(t);
        const double p_success = 0.55 + 0.44 * (t % 10) / 9.0;
        const double u = unit(rng);
        r.outcome = u < p_success ? OutcomeKind::kSuccess
                    : u < p_success + 0.3 * (1 - p_success) ? OutcomeKind::kFailure
                                                            : OutcomeKind::kTimeout;
        r.latency_ms = latency(rng);
        r.agent_id = "agent-" + std::to_string(agent(rng));
        r.project_id = "/work/project";
        r.session_id = "session";
        if (r.outcome != OutcomeKind::kSuccess) r.error = "exit status 1";
        r.at_ms = now - age(rng);
        r.source = "bench";
        batch.push_back(std::move(r));
      }
      sdk::WithWriteTransaction(db, [&] { WriteOutcomes(db, batch, 14.0 * sdk::kMsPerDay); });
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto buckets = db.execAndGet("SELECT count(*) FROM affective_buckets").getInt64();
    const auto totals = db.execAndGet("SELECT count(*) FROM affective_totals").getInt64();
    std::fprintf(stderr,
                 "setup: %lld outcomes in %.1f s wall (%.0f rows/s, 10k per transaction), "
                 "%lld buckets, %lld totals\n",
                 static_cast<long long>(kRows), s, static_cast<double>(kRows) / s,
                 static_cast<long long>(buckets), static_cast<long long>(totals));
  }
};

World& TheWorld() {
  static World world;
  return world;
}

void ReportPercentiles(benchmark::State& state, std::vector<double>& ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["p95_ms"] = ms[std::min(ms.size() - 1, ms.size() * 95 / 100)];
}

template <class F>
void Timed(benchmark::State& state, F&& f) {
  std::vector<double> ms;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  ReportPercentiles(state, ms);
}

void CheckOk(const sdk::ToolResult& r) {
  if (r.is_error) {
    std::fprintf(stderr, "tool error: %s\n", r.text.c_str());
    std::abort();
  }
}

void BM_RouteAllTools(benchmark::State& state) {
  auto& w = TheWorld();
  Timed(state, [&] {
    auto r = w.rt.Call("feedback_route", {{"limit", 500}});
    CheckOk(r);
    benchmark::DoNotOptimize(r);
  });
}
BENCHMARK(BM_RouteAllTools)->Unit(benchmark::kMillisecond);

// A half-life other than the configured one: the day-bucket path (72,000 buckets).
void BM_RouteAllToolsOtherHalfLife(benchmark::State& state) {
  auto& w = TheWorld();
  Timed(state, [&] {
    auto r = w.rt.Call("feedback_route", {{"limit", 500}, {"half_life_days", 7}});
    CheckOk(r);
    benchmark::DoNotOptimize(r);
  });
}
BENCHMARK(BM_RouteAllToolsOtherHalfLife)->Unit(benchmark::kMillisecond);

void BM_RouteTenCandidates(benchmark::State& state) {
  auto& w = TheWorld();
  json tools = json::array();
  for (int i = 0; i < 10; ++i) tools.push_back(ToolName(i * 17));
  Timed(state, [&] {
    auto r = w.rt.Call("feedback_route", {{"tools", tools}});
    CheckOk(r);
    benchmark::DoNotOptimize(r);
  });
}
BENCHMARK(BM_RouteTenCandidates)->Unit(benchmark::kMillisecond);

void BM_RouteOneAgentAllTools(benchmark::State& state) {
  auto& w = TheWorld();
  Timed(state, [&] {
    auto r = w.rt.Call("feedback_route", {{"agent_id", "agent-1"}, {"limit", 500}});
    CheckOk(r);
    benchmark::DoNotOptimize(r);
  });
}
BENCHMARK(BM_RouteOneAgentAllTools)->Unit(benchmark::kMillisecond);

void BM_QueryAllTools(benchmark::State& state) {
  auto& w = TheWorld();
  Timed(state, [&] {
    auto r = w.rt.Call("feedback_query", {{"limit", 500}});
    CheckOk(r);
    benchmark::DoNotOptimize(r);
  });
}
BENCHMARK(BM_QueryAllTools)->Unit(benchmark::kMillisecond);

void BM_QueryOneToolLastWeek(benchmark::State& state) {
  auto& w = TheWorld();
  const std::string since = sdk::FormatRfc3339(w.rt.clock->NowMs() - 7 * sdk::kMsPerDay + 3'600'000);
  Timed(state, [&] {
    auto r = w.rt.Call("feedback_query", {{"tool_prefix", ToolName(42)}, {"since", since}});
    CheckOk(r);
    benchmark::DoNotOptimize(r);
  });
}
BENCHMARK(BM_QueryOneToolLastWeek)->Unit(benchmark::kMillisecond);

// feedback_record with 1000 records per call: JSON → schema validation → parse → one
// transaction with raw inserts and bucket upserts.
void BM_RecordBatch1000(benchmark::State& state) {
  auto& w = TheWorld();
  json records = json::array();
  for (int i = 0; i < 1000; ++i) {
    records.push_back({{"tool", ToolName(i % kTools)},
                       {"outcome", i % 7 == 0 ? "failure" : "success"},
                       {"latency_ms", 5 + i % 300},
                       {"agent_id", "agent-" + std::to_string(i % kAgents)}});
  }
  const json args = {{"records", records}};
  Timed(state, [&] { CheckOk(w.rt.Call("feedback_record", args)); });
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_RecordBatch1000)->Unit(benchmark::kMillisecond);

// The capture path: one tool.called event → one write transaction.
void BM_CaptureOneEvent(benchmark::State& state) {
  auto& w = TheWorld();
  sdk::ToolCallEvent e;
  e.tool = "memory_recall";
  e.plugin = "semantic";
  e.agent_id = "agent-0";
  e.outcome = "success";
  e.latency_ms = 3.2;
  const sdk::Event event{sdk::kToolCalledTopic, e.ToJson()};
  Timed(state, [&] {
    w.rt.runtime->Events().Publish(event);
  });
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CaptureOneEvent)->Unit(benchmark::kMicrosecond);

// `kioku hook post-tool-use` minus process start-up: read + parse envelope, one write.
void BM_HookEnvelope(benchmark::State& state) {
  auto& w = TheWorld();
  const sdk::CommandSpec* hook = nullptr;
  for (const auto& c : w.rt.runtime->Commands()) {
    if (c.name == "hook") hook = &c;
  }
  const std::string envelope = json{{"session_id", "s"},
                                    {"cwd", "/work/project"},
                                    {"hook_event_name", "PostToolUse"},
                                    {"tool_name", "Bash"},
                                    {"tool_input", {{"command", "npm test"}}},
                                    {"tool_response", {{"stdout", std::string(2000, 'x')},
                                                       {"stderr", ""},
                                                       {"interrupted", false}}},
                                    {"duration_ms", 1234}}
                                   .dump();
  Timed(state, [&] {
    std::istringstream in(envelope);
    std::ostringstream out, err;
    hook->run({"post-tool-use"}, in, out, err);
  });
}
BENCHMARK(BM_HookEnvelope)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kioku::affective

BENCHMARK_MAIN();
