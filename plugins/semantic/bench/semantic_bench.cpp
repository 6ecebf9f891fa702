// Semantic layer benchmarks: recall latency, batch write throughput and database size at
// 1k / 10k / 100k generated memories (single process, file database in WAL mode).
//
//   semantic_bench --benchmark_filter=Recall     (p50/p95 per call in the counters)
//
// Recall is measured twice: the core path (candidate lists, fusion, scoring, row loads) and
// the whole tool call through Runtime::Call (schema validation, text rendering, the recall
// counter update in its own write transaction).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "memory_store.hpp"
#include "recall.hpp"
#include "schema.hpp"
#include "semantic_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku::semantic {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A Zipf-like vocabulary: 64 common technical words plus 20,000 rare tokens, so query terms
// hit anywhere from most rows to a handful; file paths and identifiers come from a bounded
// set of 3,000 each (a project keeps mentioning the same files), also Zipf-distributed.
class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {
    const char* common[] = {
        "build",  "test",    "deploy", "config", "cache",   "database", "api",     "auth",
        "token",  "session", "user",   "error",  "log",     "service",  "client",  "server",
        "route",  "schema",  "query",  "index",  "release", "branch",   "commit",  "review",
        "lint",   "format",  "docker", "redis",  "postgres", "queue",   "worker",  "job",
        "email",  "upload",  "image",  "file",   "path",    "module",   "package", "version",
        "flag",   "feature", "bug",    "fix",    "flaky",   "timeout",  "retry",   "limit",
        "memory", "leak",    "thread", "lock",   "migration", "seed",   "fixture", "mock",
        "frontend", "backend", "mobile", "browser", "state", "store",   "hook",    "component"};
    for (const char* w : common) words_.emplace_back(w);
    for (int i = 0; i < 20000; ++i) words_.push_back("term" + std::to_string(i));
    // A project has a bounded set of files and identifiers that memories keep mentioning.
    for (int i = 0; i < 3000; ++i) {
      paths_.push_back("src/" + words_[(i * 7) % 800] + "/" + words_[(i * 13) % 5000] + ".ts");
      idents_.push_back(words_[(i * 11) % 900] + "_" + words_[(i * 17) % 4000]);
    }
  }

  // Zipf(s≈1) index in [0, n).
  std::size_t Zipf(std::size_t n) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double x = std::exp(u(rng_) * std::log(static_cast<double>(n)));
    return std::min(n - 1, static_cast<std::size_t>(x) - 1);
  }

  // Zipf(s≈1) over the vocabulary by inverse transform on a log scale.
  std::string Word() { return words_[Zipf(words_.size())]; }

  std::string Text() {
    std::uniform_int_distribution<int> len(8, 24);
    std::uniform_int_distribution<int> coin(0, 9);
    std::string t;
    const int n = len(rng_);
    for (int i = 0; i < n; ++i) {
      if (!t.empty()) t.push_back(' ');
      const int c = coin(rng_);
      if (c == 0) {
        t += paths_[Zipf(paths_.size())];
      } else if (c == 1) {
        t += idents_[Zipf(idents_.size())];
      } else {
        t += Word();
      }
    }
    return t;
  }

  std::string Query() {
    std::uniform_int_distribution<int> len(1, 3);
    std::string q;
    for (int i = 0, n = len(rng_); i < n; ++i) q += (q.empty() ? "" : " ") + Word();
    return q;
  }

  std::mt19937& Rng() { return rng_; }

 private:
  std::mt19937 rng_;
  std::vector<std::string> words_;
  std::vector<std::string> paths_;
  std::vector<std::string> idents_;
};

const char* kKinds[] = {"fact", "decision", "preference", "correction",
                        "lesson", "todo", "event", "observation"};

MemoryDraft Draft(Generator& g, int i) {
  MemoryDraft d;
  d.text = g.Text() + " #" + std::to_string(i);
  d.kind = kKinds[i % 8];
  d.importance = 1 + i % 10;
  d.scope.kind = i % 5 == 0 ? "global" : "project";
  d.scope.project_id = i % 5 == 0 ? "" : "/bench/project";
  if (i % 7 == 0) {
    d.subject = "subject-" + std::to_string(i % 500);
    d.value = "v" + std::to_string(i);
  }
  return d;
}

struct Store {
  fs::path dir;
  std::unique_ptr<SQLite::Database> db;
  std::unique_ptr<sdk::StatementCache> statements = std::make_unique<sdk::StatementCache>();
  std::unique_ptr<sdk::ManualClock> clock;
  Settings settings;
  double write_seconds = 0;
  double write_cpu_seconds = 0;
  std::int64_t bytes = 0;
  int n = 0;

