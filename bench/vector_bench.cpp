// Driver: vector search latency, exact vs HNSW (sdk::VectorIndex), at several store sizes
// and dimensions, with HNSW's recall@10 against exact search.
//
//   vector_bench [--sizes 10000,100000,1000000] [--dims 384,768] [--queries 50]
//                [--data clustered|gaussian] [--exact-only] [--ef-construction 100]
//
// Data: "clustered" (default) draws n/100 Gaussian centres and each vector as a centre plus
// Gaussian noise of 0.6x its scale, as embeddings of related texts cluster; "gaussian" is
// i.i.d. noise, the worst case for HNSW (neighbours barely closer than anything else).
// Queries come from the same distribution. One thread; wall clock per query (k = 10).
// --exact-only skips the graph (for sizes whose build takes too long on the machine).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kioku/sdk/vectors.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<int> ParseList(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoi(item));
  return out;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{10000, 100000, 1000000};
  std::vector<int> dims{384, 768};
  int queries = 50;
  int ef_construction = 100;
  bool clustered = true;
  bool exact_only = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--sizes") sizes = ParseList(argv[i + 1]);
    else if (a == "--dims") dims = ParseList(argv[i + 1]);
    else if (a == "--queries") queries = std::stoi(argv[i + 1]);
    else if (a == "--ef-construction") ef_construction = std::stoi(argv[i + 1]);
    else if (a == "--data") clustered = std::string(argv[i + 1]) != "gaussian";
  }
  for (int i = 1; i < argc; ++i) exact_only = exact_only || std::string(argv[i]) == "--exact-only";
  std::printf("%9s %5s %12s %12s %12s %10s\n", "vectors", "dim", "exact ms/q", "hnsw ms/q", "build s", "recall@10");
  for (int dim : dims) {
    for (int n : sizes) {
      std::mt19937 rng(42);
      std::normal_distribution<float> g(0, 1);
      kioku::sdk::VectorIndexOptions options;
      // The n-th Add builds the graph from all n vectors at once.
      options.exact_below = exact_only ? static_cast<std::size_t>(n) + 1 : static_cast<std::size_t>(n);
      options.hnsw_ef_construction = ef_construction;
      kioku::sdk::VectorIndex index(dim, options);
      std::vector<float> v(static_cast<std::size_t>(dim));
      const int n_centres = std::max(1, n / 100);
      std::vector<std::vector<float>> centres(static_cast<std::size_t>(clustered ? n_centres : 0),
                                              std::vector<float>(static_cast<std::size_t>(dim)));
      for (auto& c : centres) {
        for (float& x : c) x = g(rng);
      }
      std::uniform_int_distribution<int> pick(0, n_centres - 1);
      const auto draw = [&](std::vector<float>& out) {
        if (!clustered) {
          for (float& x : out) x = g(rng);
          return;
        }
        const auto& c = centres[static_cast<std::size_t>(pick(rng))];
        for (std::size_t d = 0; d < out.size(); ++d) out[d] = c[d] + 0.6f * g(rng);
      };
      const auto t0 = Clock::now();
      Clock::time_point graph_start = t0;
      for (int i = 0; i < n; ++i) {
        draw(v);
        if (i == n - 1) graph_start = Clock::now();
        index.Add(i + 1, v);
      }
      const double build_s = exact_only ? 0.0 : Ms(Clock::now() - graph_start) / 1000.0;
      std::vector<std::vector<float>> qs(static_cast<std::size_t>(queries), std::vector<float>(static_cast<std::size_t>(dim)));
      for (auto& q : qs) draw(q);
      std::vector<std::set<std::int64_t>> truth;
      const auto e0 = Clock::now();
      for (const auto& q : qs) {
        std::set<std::int64_t> t;
        for (const auto& h : index.SearchExact(q, 10)) t.insert(h.label);
        truth.push_back(std::move(t));
      }
      const double exact_ms = Ms(Clock::now() - e0) / queries;
      int found = 0;
      const auto h0 = Clock::now();
      std::vector<std::vector<kioku::sdk::VectorHit>> got;
      for (const auto& q : qs) got.push_back(index.Search(q, 10));
      const double hnsw_ms = Ms(Clock::now() - h0) / queries;
      for (std::size_t i = 0; i < got.size(); ++i) {
        for (const auto& h : got[i]) found += truth[i].count(h.label) > 0;
      }
      std::printf("%9d %5d %12.3f %12.3f %12.1f %10.3f\n", n, dim, exact_ms, hnsw_ms, build_s,
                  found / (10.0 * queries));
      std::fflush(stdout);
    }
  }
  return 0;
}
