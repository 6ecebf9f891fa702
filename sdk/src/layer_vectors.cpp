#include "kioku/sdk/layer_vectors.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <sstream>

#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/settings.hpp"

namespace kioku::sdk {
namespace {

std::string FileSafe(const std::string& model) {
  std::string out;
  for (char c : model) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out.substr(0, 100);
}

// Hyndman & Fan definition 7 (linear between closest ranks); 0 for no scores.
double Percentile(std::vector<float> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string FirstHalfOfWords(const std::string& text) {
  std::istringstream words(text);
  const std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
  std::string half;
  for (std::size_t i = 0; i < std::min(w.size(), std::max<std::size_t>(1, (w.size() + 1) / 2)); ++i) {
    half += (i ? " " : "") + w[i];
  }
  return half;
}

}  // namespace

Json VectorSettingsSchema(const std::string& what) {
  using namespace schema;
  return Settings({
      {"weight", Setting(Number(0, 10, "RRF weight of the vector list (needs providers.embedding)."), 1.0)},
      {"min_score", Setting(Number(-1, 1, "Cosine floor for vector hits (kioku embed --calibrate)."), 0.3)},
      {"exact_below", Setting(Integer(0, 100000000, "Vectors below which search is exact; HNSW above."), 5000)},
      {"batch_size", Setting(Integer(1, 2048, what + " per embedding request."), 32)},
      {"poll_ms", Setting(Integer(10, 3600000, "Embed worker's idle wait."), 1000)},
      {"start_delay_ms", Setting(Integer(0, 3600000, "Embed worker's wait before its first pass."), 3000)},
  });
}

VectorSettings ParseVectorSettings(const Json& section) {
  VectorSettings s;
  if (!section.is_object()) return s;
  s.weight = section.value("weight", s.weight);
  s.min_score = section.value("min_score", s.min_score);
  s.exact_below = section.value("exact_below", s.exact_below);
  s.batch_size = section.value("batch_size", s.batch_size);
  s.poll_ms = section.value("poll_ms", s.poll_ms);
  s.start_delay_ms = section.value("start_delay_ms", s.start_delay_ms);
  return s;
}

LayerVectors::LayerVectors(VectorTables tables, Embedder* embedder, std::filesystem::path data_dir,
                           const VectorSettings& settings, Logger* log)
    : store_(std::move(tables)), embedder_(embedder), data_dir_(std::move(data_dir)), settings_(settings), log_(log) {}

LayerVectors::~LayerVectors() = default;

std::filesystem::path LayerVectors::GraphPath(const std::string& model, int dim) const {
  return data_dir_ / (store_.Tables().prefix + "-vectors-" + FileSafe(model) + "-" + std::to_string(dim) + ".hnsw");
}

std::string LayerVectors::Unusable(SQLite::Database& db, std::string* status) const {
  if (embedder_ == nullptr) {
    *status = "off";
    return "no embedding provider configured (providers.embedding)";
  }
  *status = "text-only";
  const auto store = store_.ReadStoreModel(db);
  const VectorTables& t = store_.Tables();
  if (!store) {
    return "no " + t.item + " is embedded yet (the background worker embeds them; `kioku embed` to run it now)";
  }
  const int dim = embedder_->Dimension();
  if (store->model != embedder_->Model() || (dim > 0 && dim != store->dim)) {
    return "stored vectors are from model " + store->model + " (" + std::to_string(store->dim) +
           " dims), the embedder is " + embedder_->Model() + (dim > 0 ? " (" + std::to_string(dim) + " dims)" : "") +
           "; vectors of another model are never compared: run `kioku embed --all` to re-embed";
  }
  status->clear();
  return "";
}

void LayerVectors::SaveLocked(const std::filesystem::path& graph) {
  if (index_->SaveHnsw(graph)) {
    std::ofstream(graph.string() + ".json") << Json{{"model", model_}, {"dim", dim_}, {"version", version_}}.dump();
    loaded_from_disk_ = true;
    dirty_ = false;
  }
}

void LayerVectors::Sync(SQLite::Database& db, const std::string& model, int dim) {
  const std::int64_t latest = store_.MaxVectorVersion(db, model);
  {
    std::shared_lock lock(mu_);
    if (index_ && model_ == model && dim_ == dim && version_ >= latest) return;
  }
  std::unique_lock lock(mu_);
  if (!index_ || model_ != model || dim_ != dim) {
    VectorIndexOptions options;
    options.exact_below = static_cast<std::size_t>(settings_.exact_below);
    index_ = std::make_unique<VectorIndex>(dim, options);
    model_ = model;
    dim_ = dim;
    version_ = 0;
    loaded_from_disk_ = false;
    // A graph saved by an earlier run covers vectors up to its recorded version.
    const auto graph = GraphPath(model, dim);
    std::ifstream meta(graph.string() + ".json");
    const Json m = Json::parse(meta, nullptr, false);
    if (m.is_object() && m.value("model", "") == model && m.value("dim", 0) == dim &&
        m.value("version", std::int64_t{0}) <= latest && index_->LoadHnsw(graph)) {
      version_ = m.value("version", std::int64_t{0});
      loaded_from_disk_ = true;
      if (log_) log_->Info("vector index: loaded " + std::to_string(index_->Size()) + " vectors from " + graph.string());
    }
  }
  std::size_t added = 0;
  store_.ForEachVector(db, model, dim, version_, [&](std::int64_t seq, std::int64_t version, std::vector<float>&& v) {
    if (index_->Add(seq, v)) ++added;
    version_ = std::max(version_, version);
  });
  if (added > 0) dirty_ = true;
  // A graph built from scratch is saved at once, so the next start loads it.
  if (!loaded_from_disk_ && index_->UsesHnsw() && added > 0) SaveLocked(GraphPath(model, dim));
}

VectorQuery LayerVectors::Query(SQLite::Database& db, const std::string& text, std::size_t k) {
  VectorQuery out;
  const std::string why = Unusable(db, &out.status);
  if (!why.empty()) {
    if (out.status != "off") out.note = "text-only: " + why;
    return out;
  }
  const EmbedResult r = embedder_->EmbedQuery(text);
  if (!r.ok() || r.vectors.size() != 1) {
    out.status = "degraded";
    out.note = "degraded (text search only): " + (r.ok() ? std::string("no vector returned") : r.error);
    return out;
  }
  std::vector<float> q = r.vectors.front();
  const auto store = store_.ReadStoreModel(db);
  if (const auto bad = CheckVector(q, store->dim)) {
    out.status = "degraded";
    out.note = "degraded (text search only): the query's vector " + *bad;
    return out;
  }
  Normalize(q);
  Sync(db, store->model, store->dim);
  std::shared_lock lock(mu_);
  out.hits = index_->Search(q, k, static_cast<float>(settings_.min_score));
  out.status = "hybrid";
  return out;
}

std::vector<VectorHit> LayerVectors::Nearest(SQLite::Database& db, const std::vector<float>& unit, std::size_t k) {
  std::string status;
  if (!Unusable(db, &status).empty()) return {};
  const auto store = store_.ReadStoreModel(db);
  if (unit.size() != static_cast<std::size_t>(store->dim)) return {};
  Sync(db, store->model, store->dim);
  std::shared_lock lock(mu_);
  return index_->Search(unit, k);
}

Calibration LayerVectors::Calibrate(SQLite::Database& db, int sample) {
  Calibration c;
  std::string status;
  if (embedder_ == nullptr) {
    c.error = Unusable(db, &status);
    return c;
  }
  const auto store = store_.ReadStoreModel(db);
  if (!store) return c;  // nothing embedded yet: zero rows
  if (std::string why = Unusable(db, &status); !why.empty()) {
    c.error = std::move(why);
    return c;
  }
  const auto rows = store_.SampleEmbedded(db, store->model, sample);
  c.rows = rows.size();
  if (c.rows < kMinCalibrationRows) return c;
  std::vector<std::string> queries;
  std::vector<std::vector<float>> stored;
  for (const auto& [seq, text] : rows) {
    queries.push_back(FirstHalfOfWords(text));
    stored.push_back(store_.LoadVector(db, seq, store->model).value_or(std::vector<float>{}));
  }
  const EmbedResult r = embedder_->Embed(queries);
  if (!r.ok() || r.vectors.size() != rows.size()) {
    c.error = r.ok() ? "embedder returned a wrong number of vectors" : r.error;
    return c;
  }
  std::minstd_rand rng(42);  // the same draws on every run over the same rows
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<float> qv = r.vectors[i];
    if (CheckVector(qv, store->dim) || stored[i].size() != qv.size()) continue;
    Normalize(qv);
    c.on_topic.push_back(Dot(qv, stored[i]));
    for (int n = 0; n < 5; ++n) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng);
      if (j == i || stored[j].size() != qv.size()) continue;
      c.off_topic.push_back(Dot(qv, stored[j]));
    }
  }
  c.on_p10 = Percentile(c.on_topic, 0.10);
  c.on_p50 = Percentile(c.on_topic, 0.50);
  c.on_p90 = Percentile(c.on_topic, 0.90);
  c.off_p50 = Percentile(c.off_topic, 0.50);
  c.off_p90 = Percentile(c.off_topic, 0.90);
  c.off_p95 = Percentile(c.off_topic, 0.95);
  c.suggested = std::clamp((c.on_p10 + c.off_p95) / 2, -1.0, 1.0);
  return c;
}

std::pair<std::size_t, bool> LayerVectors::IndexState(SQLite::Database& db) {
  std::string status;
  if (Unusable(db, &status).empty()) {
    const auto store = store_.ReadStoreModel(db);
    Sync(db, store->model, store->dim);
  }
  std::shared_lock lock(mu_);
  if (!index_) return {0, false};
  return {index_->Size(), index_->UsesHnsw()};
}

std::string LayerVectors::WriteNote() const {
  if (embedder_ == nullptr) return "";
  const EmbedderHealth h = embedder_->Health();
  if (!h.circuit_open && h.consecutive_failures == 0) return "";
  return "stored; embedding deferred, vector search degraded: " + h.last_error;
}

void LayerVectors::Reset() {
  std::unique_lock lock(mu_);
  index_.reset();
  model_.clear();
  dim_ = 0;
  version_ = 0;
}

void LayerVectors::Save() {
  std::unique_lock lock(mu_);
  if (!index_ || !dirty_ || !index_->UsesHnsw()) return;
  SaveLocked(GraphPath(model_, dim_));
}

}  // namespace kioku::sdk