  Env MakeEnv() { return Env{*db, *clock, settings, *statements}; }
  ~Store() {
    statements.reset();
    db.reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// Writes n memories in batches of 100 (one transaction each), timing only the writes.
std::unique_ptr<Store> Build(int n) {
  auto s = std::make_unique<Store>();
  s->n = n;
  s->dir = fs::temp_directory_path() / ("kioku-sem-bench-" + std::to_string(n) + "-" +
                                         std::to_string(std::random_device{}()));
  fs::create_directories(s->dir);
  s->db = std::make_unique<SQLite::Database>(sdk::OpenDatabase((s->dir / "kioku.db").string()));
  ApplyMigrations(*s->db);
  const std::int64_t now = 1'780'272'000'000;
  s->clock = std::make_unique<sdk::ManualClock>(now - 365 * sdk::kMsPerDay);
  Generator g(42);
  Env env = s->MakeEnv();
  const std::int64_t step = 365 * sdk::kMsPerDay / n;
  const auto t0 = Clock::now();
  const std::clock_t c0 = std::clock();
  for (int base = 0; base < n; base += 100) {
    std::vector<MemoryDraft> batch;
    for (int i = base; i < std::min(n, base + 100); ++i) batch.push_back(Draft(g, i));
    WithMemoryWriter(env, [&](MemoryWriter& w) {
      for (const MemoryDraft& d : batch) {
        s->clock->Advance(step);
        w.Remember(d, Author{"bench", "bench"});
      }
    });
  }
  s->write_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  s->write_cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  s->db->exec("PRAGMA wal_checkpoint(TRUNCATE)");
  s->bytes = static_cast<std::int64_t>(fs::file_size(s->dir / "kioku.db"));
  s->clock->Set(now);
  return s;
}

Store& Get(int n) {
  static std::map<int, std::unique_ptr<Store>> stores;
  auto& s = stores[n];
  if (!s) s = Build(n);
  return *s;
}

void Percentiles(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  state.counters["p50_us"] = us[us.size() / 2];
  state.counters["p95_us"] = us[us.size() * 95 / 100];
}

void BM_RecallCore(benchmark::State& state) {
  Store& s = Get(static_cast<int>(state.range(0)));
  Env env = s.MakeEnv();
  Generator g(7);
  std::vector<double> us;
  std::size_t found = 0;
  for (auto _ : state) {
    RecallRequest r;
    r.query = g.Query();
    r.limit = 10;
    const auto t0 = Clock::now();
    RecallOutcome out = Recall(env, r, Viewer{"/bench/project", ""});
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    found += out.memories.size();
    benchmark::DoNotOptimize(out);
  }
  Percentiles(state, us);
  state.counters["results_avg"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}

void BM_RecallEmptyQuery(benchmark::State& state) {
  Store& s = Get(static_cast<int>(state.range(0)));
  Env env = s.MakeEnv();
  std::vector<double> us;
  for (auto _ : state) {
    RecallRequest r;
    r.limit = 10;
    const auto t0 = Clock::now();
    RecallOutcome out = Recall(env, r, Viewer{"/bench/project", ""});
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    benchmark::DoNotOptimize(out);
  }
  Percentiles(state, us);
}

void BM_WriteBatch(benchmark::State& state) {
  // Throughput of the writes that built the store (batches of 100, one transaction each).
  Store& s = Get(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(s.n);
  state.counters["memories_per_s"] = s.n / s.write_seconds;
  state.counters["memories_per_cpu_s"] = s.n / s.write_cpu_seconds;
  state.counters["db_bytes_per_memory"] = static_cast<double>(s.bytes) / s.n;
}

// Whole tool path through the hermetic runtime (validation, secrets screening, rendering).
void BM_RecallTool(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  static std::map<int, std::unique_ptr<testing::TestRuntime>> runtimes;
  auto& rt = runtimes[n];
  if (!rt) {
    rt = std::make_unique<testing::TestRuntime>();
    rt->Add<SemanticPlugin>("semantic");
    rt->Start();
    Generator g(42);
    for (int base = 0; base < n; base += 100) {
      nlohmann::json batch = nlohmann::json::array();
      for (int i = base; i < std::min(n, base + 100); ++i) {
        const MemoryDraft d = Draft(g, i);
        batch.push_back({{"text", d.text}, {"kind", d.kind}, {"importance", d.importance}});
      }
      rt->Call("memory_remember", {{"memories", batch}});
    }
  }
  Generator g(7);
  std::vector<double> us;
  for (auto _ : state) {
    const std::string q = g.Query();
    const auto t0 = Clock::now();
    sdk::ToolResult r = rt->Call("memory_recall", {{"query", q}});
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    benchmark::DoNotOptimize(r);
  }
  Percentiles(state, us);
}

void BM_RememberToolBatch(benchmark::State& state) {
  // memory_remember with 100 memories per call through Runtime::Call.
  testing::TestRuntime rt;
  rt.Add<SemanticPlugin>("semantic");
  rt.Start();
  Generator g(99);
  int i = 0;
  for (auto _ : state) {
    nlohmann::json batch = nlohmann::json::array();
    for (int k = 0; k < 100; ++k, ++i) {
      const MemoryDraft d = Draft(g, i);
      batch.push_back({{"text", d.text}, {"kind", d.kind}, {"importance", d.importance}});
    }
    sdk::ToolResult r = rt.Call("memory_remember", {{"memories", batch}});
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * 100);
}

BENCHMARK(BM_WriteBatch)->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RecallCore)->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RecallEmptyQuery)->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(500)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RecallTool)->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RememberToolBatch)->Iterations(100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kioku::semantic

BENCHMARK_MAIN();
