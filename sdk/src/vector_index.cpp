#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <queue>
#include <unordered_map>

// hnswlib 0.6.2's SSE path prefetches `*(datal + j + 1)` one slot past a full link list
// (searchBaseLayer, hnswalg.h:214): a real 4-byte read past the heap block that AddressSanitizer
// reports. Without manual vectorization that read is gone; distances come from our own space
// (UnitIpSpace below), whose Dot the compiler vectorizes.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib/hnswlib.h>

#include "kioku/sdk/vectors.hpp"

namespace kioku::sdk {

std::optional<std::string> CheckVector(std::span<const float> v, int expected_dim) {
  if (v.empty()) return "is empty";
  if (expected_dim > 0 && v.size() != static_cast<std::size_t>(expected_dim)) {
    return "has " + std::to_string(v.size()) + " values, expected " + std::to_string(expected_dim);
  }
  double norm2 = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return "has a NaN or infinite value at index " + std::to_string(i);
    norm2 += static_cast<double>(v[i]) * v[i];
  }
  if (!(std::sqrt(norm2) >= 1e-12)) return "has zero norm";
  return std::nullopt;
}

void Normalize(std::vector<float>& v) {
  double norm2 = 0;
  for (float x : v) norm2 += static_cast<double>(x) * x;
  const double inv = 1.0 / std::sqrt(norm2);
  for (float& x : v) x = static_cast<float>(x * inv);
}

float Dot(std::span<const float> a, std::span<const float> b) {
  // Eight independent partial sums: float addition is not associative, so a single running sum
  // cannot be vectorized without -ffast-math; eight lanes can.
  const std::size_t n = std::min(a.size(), b.size());
  float lane[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t k = 0; k < 8; ++k) lane[k] += a[i + k] * b[i + k];
  }
  float s = ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

static_assert(std::endian::native == std::endian::little,
              "PackVector stores little-endian float32; add byte swapping for this target");

std::string PackVector(std::span<const float> v) {
  std::string out(v.size() * sizeof(float), '\0');
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::optional<std::vector<float>> UnpackVector(const void* bytes, std::size_t size) {
  if (size % sizeof(float) != 0) return std::nullopt;
  std::vector<float> v(size / sizeof(float));
  if (size > 0) std::memcpy(v.data(), bytes, size);
  return v;
}

namespace {

using Graph = hnswlib::HierarchicalNSW<float>;

// Inner-product distance 1 - a·b over unit vectors (what hnswlib::InnerProductSpace computes),
// with kioku's Dot.
class UnitIpSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit UnitIpSpace(std::size_t dim) : dim_(dim) {}
  std::size_t get_data_size() override { return dim_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return &dim_; }

 private:
  static float Distance(const void* a, const void* b, const void* param) {
    const std::size_t d = *static_cast<const std::size_t*>(param);
    return 1.0f - Dot(std::span<const float>(static_cast<const float*>(a), d),
                      std::span<const float>(static_cast<const float*>(b), d));
  }
  std::size_t dim_;
};

// Min-heap of the best k by score: top() is the worst kept.
struct WorseFirst {
  bool operator()(const VectorHit& a, const VectorHit& b) const {
    if (a.score != b.score) return a.score > b.score;
    return a.label < b.label;
  }
};

void Keep(std::priority_queue<VectorHit, std::vector<VectorHit>, WorseFirst>& heap, std::size_t k,
          VectorHit hit) {
  if (heap.size() < k) {
    heap.push(hit);
  } else if (WorseFirst{}(hit, heap.top())) {
    heap.pop();
    heap.push(hit);
  }
}

std::vector<VectorHit> Drain(std::priority_queue<VectorHit, std::vector<VectorHit>, WorseFirst>& heap) {
  std::vector<VectorHit> out(heap.size());
  for (std::size_t i = out.size(); i > 0; --i) {
    out[i - 1] = heap.top();
    heap.pop();
  }
  return out;
}

}  // namespace

