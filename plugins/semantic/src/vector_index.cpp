#include "vector_index.hpp"

#include <cctype>
#include <fstream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "vectors.hpp"

namespace kioku::semantic {
namespace {

std::string FileSafe(const std::string& model) {
  std::string out;
  for (char c : model) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out.substr(0, 100);
}

}  // namespace

MemoryVectors::MemoryVectors(sdk::Embedder* embedder, std::filesystem::path data_dir,
                             const VectorSettings& settings, sdk::Logger* log)
    : embedder_(embedder), data_dir_(std::move(data_dir)), settings_(settings), log_(log) {}

MemoryVectors::~MemoryVectors() = default;

std::filesystem::path MemoryVectors::GraphPath(const std::string& model, int dim) const {
  return data_dir_ / ("semantic-vectors-" + FileSafe(model) + "-" + std::to_string(dim) + ".hnsw");
}

std::string MemoryVectors::Unusable(SQLite::Database& db, std::string* status) const {
  if (embedder_ == nullptr) {
    *status = "off";
    return "no embedding provider configured (providers.embedding)";
  }
  *status = "text-only";
  const auto store = ReadStoreModel(db);
  if (!store) return "no memory is embedded yet (the background worker embeds them; `kioku embed` to run it now)";
  const int dim = embedder_->Dimension();
  if (store->model != embedder_->Model() || (dim > 0 && dim != store->dim)) {
    return "stored vectors are from model " + store->model + " (" + std::to_string(store->dim) +
           " dims), the embedder is " + embedder_->Model() + (dim > 0 ? " (" + std::to_string(dim) + " dims)" : "") +
           "; vectors of another model are never compared: run `kioku embed --all` to re-embed";
  }
  status->clear();
  return "";
}

void MemoryVectors::Sync(SQLite::Database& db, const std::string& model, int dim) {
  const std::int64_t latest = MaxVectorVersion(db, model);
  {
    std::shared_lock lock(mu_);
    if (index_ && model_ == model && dim_ == dim && version_ >= latest) return;
  }
  std::unique_lock lock(mu_);
  if (!index_ || model_ != model || dim_ != dim) {
    sdk::VectorIndexOptions options;
    options.exact_below = static_cast<std::size_t>(settings_.exact_below);
    index_ = std::make_unique<sdk::VectorIndex>(dim, options);
    model_ = model;
    dim_ = dim;
    version_ = 0;
    loaded_from_disk_ = false;
    // A graph saved by an earlier run covers vectors up to its recorded version.
    const auto graph = GraphPath(model, dim);
    std::ifstream meta(graph.string() + ".json");
    const nlohmann::json m = nlohmann::json::parse(meta, nullptr, false);
    if (m.is_object() && m.value("model", "") == model && m.value("dim", 0) == dim &&
        m.value("version", std::int64_t{0}) <= latest && index_->LoadHnsw(graph)) {
      version_ = m.value("version", std::int64_t{0});
      loaded_from_disk_ = true;
      if (log_) log_->Info("vector index: loaded " + std::to_string(index_->Size()) + " vectors from " + graph.string());
    }
  }
  std::size_t added = 0;
  ForEachVector(db, model, dim, version_, [&](std::int64_t seq, std::int64_t version, std::vector<float>&& v) {
    if (index_->Add(seq, v)) ++added;
    version_ = std::max(version_, version);
  });
  if (added > 0) dirty_ = true;
  // A graph built from scratch is saved at once, so the next start loads it.
  if (!loaded_from_disk_ && index_->UsesHnsw() && added > 0) {
    const auto graph = GraphPath(model, dim);
    if (index_->SaveHnsw(graph)) {
      std::ofstream(graph.string() + ".json") << nlohmann::json{{"model", model}, {"dim", dim}, {"version", version_}}.dump();
      loaded_from_disk_ = true;
      dirty_ = false;
    }
  }
}

VectorQuery MemoryVectors::Query(SQLite::Database& db, const std::string& text, std::size_t k) {
  VectorQuery out;
  const std::string why = Unusable(db, &out.status);
  if (!why.empty()) {
    if (out.status != "off") out.note = "text-only: " + why;
    return out;
  }
  const sdk::EmbedResult r = embedder_->Embed({text});
  if (!r.ok() || r.vectors.size() != 1) {
    out.status = "degraded";
    out.note = "degraded (text search only): " + (r.ok() ? std::string("no vector returned") : r.error);
    return out;
  }
  std::vector<float> q = r.vectors.front();
  const auto store = ReadStoreModel(db);
  if (const auto bad = sdk::CheckVector(q, store->dim)) {
    out.status = "degraded";
    out.note = "degraded (text search only): the query's vector " + *bad;
    return out;
  }
  sdk::Normalize(q);
  Sync(db, store->model, store->dim);
  std::shared_lock lock(mu_);
  out.hits = index_->Search(q, k, static_cast<float>(settings_.min_score));
  out.status = "hybrid";
  return out;
}

std::vector<sdk::VectorHit> MemoryVectors::Nearest(SQLite::Database& db, const std::vector<float>& unit,
                                                   std::size_t k) {
  std::string status;
  if (!Unusable(db, &status).empty()) return {};
  const auto store = ReadStoreModel(db);
  if (unit.size() != static_cast<std::size_t>(store->dim)) return {};
  Sync(db, store->model, store->dim);
  std::shared_lock lock(mu_);
  return index_->Search(unit, k);
}

std::pair<std::size_t, bool> MemoryVectors::IndexState(SQLite::Database& db) {
  std::string status;
  if (Unusable(db, &status).empty()) {
    const auto store = ReadStoreModel(db);
    Sync(db, store->model, store->dim);
  }
  std::shared_lock lock(mu_);
  if (!index_) return {0, false};
  return {index_->Size(), index_->UsesHnsw()};
}

std::string MemoryVectors::WriteNote() const {
  if (embedder_ == nullptr) return "";
  const sdk::EmbedderHealth h = embedder_->Health();
  if (!h.circuit_open && h.consecutive_failures == 0) return "";
  return "stored; embedding deferred, vector search degraded: " + h.last_error;
}

void MemoryVectors::Reset() {
  std::unique_lock lock(mu_);
  index_.reset();
  model_.clear();
  dim_ = 0;
  version_ = 0;
}

void MemoryVectors::Save() {
  std::unique_lock lock(mu_);
  if (!index_ || !dirty_ || !index_->UsesHnsw()) return;
  const auto graph = GraphPath(model_, dim_);
  if (index_->SaveHnsw(graph)) {
    std::ofstream(graph.string() + ".json") << nlohmann::json{{"model", model_}, {"dim", dim_}, {"version", version_}}.dump();
    dirty_ = false;
  }
}

}  // namespace kioku::semantic
