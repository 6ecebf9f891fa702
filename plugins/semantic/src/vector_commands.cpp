// `kioku embed`: backfill, re-embed, status and relevance-floor calibration.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <sstream>

#include "kioku/sdk/embed_worker.hpp"
#include "kioku/sdk/sql.hpp"
#include "tool_support.hpp"
#include "tools.hpp"

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
  const sdk::VectorStore& vs = ctx.vectors->Store();
  const auto store = vs.ReadStoreModel(db);
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
  const sdk::EmbedResult r = ctx.vectors->GetEmbedder()->Embed(queries);
  if (!r.ok()) {
    err << "embed --calibrate: " << r.error << "\n";
    return 1;
  }
  std::vector<std::vector<float>> stored;
  for (const auto& [seq, text] : rows) stored.push_back(vs.LoadVector(db, seq, store->model).value_or(std::vector<float>{}));
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
  cmd.name = sdk::kEmbedCommandName;
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
    const std::string mode = args.empty() ? "" : args[0];
    if (!mode.empty() && mode != "--all" && mode != "--status" && mode != "--calibrate") {
      err << "embed: unknown argument '" << mode << "'; use --all, --status or --calibrate [N]\n";
      return 2;
    }
    if (mode != "--calibrate") {
      return sdk::RunEmbedCommand(ctx.host, *ctx.vectors, *ctx.worker, "", args, out, err);
    }
    if (ctx.vectors->GetEmbedder() == nullptr) {
      err << "embed: no embedding provider configured; add providers.embedding {url, model} to the config\n";
      return 1;
    }
    int n = 200;
    if (args.size() > 1) {
      try {
        n = std::clamp(std::stoi(args[1]), 10, 5000);
      } catch (const std::exception&) {
        err << "embed --calibrate: N must be a number (10..5000)\n";
        return 2;
      }
    }
    return Calibrate(ctx, ctx.host.Db(), n, out, err);
  };
  return cmd;
}

}  // namespace kioku::semantic
