#include "kioku/sdk/embed_worker.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <ostream>
#include <sstream>
#include <string>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/vectors.hpp"

namespace kioku::sdk {
namespace {

constexpr std::int64_t kFirstRetryMs = 5000;
constexpr std::int64_t kMaxRetryMs = 3600 * 1000;

std::int64_t RetryAt(std::int64_t now, int attempts) {
  const int shift = std::min(attempts, 20);
  return now + std::min(kMaxRetryMs, kFirstRetryMs << shift);
}

}  // namespace

EmbedWorker::EmbedWorker(HostServices& host, LayerVectors& vectors, FirstVectorHook on_first)
    : host_(host), vectors_(vectors), on_first_(std::move(on_first)) {}

EmbedWorker::~EmbedWorker() { Stop(); }

void EmbedWorker::Start() {
  if (vectors_.GetEmbedder() == nullptr || thread_.joinable()) return;
  EnsureQueueing(host_.Db());
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void EmbedWorker::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EmbedWorker::Loop() {
  const VectorSettings& s = vectors_.Settings();
  {
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, std::chrono::milliseconds(s.start_delay_ms), [this] { return stop_; })) return;
  }
  for (;;) {
    EmbedPass pass;
    try {
      pass = RunOnce(host_.Db());
    } catch (const std::exception& e) {
      // A locked or broken database must not kill the thread; the next pass retries.
      host_.Log().Warn(std::string("embed worker: ") + e.what());
      pass.idle = true;
    }
    if (auto line = report_.After(pass, host_.GetClock().NowMs(), vectors_.Store().Tables().items)) {
      host_.Log().Log(line->level, line->text);
    }
    std::unique_lock lock(mu_);
    if (stop_) return;
    // Busy while there is work that succeeds; otherwise wait for new rows or backoff.
    if (pass.idle || !pass.error.empty()) {
      cv_.wait_for(lock, std::chrono::milliseconds(s.poll_ms), [this] { return stop_; });
      if (stop_) return;
    }
  }
}

std::optional<EmbedFailureReport::Line> EmbedFailureReport::After(const EmbedPass& pass, std::int64_t now_ms,
                                                                   const std::string& items) {
  if (pass.error.empty()) {
    if (!failing_ || pass.stored == 0) return std::nullopt;
    failing_ = false;
    return Line{LogLevel::kInfo,
                "embeddings: the endpoint works again (" + items + " embedded: " + std::to_string(pass.stored) + ")"};
  }
  if (failing_ && now_ms - warned_at_ < kRepeatMs) return std::nullopt;
  failing_ = true;
  warned_at_ = now_ms;
  return Line{LogLevel::kWarn, "embeddings: " + items + " not embedded (" + std::to_string(pass.failed) +
                                   " in this batch): " + pass.error +
                                   "; recall falls back to text search; retried in the background "
                                   "(kioku embed --status, kioku doctor --online)"};
}

void EmbedWorker::EnsureQueueing(SQLite::Database& db) {
  Embedder* embedder = vectors_.GetEmbedder();
  if (embedder == nullptr || queueing_) return;
  try {
    const std::int64_t queued = vectors_.Store().StartQueueing(db, embedder->Model(), host_.GetClock().NowMs());
    queueing_ = true;
    if (queued > 0) {
      host_.Log().Info("embeddings: queued " + std::to_string(queued) + " " + vectors_.Store().Tables().items +
                       " written before an embedder started");
    }
  } catch (const std::exception& e) {
    // A locked database: the worker's next pass tries again.
    host_.Log().Warn(std::string("embed worker: cannot start queueing: ") + e.what());
  }
}

