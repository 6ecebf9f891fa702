#include "eval_vectors.hpp"

#include <algorithm>
#include <stdexcept>

#include "kioku/sdk/vectors.hpp"

namespace kioku::semantic {

std::vector<std::vector<float>> EvalVectors::Embed(const std::vector<std::string>& texts) {
  sdk::EmbedResult r = embedder_.Embed(texts);
  if (!r.ok()) throw std::runtime_error("embedding: " + r.error);
  if (r.vectors.size() != texts.size()) throw std::runtime_error("embedding: the endpoint answered the wrong count");
  for (std::vector<float>& v : r.vectors) {
    if (const std::optional<std::string> why = sdk::CheckVector(v, 0)) throw std::runtime_error("embedding: " + *why);
    sdk::Normalize(v);
  }
  return std::move(r.vectors);
}

void EvalVectors::AddTo(const Env& env, RecallRequest& request) {
  std::vector<std::int64_t> seqs;
  std::vector<std::string> texts;
  SQLite::Statement q(env.db, "SELECT seq, text FROM semantic_memories ORDER BY seq");
  while (q.executeStep()) {
    if (rows_.count(q.getColumn(0).getInt64())) continue;
    seqs.push_back(q.getColumn(0).getInt64());
    texts.push_back(q.getColumn(1).getString());
  }
  constexpr std::size_t kBatch = 64;
  for (std::size_t at = 0; at < texts.size(); at += kBatch) {
    const std::size_t end = std::min(texts.size(), at + kBatch);
    std::vector<std::vector<float>> got = Embed({texts.begin() + at, texts.begin() + end});
    for (std::size_t i = at; i < end; ++i) rows_[seqs[i]] = std::move(got[i - at]);
  }
  if (request.query.empty()) return;
  const std::vector<float> query = Embed({request.query}).front();
  std::vector<std::pair<float, std::int64_t>> scored;
  for (const auto& [seq, v] : rows_) {
    if (v.size() != query.size()) continue;
    const float s = sdk::Dot(query, v);
    if (s >= min_score_) scored.emplace_back(s, seq);
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (scored.size() > per_list_) scored.resize(per_list_);
  request.vector_seqs.clear();
  for (const auto& [score, seq] : scored) request.vector_seqs.push_back(seq);
}

}  // namespace kioku::semantic
