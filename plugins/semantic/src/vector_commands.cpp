// `kioku embed`: backfill, re-embed, status and relevance-floor calibration.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <sstream>

#include "embed_worker.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/sql.hpp"
#include "tool_support.hpp"
#include "tools.hpp"
#include "vectors.hpp"

namespace kioku::semantic {
namespace {

double Quantile(std::vector<float> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string Fixed(double x) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(3);
  s << x;
  return s.str();
}

// Runs passes until the queue has nothing due or a pass makes no progress.
int Drain(ToolContext& ctx, SQLite::Database& db, std::ostream& out, std::ostream& err) {
  int stored = 0, rejected = 0, deduped = 0;
  for (;;) {
    const EmbedPass p = ctx.worker->RunOnce(db);
    stored += p.stored;
    rejected += p.rejected;
    deduped += p.deduped;
    if (!p.error.empty()) {
      err << "embed: " << p.error << "\n";
      out << "embedded " << stored << ", stopped: the endpoint failed (queued rows are retried by the server)\n";
      return 1;
    }
    if (p.idle || p.stored + p.rejected == 0) break;
  }
  const QueueCounts c = CountQueue(db);
  out << "embedded " << stored << (rejected ? ", refused " + std::to_string(rejected) + " invalid vectors" : "")
      << (deduped ? ", folded " + std::to_string(deduped) + " near-duplicates" : "") << "; " << c.queued
      << " still queued" << (c.last_error.empty() ? "" : " (last error: " + c.last_error + ")") << "\n";
  return rejected > 0 ? 1 : 0;
}

int Status(ToolContext& ctx, SQLite::Database& db, std::ostream& out) {
  sdk::Embedder* e = ctx.vectors->Embedder();
  out << "embedder: " << (e ? e->Model() + " at " + e->Endpoint() : "none (providers.embedding not configured)") << "\n";
  if (e) {
    const sdk::EmbedderHealth h = e->Health();
    if (h.circuit_open || !h.last_error.empty()) {
      out << "endpoint: " << (h.circuit_open ? "circuit open; " : "") << "last error: " << h.last_error << "\n";
    }
  }
  const auto store = ReadStoreModel(db);
  out << "store model: " << (store ? store->model + " (" + std::to_string(store->dim) + " dims)" : "none yet") << "\n";
  const auto [total, of_model] = CountVectors(db, store ? store->model : "");
  const QueueCounts c = CountQueue(db);
  out << "vectors: " << of_model << " of the store model, " << (total - of_model) << " of other models; queued "
      << c.queued << (c.failing ? " (" + std::to_string(c.failing) + " failing: " + c.last_error + ")" : "") << "\n";
  std::string status;
  const std::string why = ctx.vectors->Unusable(db, &status);
  if (why.empty()) {
    const auto [size, hnsw] = ctx.vectors->IndexState(db);
    out << "recall: hybrid (" << size << " vectors, " << (hnsw ? "HNSW" : "exact") << " search)\n";
  } else {
    out << "recall: " << status << ": " << why << "\n";
  }
  return 0;
}

// On-topic: a memory's own first half (about half of its words) as the query, scored
// against the memory's stored vector. Off-topic: the same query against random other
// memories. Suggested floor: halfway between the off-topic 95th percentile and the
// on-topic 10th percentile, so most real matches pass and most unrelated ones do not.
int Calibrate(ToolContext& ctx, SQLite::Database& db, int sample, std::ostream& out, std::ostream& err) {
  std::string status;
  if (const std::string why = ctx.vectors->Unusable(db, &status); !why.empty()) {
    err << "embed --calibrate: " << why << "\n";
    return 1;
  }
  const auto store = ReadStoreModel(db);
  SQLite::Statement q(db,
                      "SELECT m.seq, m.text FROM semantic_vectors v JOIN semantic_memories m ON m.seq = v.memory_seq "
                      "WHERE v.model = ? AND m.status <> 'superseded' ORDER BY random() LIMIT ?");
  sdk::Bind(q, store->model, sample);
  std::vector<std::pair<std::int64_t, std::string>> rows;
  while (q.executeStep()) rows.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getString());
  if (rows.size() < 10) {
    err << "embed --calibrate: needs at least 10 embedded memories, found " << rows.size() << "\n";
    return 1;
  }
  std::vector<std::string> queries;
  for (const auto& [seq, text] : rows) {
    std::istringstream words(text);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    std::string half;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, (w.size() + 1) / 2); ++i) half += (i ? " " : "") + w[i];
    queries.push_back(half);
  }
  const sdk::EmbedResult r = ctx.vectors->Embedder()->Embed(queries);
  if (!r.ok()) {
    err << "embed --calibrate: " << r.error << "\n";
    return 1;
  }
  std::vector<std::vector<float>> stored;
  for (const auto& [seq, text] : rows) stored.push_back(LoadVector(db, seq, store->model).value_or(std::vector<float>{}));
  std::vector<float> on, off;
  std::minstd_rand rng(42);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<float> qv = r.vectors[i];
    if (sdk::CheckVector(qv, store->dim) || stored[i].size() != qv.size()) continue;
    sdk::Normalize(qv);
    on.push_back(sdk::Dot(qv, stored[i]));
    for (int n = 0; n < 5; ++n) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng);
      if (j == i || stored[j].size() != qv.size()) continue;
      off.push_back(sdk::Dot(qv, stored[j]));
    }
  }
  const double on10 = Quantile(on, 0.10), off95 = Quantile(off, 0.95);
  const double suggested = std::clamp((on10 + off95) / 2, -1.0, 1.0);
  out << "on-topic  (" << on.size() << "): p10 " << Fixed(on10) << "  p50 " << Fixed(Quantile(on, 0.5)) << "  p90 "
      << Fixed(Quantile(on, 0.9)) << "\n";
  out << "off-topic (" << off.size() << "): p50 " << Fixed(Quantile(off, 0.5)) << "  p90 " << Fixed(Quantile(off, 0.9))
      << "  p95 " << Fixed(off95) << "\n";
  out << "suggested semantic.vectors.min_score: " << Fixed(suggested) << " (now " << Fixed(ctx.settings.vectors.min_score)
      << ")" << (on10 <= off95 ? "; the distributions overlap: the model separates topics poorly" : "") << "\n";
  return 0;
}

}  // namespace