EmbedPass EmbedWorker::RunOnce(SQLite::Database& db) {
  EmbedPass pass;
  Embedder* embedder = vectors_.GetEmbedder();
  const VectorStore& store = vectors_.Store();
  const std::int64_t now = host_.GetClock().NowMs();
  if (embedder == nullptr) {
    pass.idle = true;
    return pass;
  }
  EnsureQueueing(db);
  const std::vector<PendingEmbed> due = store.DuePending(db, now, vectors_.Settings().batch_size);
  if (due.empty()) {
    pass.idle = true;
    return pass;
  }
  std::vector<std::string> texts;
  texts.reserve(due.size());
  for (const PendingEmbed& p : due) texts.push_back(p.text);
  const EmbedResult r = embedder->Embed(texts);  // outside any transaction
  if (!r.ok() || r.vectors.size() != due.size()) {
    pass.error = r.ok() ? "embedder returned a wrong number of vectors" : r.error;
    pass.failed = static_cast<int>(due.size());
    if (r.circuit_open) return pass;  // not the rows' fault: leave them due
    WithWriteTransaction(db, [&] {
      for (const PendingEmbed& p : due) store.MarkFailed(db, p.seq, pass.error, RetryAt(now, p.attempts));
    });
    return pass;
  }
  const std::string model = embedder->Model();
  const auto recorded = store.ReadStoreModel(db);
  // The store's dimension binds every later vector of its model.
  const int want = recorded && recorded->model == model ? recorded->dim : embedder->Dimension();
  WithWriteTransaction(db, [&] {
    pass.stored = pass.rejected = pass.folded = 0;
    auto current = store.ReadStoreModel(db);
    for (std::size_t i = 0; i < due.size(); ++i) {
      std::vector<float> v = r.vectors[i];
      if (const auto bad = CheckVector(v, want)) {
        store.MarkFailed(db, due[i].seq, "embedder returned a vector that " + *bad + " (model " + model + ")",
                         RetryAt(now, due[i].attempts));
        ++pass.rejected;
        continue;
      }
      Normalize(v);
      const bool first = !store.HasAnyVector(db, due[i].seq);
      store.StoreVector(db, due[i].seq, due[i].ticket, model, v, now);
      ++pass.stored;
      if (!current) {
        current = StoreModel{model, static_cast<int>(v.size())};
        store.WriteStoreModel(db, *current, now);
      }
      if (first && on_first_ && current->model == model && on_first_(db, due[i].seq, v)) ++pass.folded;
    }
  });
  return pass;
}

namespace {

// Runs passes until the queue has nothing due or a pass makes no progress.
int Drain(LayerVectors& vectors, EmbedWorker& worker, SQLite::Database& db, const std::string& label,
          std::ostream& out, std::ostream& err) {
  int stored = 0, rejected = 0, folded = 0;
  for (;;) {
    const EmbedPass p = worker.RunOnce(db);
    stored += p.stored;
    rejected += p.rejected;
    folded += p.folded;
    if (!p.error.empty()) {
      err << label << "embed: " << p.error << "\n";
      out << label << "embedded " << stored
          << ", stopped: the endpoint failed (queued rows are retried by the server)\n";
      return 1;
    }
    if (p.idle || p.stored + p.rejected == 0) break;
  }
  const QueueCounts c = vectors.Store().CountQueue(db);
  out << label << "embedded " << stored
      << (rejected ? ", refused " + std::to_string(rejected) + " invalid vectors" : "")
      << (folded ? ", folded " + std::to_string(folded) + " near-duplicates" : "") << "; " << c.queued
      << " still queued" << (c.last_error.empty() ? "" : " (last error: " + c.last_error + ")") << "\n";
  return rejected > 0 ? 1 : 0;
}

int Status(LayerVectors& vectors, SQLite::Database& db, const std::string& label, std::ostream& out) {
  Embedder* e = vectors.GetEmbedder();
  out << label << "embedder: "
      << (e ? e->Model() + " at " + e->Endpoint() : "none (providers.embedding not configured)") << "\n";
  if (e) {
    const EmbedderHealth h = e->Health();
    if (h.circuit_open || !h.last_error.empty()) {
      out << label << "endpoint: " << (h.circuit_open ? "circuit open; " : "") << "last error: " << h.last_error
          << "\n";
    }
  }
  const VectorStore& s = vectors.Store();
  const auto store = s.ReadStoreModel(db);
  out << label << "store model: "
      << (store ? store->model + " (" + std::to_string(store->dim) + " dims)" : "none yet") << "\n";
  const auto [total, of_model] = s.CountVectors(db, store ? store->model : "");
  const QueueCounts c = s.CountQueue(db);
  out << label << "vectors: " << of_model << " of the store model, " << (total - of_model)
      << " of other models; queued " << c.queued
      << (c.failing ? " (" + std::to_string(c.failing) + " failing: " + c.last_error + ")" : "") << "\n";
  std::string status;
  const std::string why = vectors.Unusable(db, &status);
  if (why.empty() && e != nullptr && e->Health().circuit_open) {
    // Recall cannot embed its query until the circuit closes: text search only.
    out << label << "recall: degraded (text search only while the endpoint's circuit is open; `kioku doctor "
                    "--online` probes it and closes the circuit if it answers)\n";
  } else if (why.empty()) {
    const auto [size, hnsw] = vectors.IndexState(db);
    out << label << "recall: hybrid (" << size << " vectors, " << (hnsw ? "HNSW" : "exact") << " search)\n";
  } else {
    out << label << "recall: " << status << ": " << why << "\n";
  }
  return 0;
}

std::string Fixed(double x) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(3);
  s << x;
  return s.str();
}

}  // namespace

