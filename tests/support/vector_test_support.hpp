#pragma once
/// @file vector_test_support.hpp
/// What a layer's vector tests share (with fake_openai_server.hpp and test_runtime.hpp):
/// an embedder pointed at the fake server, a process restart on the same database, the
/// in-process `kioku embed`, a made-up word whose fake vector is near a text, and the
/// fixture a layer's vector tests derive from.

#include <functional>
#include <memory>
#include <sstream>

#include <SQLiteCpp/Statement.h>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "config.hpp"
#include "fake_openai_server.hpp"
#include "kioku/sdk/vectors.hpp"
#include "providers/openai_embedder.hpp"
#include "test_runtime.hpp"

namespace kioku::testing {

/// An embedder of `model` at `server`: 1 s read timeout, no retries, circuit open after two
/// failures for a minute (host clock `clock`).
inline std::shared_ptr<sdk::Embedder> FakeServerEmbedder(const FakeOpenAiServer& server, const std::string& model,
                                                         std::shared_ptr<sdk::ManualClock> clock) {
  host::EmbeddingConfig c;
  c.url = server.Url();
  c.model = model;
  c.timeout_ms = 1000;
  c.connect_timeout_ms = 500;
  c.max_retries = 0;
  c.backoff_ms = 0;
  c.breaker_failures = 2;
  c.breaker_cooldown_ms = 60000;
  return host::providers::MakeOpenAiEmbedder(c, std::move(clock));
}

/// Replaces rt.runtime by a new one on the same folder and database (a process restart)
/// with `embedder` (may be null), lets `add` add the plugins, and starts it.
inline void RestartWithEmbedder(TestRuntime& rt, std::shared_ptr<sdk::Embedder> embedder,
                                const std::function<void(TestRuntime&)>& add) {
  rt.runtime.reset();
  host::RuntimeOptions o;
  o.data_dir = rt.dir;
  o.clock = rt.clock;
  o.embedder = std::move(embedder);
  rt.runtime = std::make_unique<host::Runtime>(o);
  add(rt);
  rt.Start();
}

/// Runs `kioku embed ARGS` in process, every plugin's command of that name in turn as the
/// CLI does; returns {highest exit code, stdout + stderr}.
inline std::pair<int, std::string> RunEmbed(host::Runtime& runtime, const std::vector<std::string>& args = {}) {
  int code = -1;
  std::string text;
  for (const auto& c : runtime.Commands()) {
    if (c.name != "embed") continue;
    std::istringstream in;
    std::ostringstream out, err;
    code = std::max(code, c.run(args, in, out, err));
    text += out.str() + err.str();
  }
  if (code < 0) ADD_FAILURE() << "no embed command";
  return {code, text};
}

/// Of the made-up words zq0 … zq1999 (held by no text index), the one whose fake vector
/// (FakeOpenAiServer::VectorFor, `dim` values) has the highest cosine to `text`'s, and
/// that cosine.
inline std::pair<std::string, float> NearestMadeUpWord(const std::string& text, int dim) {
  std::vector<float> target = FakeOpenAiServer::VectorFor(text, dim);
  sdk::Normalize(target);
  std::pair<std::string, float> best{"", 0.0f};
  for (int i = 0; i < 2000; ++i) {
    const std::string word = "zq" + std::to_string(i);
    std::vector<float> v = FakeOpenAiServer::VectorFor(word, dim);
    sdk::Normalize(v);
    if (const float s = sdk::Dot(v, target); s > best.second) best = {word, s};
  }
  return best;
}

/// Fixture of one layer's vector tests: the fake server (kDim values per vector), a
/// runtime that `Restart` brings up with `Plugin` under `name` and `settings` (the worker
/// waits an hour unless a test lowers start_delay_ms), a scalar query and `kioku embed`.
template <class Plugin>
class LayerVectorsTest : public ::testing::Test {
 protected:
  static constexpr int kDim = 32;
  explicit LayerVectorsTest(std::string name) : name_(std::move(name)) {}

  FakeOpenAiServer server{kDim};
  std::unique_ptr<TestRuntime> rt = std::make_unique<TestRuntime>();
  nlohmann::json settings = {{"vectors", {{"start_delay_ms", 3600000}, {"poll_ms", 10}, {"min_score", 0.1}}}};

  std::shared_ptr<sdk::Embedder> MakeEmbedder(const std::string& model = "fake-embed") {
    return FakeServerEmbedder(server, model, rt->clock);
  }
  // (Re)starts the runtime on the same directory and database: a process restart.
  void Restart(std::shared_ptr<sdk::Embedder> embedder) {
    RestartWithEmbedder(*rt, std::move(embedder), [&](TestRuntime& r) { r.Add<Plugin>(name_, settings); });
  }
  int Count(const std::string& sql) {
    SQLite::Statement q(rt->Db(), sql);
    q.executeStep();
    return q.getColumn(0).getInt();
  }
  std::pair<int, std::string> Embed(std::vector<std::string> args = {}) { return RunEmbed(*rt->runtime, args); }

 private:
  std::string name_;
};

}  // namespace kioku::testing
