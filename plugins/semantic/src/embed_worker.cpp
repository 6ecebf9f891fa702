#include "embed_worker.hpp"

#include <algorithm>
#include <chrono>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/vectors.hpp"
#include "vectors.hpp"

namespace kioku::semantic {
namespace {

constexpr std::int64_t kFirstRetryMs = 5000;
constexpr std::int64_t kMaxRetryMs = 3600 * 1000;

std::int64_t RetryAt(std::int64_t now, int attempts) {
  const int shift = std::min(attempts, 20);
  return now + std::min(kMaxRetryMs, kFirstRetryMs << shift);
}

struct Identity {
  std::string id, kind, scope, project_id, path, subject, value, status;
};

std::optional<Identity> ReadIdentity(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db,
                      "SELECT id, kind, scope, project_id, path, subject, value, status "
                      "FROM semantic_memories WHERE seq = ?");
  sdk::Bind(q, static_cast<int64_t>(seq));
  if (!q.executeStep()) return std::nullopt;
  Identity i;
  i.id = q.getColumn(0).getString();
  i.kind = q.getColumn(1).getString();
  i.scope = q.getColumn(2).getString();
  i.project_id = q.getColumn(3).getString();
  i.path = q.getColumn(4).getString();
  i.subject = q.getColumn(5).getString();
  i.value = q.getColumn(6).getString();
  i.status = q.getColumn(7).getString();
  return i;
}

void History(SQLite::Database& db, const std::string& id, const char* action, std::int64_t at,
             const std::string& detail) {
  SQLite::Statement q(db,
                      "INSERT INTO semantic_memory_history(memory_id, action, at, agent_id, detail) "
                      "VALUES (?, ?, ?, 'kioku-embed', ?)");
  sdk::Bind(q, id, action, static_cast<int64_t>(at), detail);
  q.exec();
}

// A memory embedded for the first time (not a re-embed after an edit or a model switch).
bool HasAnyVector(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db, "SELECT 1 FROM semantic_vectors WHERE memory_seq = ?");
  sdk::Bind(q, static_cast<int64_t>(seq));
  return q.executeStep();
}

}  // namespace

EmbedWorker::EmbedWorker(sdk::HostServices& host, MemoryVectors& vectors) : host_(host), vectors_(vectors) {}

EmbedWorker::~EmbedWorker() { Stop(); }

void EmbedWorker::Start() {
  if (vectors_.Embedder() == nullptr || thread_.joinable()) return;
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
    std::unique_lock lock(mu_);
    if (stop_) return;
    // Busy while there is work that succeeds; otherwise wait for new rows or backoff.
    if (pass.idle || !pass.error.empty()) {
      cv_.wait_for(lock, std::chrono::milliseconds(s.poll_ms), [this] { return stop_; });
      if (stop_) return;
    }
  }
}

EmbedPass EmbedWorker::RunOnce(SQLite::Database& db) {
  EmbedPass pass;
  sdk::Embedder* embedder = vectors_.Embedder();
  const VectorSettings& s = vectors_.Settings();
  const std::int64_t now = host_.GetClock().NowMs();
  if (embedder == nullptr) {
    pass.idle = true;
    return pass;
  }
  const std::vector<PendingEmbed> due = DuePending(db, now, s.batch_size);
  if (due.empty()) {
    pass.idle = true;
    return pass;
  }
  std::vector<std::string> texts;
  texts.reserve(due.size());
  for (const PendingEmbed& p : due) texts.push_back(p.text);
  const sdk::EmbedResult r = embedder->Embed(texts);  // outside any transaction
  if (!r.ok() || r.vectors.size() != due.size()) {
    pass.error = r.ok() ? "embedder returned a wrong number of vectors" : r.error;
    pass.failed = static_cast<int>(due.size());
    if (r.circuit_open) return pass;  // not the rows' fault: leave them due
    sdk::WithWriteTransaction(db, [&] {
      for (const PendingEmbed& p : due) MarkFailed(db, p.seq, pass.error, RetryAt(now, p.attempts));
    });
    return pass;
  }
  const std::string model = embedder->Model();
  const auto store = ReadStoreModel(db);
  // The store's dimension binds every later vector of its model.
  const int want = store && store->model == model ? store->dim : embedder->Dimension();
  sdk::WithWriteTransaction(db, [&] {
    pass.stored = pass.rejected = pass.deduped = 0;
    auto current = ReadStoreModel(db);
    for (std::size_t i = 0; i < due.size(); ++i) {
      std::vector<float> v = r.vectors[i];
      if (const auto bad = sdk::CheckVector(v, want)) {
        MarkFailed(db, due[i].seq, "embedder returned a vector that " + *bad + " (model " + model + ")",
                   RetryAt(now, due[i].attempts));
        ++pass.rejected;
        continue;
      }
      sdk::Normalize(v);
      const bool first = !HasAnyVector(db, due[i].seq);
      StoreVector(db, due[i].seq, due[i].ticket, model, v, now);
      ++pass.stored;
      if (!current) {
        current = StoreModel{model, static_cast<int>(v.size())};
        WriteStoreModel(db, *current, now);
      }
      if (first && current->model == model && Dedup(db, due[i].seq, v)) ++pass.deduped;
    }
  });
  return pass;
}

bool EmbedWorker::Dedup(SQLite::Database& db, std::int64_t seq, const std::vector<float>& unit) {
  const double threshold = vectors_.Settings().dedup_threshold;
  if (threshold >= 1.0) return false;
  const auto fresh = ReadIdentity(db, seq);
  if (!fresh || (fresh->status != "active" && fresh->status != "pending")) return false;
  for (const sdk::VectorHit& hit : vectors_.Nearest(db, unit, 8)) {
    if (hit.label >= seq || hit.score < threshold) continue;
    const auto old = ReadIdentity(db, hit.label);
    if (!old || (old->status != "active" && old->status != "pinned" && old->status != "pending")) continue;
    if (old->kind != fresh->kind || old->scope != fresh->scope || old->project_id != fresh->project_id ||
        old->path != fresh->path || old->subject != fresh->subject || old->value != fresh->value) {
      continue;
    }
    const std::int64_t now = host_.GetClock().NowMs();
    SQLite::Statement a(db,
                        "UPDATE semantic_memories SET updated_at = max(updated_at, ?), "
                        "reaffirm_count = reaffirm_count + 1 WHERE seq = ?");
    sdk::Bind(a, static_cast<int64_t>(now), static_cast<int64_t>(hit.label));
    a.exec();
    SQLite::Statement b(db,
                        "UPDATE semantic_memories SET prior_status = status, status = 'superseded', "
                        "superseded_at = ?, superseded_by = ? WHERE seq = ?");
    sdk::Bind(b, static_cast<int64_t>(now), old->id, static_cast<int64_t>(seq));
    b.exec();
    const std::string cos = std::to_string(hit.score).substr(0, 5);
    History(db, old->id, "reaffirmed", now, "near-identical " + fresh->id + " (cosine " + cos + ")");
    History(db, fresh->id, "superseded", now, "by near-identical " + old->id + " (cosine " + cos + ")");
    return true;
  }
  return false;
}

}  // namespace kioku::semantic
