// Driver: vector search latency, exact vs HNSW (sdk::VectorIndex), at several store sizes
// and dimensions, with HNSW's recall@10 against exact search.
//
//   vector_bench [--sizes 10000,100000,1000000] [--dims 384,768] [--queries 50]
//
// Data: i.i.d. Gaussian vectors (normalized by the index) — the hardest case for HNSW, as
// real embeddings cluster. One thread; times are wall clock per query (k = 10).
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--sizes") sizes = ParseList(argv[i + 1]);
    else if (a == "--dims") dims = ParseList(argv[i + 1]);
    else if (a == "--queries") queries = std::stoi(argv[i + 1]);
    else if (a == "--ef-construction") ef_construction = std::stoi(argv[i + 1]);
  }
  std::printf("%9s %5s %12s %12s %12s %10s\n", "vectors", "dim", "exact ms/q", "hnsw ms/q", "build s", "recall@10");
  for (int dim : dims) {
    for (int n : sizes) {
      std::mt19937 rng(42);
      std::normal_distribution<float> g(0, 1);
      kioku::sdk::VectorIndexOptions options;
      options.exact_below = static_cast<std::size_t>(n);  // the n-th Add builds the graph
      options.hnsw_ef_construction = ef_construction;
      kioku::sdk::VectorIndex index(dim, options);
      std::vector<float> v(static_cast<std::size_t>(dim));
      const auto t0 = Clock::now();
      Clock::time_point graph_start = t0;
      for (int i = 0; i < n; ++i) {
        for (float& x : v) x = g(rng);
        if (i == n - 1) graph_start = Clock::now();
        index.Add(i + 1, v);
      }
      const double build_s = Ms(Clock::now() - graph_start) / 1000.0;
      std::vector<std::vector<float>> qs(static_cast<std::size_t>(queries), std::vector<float>(static_cast<std::size_t>(dim)));
      for (auto& q : qs) {
        for (float& x : q) x = g(rng);
      }
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
