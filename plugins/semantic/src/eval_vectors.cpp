#include "eval_vectors.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kioku::semantic {

std::vector<std::vector<float>> EvalVectors::Embed(const std::vector<std::string>& texts) {
  sdk::EmbedResult r = embedder_.Embed(texts);
  if (!r.ok()) throw std::runtime_error("embedding: " + r.error);
  if (r.vectors.size() != texts.size()) throw std::runtime_error("embedding: the endpoint answered the wrong count");
  const int dim = index_ ? index_->Dimension() : 0;
  for (const std::vector<float>& v : r.vectors) {
    if (const std::optional<std::string> why = sdk::CheckVector(v, dim)) throw std::runtime_error("embedding: " + *why);
  }
  return std::move(r.vectors);
}

void EvalVectors::AddTo(const Env& env, RecallRequest& request) {
  std::vector<std::int64_t> seqs;
  std::vector<std::string> texts;
  SQLite::Statement q(env.db, "SELECT seq, text FROM semantic_memories ORDER BY seq");
  std::set<std::int64_t> known;
  if (index_) {
    const std::vector<std::int64_t> labels = index_->Labels();
    known.insert(labels.begin(), labels.end());
  }
  while (q.executeStep()) {
    const std::int64_t seq = q.getColumn(0).getInt64();
    if (known.count(seq)) continue;
    seqs.push_back(seq);
    texts.push_back(q.getColumn(1).getString());
  }
  constexpr std::size_t kBatch = 64;
  for (std::size_t at = 0; at < texts.size(); at += kBatch) {
    const std::size_t end = std::min(texts.size(), at + kBatch);
    const std::vector<std::vector<float>> got = Embed({texts.begin() + at, texts.begin() + end});
    if (!index_) index_ = std::make_unique<sdk::VectorIndex>(static_cast<int>(got.front().size()));
    for (std::size_t i = at; i < end; ++i) index_->Add(seqs[i], got[i - at]);
  }
  request.vector_seqs.clear();
  if (request.query.empty() || !index_) return;
  const std::vector<float> query = Embed({request.query}).front();
  for (const sdk::VectorHit& h : index_->SearchExact(query, per_list_, static_cast<float>(min_score_))) {
    request.vector_seqs.push_back(h.label);
  }
}

}  // namespace kioku::semantic
