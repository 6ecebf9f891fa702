// In-process dispatch of a trivial tool: JSON-RPC object in, response object out, through
// the real Dispatcher and Runtime (schema validation, call event), no transport.
#include <benchmark/benchmark.h>

#include <random>

#include "mcp/dispatcher.hpp"
#include "runtime.hpp"

namespace {

struct Fixture {
  std::filesystem::path dir;
  std::unique_ptr<kioku::host::Runtime> runtime;
  std::unique_ptr<kioku::host::mcp::Dispatcher> dispatcher;
  kioku::host::mcp::Session session;

  Fixture() {
    dir = std::filesystem::temp_directory_path() / ("kioku-bench-" + std::to_string(std::random_device{}()));
    kioku::host::RuntimeOptions options;
    options.data_dir = dir;
    runtime = std::make_unique<kioku::host::Runtime>(options);
    runtime->LoadPlugin("fixture", std::filesystem::path(KIOKU_FIXTURE_PLUGIN_DIR) / "kioku-fixture.so");
    runtime->Start();
    dispatcher = std::make_unique<kioku::host::mcp::Dispatcher>(*runtime, kioku::host::mcp::DispatcherOptions{});
    session.id = "bench";
  }
  ~Fixture() {
    dispatcher.reset();
    runtime.reset();
    std::filesystem::remove_all(dir);
  }
};

void BM_DispatchTrivialTool(benchmark::State& state) {
  Fixture f;
  const auto request = nlohmann::json::parse(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_bytes","arguments":{}}})");
  for (auto _ : state) {
    auto response = f.dispatcher->Handle(request, f.session);
    benchmark::DoNotOptimize(response);
  }
}
BENCHMARK(BM_DispatchTrivialTool);

void BM_DispatchTextRoundTrip(benchmark::State& state) {
  Fixture f;
  const std::string request =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_bytes","arguments":{}}})";
  for (auto _ : state) {
    auto response = f.dispatcher->HandleText(request, f.session);
    benchmark::DoNotOptimize(response);
  }
}
BENCHMARK(BM_DispatchTextRoundTrip);

void BM_ToolsList(benchmark::State& state) {
  Fixture f;
  const auto request = nlohmann::json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  for (auto _ : state) {
    auto response = f.dispatcher->Handle(request, f.session);
    benchmark::DoNotOptimize(response);
  }
}
BENCHMARK(BM_ToolsList);

}  // namespace

BENCHMARK_MAIN();