struct VectorIndex::Impl {
  int dim;
  VectorIndexOptions options;
  // Exact mode: labels and their unit vectors, contiguous (row i = flat[i*dim ...]).
  std::vector<std::int64_t> labels;
  std::vector<float> flat;
  std::unordered_map<std::int64_t, std::size_t> row_of;
  // HNSW mode (the exact store is then empty: the graph holds the vectors).
  std::unique_ptr<UnitIpSpace> space;
  std::unique_ptr<Graph> graph;
  std::size_t live = 0;  // non-deleted elements in the graph

  std::size_t Size() const { return graph ? live : labels.size(); }

  void BuildGraph(std::size_t capacity) {
    space = std::make_unique<UnitIpSpace>(static_cast<std::size_t>(dim));
    graph = std::make_unique<Graph>(space.get(), std::max<std::size_t>(capacity, 1024),
                                    static_cast<std::size_t>(options.hnsw_m),
                                    static_cast<std::size_t>(options.hnsw_ef_construction));
    graph->setEf(static_cast<std::size_t>(options.hnsw_ef_search));
    for (std::size_t i = 0; i < labels.size(); ++i) {
      graph->addPoint(flat.data() + i * dim, static_cast<hnswlib::labeltype>(labels[i]));
    }
    live = labels.size();
    labels.clear();
    flat.clear();
    flat.shrink_to_fit();
    row_of.clear();
  }

  void GraphAdd(std::int64_t label, const float* v) {
    const auto key = static_cast<hnswlib::labeltype>(label);
    const bool existed = graph->label_lookup_.count(key) > 0;
    const bool was_deleted = existed && graph->isMarkedDeleted(graph->label_lookup_.at(key));
    if (!existed && graph->cur_element_count >= graph->max_elements_) {
      graph->resizeIndex(graph->max_elements_ * 2);
    }
    graph->addPoint(v, key);
    if (!existed || was_deleted) ++live;
  }
};

VectorIndex::VectorIndex(int dim, VectorIndexOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->dim = dim;
  impl_->options = options;
}

VectorIndex::~VectorIndex() = default;

int VectorIndex::Dimension() const { return impl_->dim; }
std::size_t VectorIndex::Size() const { return impl_->Size(); }
bool VectorIndex::UsesHnsw() const { return impl_->graph != nullptr; }

bool VectorIndex::Add(std::int64_t label, std::span<const float> v) {
  if (CheckVector(v, impl_->dim)) return false;
  std::vector<float> unit(v.begin(), v.end());
  Normalize(unit);
  Impl& m = *impl_;
  if (m.graph) {
    m.GraphAdd(label, unit.data());
    return true;
  }
  if (const auto it = m.row_of.find(label); it != m.row_of.end()) {
    std::copy(unit.begin(), unit.end(), m.flat.begin() + static_cast<std::ptrdiff_t>(it->second * m.dim));
  } else {
    m.row_of.emplace(label, m.labels.size());
    m.labels.push_back(label);
    m.flat.insert(m.flat.end(), unit.begin(), unit.end());
  }
  if (m.labels.size() >= m.options.exact_below) m.BuildGraph(m.labels.size() * 2);
  return true;
}

void VectorIndex::Remove(std::int64_t label) {
  Impl& m = *impl_;
  if (m.graph) {
    const auto key = static_cast<hnswlib::labeltype>(label);
    const auto it = m.graph->label_lookup_.find(key);
    if (it != m.graph->label_lookup_.end() && !m.graph->isMarkedDeleted(it->second)) {
      m.graph->markDelete(key);
      --m.live;
    }
    return;
  }
  const auto it = m.row_of.find(label);
  if (it == m.row_of.end()) return;
  const std::size_t row = it->second, last = m.labels.size() - 1;
  if (row != last) {
    std::copy(m.flat.begin() + static_cast<std::ptrdiff_t>(last * m.dim),
              m.flat.begin() + static_cast<std::ptrdiff_t>((last + 1) * m.dim),
              m.flat.begin() + static_cast<std::ptrdiff_t>(row * m.dim));
    m.labels[row] = m.labels[last];
    m.row_of[m.labels[row]] = row;
  }
  m.labels.pop_back();
  m.flat.resize(m.labels.size() * m.dim);
  m.row_of.erase(label);
}