sdk::CommandSpec EmbedCommand(ToolContext& ctx) {
  sdk::CommandSpec cmd;
  cmd.name = "embed";
  cmd.summary = "Embed queued memories now; --all re-embeds everything (after a model change)";
  cmd.usage =
      "kioku embed [--all | --status | --calibrate [N]]\n"
      "  (none)       embed every queued memory now (the server does this in the background)\n"
      "  --all        make the configured model the store's model and re-embed every memory\n"
      "  --status     embedder, store model, vector and queue counts, what recall will do\n"
      "  --calibrate  suggest semantic.vectors.min_score from on-topic vs off-topic cosine\n"
      "               scores on N (default 200) of your own memories\n"
      "Needs providers.embedding in the config (except --status).";
  cmd.run = [&ctx](const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) -> int {
    SQLite::Database& db = ctx.host.Db();
    const std::string mode = args.empty() ? "" : args[0];
    if (mode == "--status") return Status(ctx, db, out);
    if (!mode.empty() && mode != "--all" && mode != "--calibrate") {
      err << "embed: unknown argument '" << mode << "'; use --all, --status or --calibrate [N]\n";
      return 2;
    }
    sdk::Embedder* e = ctx.vectors->Embedder();
    if (e == nullptr) {
      err << "embed: no embedding provider configured; add providers.embedding {url, model} to the config\n";
      return 1;
    }
    if (mode == "--calibrate") {
      int n = 200;
      if (args.size() > 1) {
        try {
          n = std::clamp(std::stoi(args[1]), 10, 5000);
        } catch (const std::exception&) {
          err << "embed --calibrate: N must be a number (10..5000)\n";
          return 2;
        }
      }
      return Calibrate(ctx, db, n, out, err);
    }
    if (mode == "--all") {
      // Learn the dimension first when the config does not state it.
      int dim = e->Dimension();
      if (dim <= 0) {
        const sdk::EmbedResult probe = e->Embed({"kioku"});
        if (!probe.ok()) {
          err << "embed --all: " << probe.error << "\n";
          return 1;
        }
        dim = static_cast<int>(probe.vectors.front().size());
      }
      std::int64_t queued = 0;
      const std::int64_t now = ctx.host.GetClock().NowMs();
      sdk::WithWriteTransaction(db, [&] {
        WriteStoreModel(db, {e->Model(), dim}, now);
        queued = QueueAll(db, e->Model(), false, now);
      });
      ctx.vectors->Reset();
      out << "store model is now " << e->Model() << " (" << dim << " dims); queued " << queued << " memories\n";
    }
    return Drain(ctx, db, out, err);
  };
  return cmd;
}

}  // namespace kioku::semantic
