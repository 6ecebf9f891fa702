// file_claim / file_release throughput and latency with N concurrent clients (threads, each
// with its own SQLite connection from the host) on one WAL database file, through the real
// host call path (schema validation, handler, output-schema check, call event).
//
//   disjoint:  every client claims then releases its own fresh path (no conflicts: measures
//              the write path and lock hand-off between connections).
//   contended: every client claims a random path out of 16 shared ones, releasing it when
//              acquired (conflicts are normal results, not errors).
// Counters: ops_per_s (claims + releases per wall second), claim/release p50 and p99 in µs,
// errors (isError results; must stay 0 — no 'database is locked' reaches a client).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "test_runtime.hpp"
#include "working_plugin.hpp"

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kOpsPerClient = 250;  // claim+release pairs per client per iteration

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void RunClaims(benchmark::State& state, bool contended) {
  const int clients = static_cast<int>(state.range(0));
  kioku::testing::TestRuntime rt;
  rt.Add<kioku::working::WorkingPlugin>("working");
  rt.Start();
  std::vector<double> claim_us;
  std::vector<double> release_us;
  std::atomic<long> errors{0};
  long ops = 0;
  double seconds = 0;
  int iteration = 0;
  for (auto _ : state) {
    std::vector<std::vector<double>> c_lat(clients), r_lat(clients);
    std::barrier go(clients + 1);
    std::vector<std::thread> threads;
    std::atomic<long> iter_ops{0};
    for (int t = 0; t < clients; ++t) {
      threads.emplace_back([&, t] {
        auto caller = kioku::testing::TestRuntime::DefaultCaller();
        caller.agent_id = "bench-" + std::to_string(t);
        std::mt19937 rng(static_cast<unsigned>(t * 7919 + iteration));
        rt.Call("presence_ping", Json::object(), caller);  // opens this thread's connection
        go.arrive_and_wait();
        for (int i = 0; i < kOpsPerClient; ++i) {
          const std::string path =
              contended ? "shared/" + std::to_string(rng() % 16)
                        : "it" + std::to_string(iteration) + "/c" + std::to_string(t) + "/f" +
                              std::to_string(i);
          auto t0 = Clock::now();
          auto r = rt.Call("file_claim", {{"paths", {path}}, {"intent", "bench"}}, caller);
          auto t1 = Clock::now();
          c_lat[t].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
          iter_ops.fetch_add(1);
          if (r.is_error) {
            errors.fetch_add(1);
            continue;
          }
          if (!r.structured["acquired"].get<bool>()) continue;
          t0 = Clock::now();
          auto rel = rt.Call("file_release", {{"paths", {path}}}, caller);
          t1 = Clock::now();
          r_lat[t].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
          iter_ops.fetch_add(1);
          if (rel.is_error) errors.fetch_add(1);
        }
      });
    }
    go.arrive_and_wait();
    const auto start = Clock::now();
    for (auto& th : threads) th.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    ops += iter_ops.load();
    for (int t = 0; t < clients; ++t) {
      claim_us.insert(claim_us.end(), c_lat[t].begin(), c_lat[t].end());
      release_us.insert(release_us.end(), r_lat[t].begin(), r_lat[t].end());
    }
    ++iteration;
  }
  state.counters["ops_per_s"] = seconds > 0 ? static_cast<double>(ops) / seconds : 0;
  state.counters["claim_p50_us"] = Percentile(claim_us, 0.50);
  state.counters["claim_p99_us"] = Percentile(claim_us, 0.99);
  state.counters["release_p50_us"] = Percentile(release_us, 0.50);
  state.counters["release_p99_us"] = Percentile(release_us, 0.99);
  state.counters["errors"] = static_cast<double>(errors.load());
}

void BM_FileClaimReleaseDisjoint(benchmark::State& state) { RunClaims(state, false); }
void BM_FileClaimReleaseContended(benchmark::State& state) { RunClaims(state, true); }

}  // namespace

BENCHMARK(BM_FileClaimReleaseDisjoint)
    ->Arg(1)
    ->Arg(8)
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FileClaimReleaseContended)
    ->Arg(8)
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