int RunCalibrateCommand(LayerVectors& vectors, SQLite::Database& db, const std::string& label, int sample,
                        std::ostream& out, std::ostream& err) {
  const Calibration c = vectors.Calibrate(db, sample);
  const VectorTables& t = vectors.Store().Tables();
  if (!c.error.empty()) {
    err << label << "embed --calibrate: " << c.error << "\n";
    return 1;
  }
  if (!c.Measured()) {
    out << label << "embed --calibrate: needs at least " << kMinCalibrationRows << " embedded " << t.items
        << ", found " << c.rows << "\n";
    return 0;
  }
  out << label << "on-topic  (" << c.on_topic.size() << "): p10 " << Fixed(c.on_p10) << "  p50 " << Fixed(c.on_p50)
      << "  p90 " << Fixed(c.on_p90) << "\n";
  out << label << "off-topic (" << c.off_topic.size() << "): p50 " << Fixed(c.off_p50) << "  p90 "
      << Fixed(c.off_p90) << "  p95 " << Fixed(c.off_p95) << "\n";
  out << label << "suggested " << t.prefix << ".vectors.min_score: " << Fixed(c.suggested) << " (now "
      << Fixed(vectors.Settings().min_score) << ")"
      << (c.Overlap() ? "; the distributions overlap: the model separates topics poorly" : "") << "\n";
  return 0;
}

int RunEmbedCommand(HostServices& host, LayerVectors& vectors, EmbedWorker& worker, const std::string& label,
                    const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SQLite::Database& db = host.Db();
  const std::string mode = args.empty() ? "" : args[0];
  if (mode == "--status") return Status(vectors, db, label, out);
  if (!mode.empty() && mode != "--all" && mode != "--calibrate") {
    err << label << "embed: unknown argument '" << mode << "'; use --all, --status or --calibrate [N]\n";
    return 2;
  }
  Embedder* e = vectors.GetEmbedder();
  if (e == nullptr) {
    err << label << "embed: no embedding provider configured; add providers.embedding {url, model} to the config\n";
    return 1;
  }
  if (mode == "--calibrate") {
    int n = 200;
    if (args.size() > 1) {
      try {
        n = std::clamp(std::stoi(args[1]), 10, 5000);
      } catch (const std::exception&) {
        err << label << "embed --calibrate: N must be a number (10..5000)\n";
        return 2;
      }
    }
    return RunCalibrateCommand(vectors, db, label, n, out, err);
  }
  if (mode == "--all") {
    // Learn the dimension first when the config does not state it.
    int dim = e->Dimension();
    if (dim <= 0) {
      const EmbedResult probe = e->Embed({"kioku"});
      if (!probe.ok()) {
        err << label << "embed --all: " << probe.error << "\n";
        return 1;
      }
      dim = static_cast<int>(probe.vectors.front().size());
    }
    std::int64_t queued = 0;
    const std::int64_t now = host.GetClock().NowMs();
    WithWriteTransaction(db, [&] {
      vectors.Store().WriteStoreModel(db, {e->Model(), dim}, now);
      queued = vectors.Store().QueueAll(db, e->Model(), false, now);
    });
    vectors.Reset();
    out << label << "store model is now " << e->Model() << " (" << dim << " dims); queued " << queued << " "
        << vectors.Store().Tables().items << "\n";
  }
  return Drain(vectors, worker, db, label, out, err);
}

CommandSpec EmbedCommandSpec(HostServices& host, LayerVectors& vectors, EmbedWorker& worker) {
  const std::string items = vectors.Store().Tables().items;
  CommandSpec cmd;
  cmd.name = kEmbedCommandName;
  // One name for every layer with vectors, run in turn, one summary listed for them all
  // (host cli.cpp): so it names none.
  cmd.summary = "Embed what every layer with vectors has queued now; --all re-embeds everything (after a model change)";
  cmd.usage = "kioku embed [--all | --status | --calibrate [N]]\n"
              "  (none)       embed every queued " + vectors.Store().Tables().item +
              " now (the server does this in the background)\n"
              "  --all        make the configured model the store's model and re-embed every one\n"
              "  --status     embedder, store model, vector and queue counts, what search will do\n"
              "  --calibrate  suggest " + vectors.Store().Tables().prefix +
              ".vectors.min_score from on-topic vs off-topic cosine scores\n"
              "               on N (default 200) of your own " + items + "\n"
              "Needs providers.embedding in the config (except --status).";
  cmd.run = [&host, &vectors, &worker, items](const std::vector<std::string>& args, std::istream&, std::ostream& out,
                                              std::ostream& err) {
    return RunEmbedCommand(host, vectors, worker, items + ": ", args, out, err);
  };
  return cmd;
}

}  // namespace kioku::sdk
