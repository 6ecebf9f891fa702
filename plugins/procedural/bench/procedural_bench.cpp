// plan_status on a 1,000-task plan and procedure_find over 10,000 procedures, through the
// real host call path (schema validation, handler, output-schema check, call event).
// Counters: p50_us / p99_us of one call, bytes of the compact text.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "kioku/sdk/db.hpp"
#include "procedural_plugin.hpp"
#include "procedure_ops.hpp"
#include "test_runtime.hpp"

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

template <class Fn>
void Measure(benchmark::State& state, Fn call) {
  std::vector<double> us;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const auto r = call();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (r.is_error) state.SkipWithError(r.text.c_str());
    bytes = r.text.size();
  }
  state.counters["p50_us"] = Percentile(us, 0.5);
  state.counters["p99_us"] = Percentile(us, 0.99);
  state.counters["text_bytes"] = static_cast<double>(bytes);
}

void BM_PlanStatus1000(benchmark::State& state) {
  kioku::testing::TestRuntime rt;
  rt.Add<kioku::procedural::ProceduralPlugin>("procedural");
  rt.Start();
  Json tasks = Json::array();
  for (int i = 1; i <= 1000; ++i) {
    Json t = {{"title", "task " + std::to_string(i) + " of the migration"}};
    if (i > 1) t["depends_on"] = {i - 1, std::max(1, i - 7)};
    if (i % 10 == 0) t["criteria"] = {"reviewed"};
    tasks.push_back(t);
  }
  const auto created = rt.Call("plan_create", {{"title", "big"}, {"tasks", tasks}});
  const std::string id = created.structured["plan_id"];
  for (int i = 1; i <= 400; ++i) {
    rt.Call("plan_check", {{"plan", id}, {"task", i}, {"state", "done"}});
  }
  rt.Call("plan_check", {{"plan", id}, {"task", 401}, {"block", "waiting for review"}});
  const Json args = state.range(0) == 1 ? Json{{"plan", id}, {"markdown", true}} : Json{{"plan", id}};
  Measure(state, [&] { return rt.Call("plan_status", args); });
}
BENCHMARK(BM_PlanStatus1000)->Arg(0)->Arg(1)->Iterations(300)->Unit(benchmark::kMicrosecond);

// Procedures over a vocabulary of `verbs` × `things` (range 0 and 1): 16 × 20 is a dense
// worst case where each query word occurs in about a third of all procedures; 64 × 96 is
// closer to a real team's set of chores.
void BM_ProcedureFind10k(benchmark::State& state) {
  kioku::testing::TestRuntime rt;
  rt.Add<kioku::procedural::ProceduralPlugin>("procedural");
  rt.Start();
  static const std::vector<std::string> kVerbRoots = {
      "deploy", "release", "migrate", "rollback", "bump", "test", "benchmark", "profile",
      "rotate", "backup", "restore", "upgrade", "audit", "index", "vacuum", "publish"};
  static const std::vector<std::string> kThingRoots = {
      "database", "staging", "production", "cache", "docs", "api", "schema", "package",
      "container", "certificates", "secrets", "search", "frontend", "worker",
      "cron", "flags", "dependencies", "changelog", "monorepo", "plugin"};
  auto expand = [](const std::vector<std::string>& roots, std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; out.size() < n; ++i) {
      out.push_back(roots[i % roots.size()] + (i < roots.size() ? "" : std::to_string(i / roots.size())));
    }
    return out;
  };
  const auto verbs = expand(kVerbRoots, static_cast<std::size_t>(state.range(0)));
  const auto things = expand(kThingRoots, static_cast<std::size_t>(state.range(1)));
  std::mt19937 rng(42);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  auto& db = rt.Db();
  kioku::procedural::Actor actor{"bench", "/tmp/project"};
  db.exec("BEGIN");
  for (int i = 0; i < 10000; ++i) {
    kioku::procedural::Procedure p;
    const std::string verb = pick(verbs), thing = pick(things);
    p.name = verb + "-" + thing + "-" + std::to_string(i);
    p.when = "when you need to " + verb + " the " + thing + " of " + pick(things);
    for (int s = 0; s < 5; ++s) p.steps.push_back({pick(verbs) + " " + pick(things), ""});
    p.tags = {verb, thing};
    p.project_id = i % 3 == 0 ? "" : "/tmp/project";
    kioku::procedural::SaveProcedure(db, p, actor, 1'767'225'600'000 + i);
  }
  db.exec("COMMIT");
  std::vector<std::string> queries;
  for (int i = 0; i < 50; ++i) queries.push_back("how do I " + pick(verbs) + " the " + pick(things));
  std::size_t q = 0;
  Measure(state, [&] { return rt.Call("procedure_find", {{"query", queries[q++ % queries.size()]}}); });
}
BENCHMARK(BM_ProcedureFind10k)->Args({16, 20})->Args({64, 96})->Iterations(300)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