std::vector<VectorHit> VectorIndex::SearchExact(std::span<const float> query, std::size_t k,
                                                float min_score) const {
  const Impl& m = *impl_;
  if (k == 0 || CheckVector(query, m.dim)) return {};
  std::vector<float> q(query.begin(), query.end());
  Normalize(q);
  std::priority_queue<VectorHit, std::vector<VectorHit>, WorseFirst> heap;
  const auto d = static_cast<std::size_t>(m.dim);
  if (m.graph) {
    for (hnswlib::tableint i = 0; i < m.graph->cur_element_count; ++i) {
      if (m.graph->isMarkedDeleted(i)) continue;
      const auto* v = reinterpret_cast<const float*>(m.graph->getDataByInternalId(i));
      const float s = Dot(q, std::span<const float>(v, d));
      if (s >= min_score) Keep(heap, k, {static_cast<std::int64_t>(m.graph->getExternalLabel(i)), s});
    }
  } else {
    for (std::size_t i = 0; i < m.labels.size(); ++i) {
      const float s = Dot(q, std::span<const float>(m.flat.data() + i * d, d));
      if (s >= min_score) Keep(heap, k, {m.labels[i], s});
    }
  }
  return Drain(heap);
}

std::vector<VectorHit> VectorIndex::Search(std::span<const float> query, std::size_t k,
                                           float min_score) const {
  const Impl& m = *impl_;
  if (!m.graph) return SearchExact(query, k, min_score);
  if (k == 0 || m.live == 0 || CheckVector(query, m.dim)) return {};
  std::vector<float> q(query.begin(), query.end());
  Normalize(q);
  auto found = m.graph->searchKnn(q.data(), std::min(k, m.live));
  std::vector<VectorHit> out;
  out.reserve(found.size());
  while (!found.empty()) {
    const auto [dist, label] = found.top();  // furthest first; inner-product distance = 1 - dot
    found.pop();
    const float s = 1.0f - dist;
    if (s >= min_score) out.push_back({static_cast<std::int64_t>(label), s});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

void VectorIndex::EnsureHnsw() {
  Impl& m = *impl_;
  if (!m.graph && m.labels.size() >= m.options.exact_below) m.BuildGraph(m.labels.size() * 2);
}

bool VectorIndex::SaveHnsw(const std::filesystem::path& path) const {
  const Impl& m = *impl_;
  if (!m.graph) return false;
  try {
    const std::filesystem::path tmp = path.string() + ".tmp";
    m.graph->saveIndex(tmp.string());
    std::filesystem::rename(tmp, path);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool VectorIndex::LoadHnsw(const std::filesystem::path& path) {
  Impl& m = *impl_;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    auto space = std::make_unique<UnitIpSpace>(static_cast<std::size_t>(m.dim));
    auto graph = std::make_unique<Graph>(space.get(), path.string());
    // hnswlib records no dimension; the file's element layout (links, then the vector,
    // then the label) gives the vector's byte size.
    if (graph->label_offset_ - graph->offsetData_ != static_cast<std::size_t>(m.dim) * sizeof(float)) return false;
    graph->setEf(static_cast<std::size_t>(m.options.hnsw_ef_search));
    std::size_t live = 0;
    for (hnswlib::tableint i = 0; i < graph->cur_element_count; ++i) {
      if (!graph->isMarkedDeleted(i)) ++live;
    }
    m.labels.clear();
    m.flat.clear();
    m.row_of.clear();
    m.space = std::move(space);
    m.graph = std::move(graph);
    m.live = live;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<std::int64_t> VectorIndex::Labels() const {
  const Impl& m = *impl_;
  if (!m.graph) return m.labels;
  std::vector<std::int64_t> out;
  out.reserve(m.live);
  for (hnswlib::tableint i = 0; i < m.graph->cur_element_count; ++i) {
    if (!m.graph->isMarkedDeleted(i)) out.push_back(static_cast<std::int64_t>(m.graph->getExternalLabel(i)));
  }
  return out;
}

}  // namespace kioku::sdk
