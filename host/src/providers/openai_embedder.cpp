#include "providers/openai_embedder.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "kioku/sdk/json.hpp"
#include "providers/http_client.hpp"
#include "providers/provider_call.hpp"

namespace kioku::host::providers {
namespace {

using nlohmann::json;

class OpenAiEmbedder final : public sdk::Embedder {
 public:
  OpenAiEmbedder(EmbeddingConfig config, Url url, std::shared_ptr<const sdk::Clock> clock,
                 std::filesystem::path breaker_state)
      : config_(std::move(config)),
        url_(std::move(url)),
        breaker_(config_.breaker_failures, config_.breaker_cooldown_ms, std::move(clock),
                 BreakerKey(EndpointName(url_), config_.model), std::move(breaker_state)),
        target_(ApiTarget(url_, "/embeddings")),
        endpoint_(EndpointName(url_)) {}

  std::string Model() const override { return config_.model; }

  int Dimension() const override {
    std::lock_guard lock(mu_);
    return config_.dimensions > 0 ? config_.dimensions : learned_dim_;
  }

  std::string Endpoint() const override { return endpoint_; }

  sdk::EmbedderHealth Health() const override { return breaker_.Health(); }

  sdk::EmbedResult Embed(const std::vector<std::string>& texts) override {
    return EmbedWith(texts, /*query=*/false);
  }

  sdk::EmbedResult EmbedQuery(const std::string& text) override { return EmbedWith({text}, /*query=*/true); }

 private:
  // `query`: a caller waits (EmbedQuery): one attempt, the query read timeout.
  sdk::EmbedResult EmbedWith(const std::vector<std::string>& texts, bool query) {
    sdk::EmbedResult out;
    if (texts.empty()) return out;
    const CircuitBreaker::Admission admission = breaker_.Admit();
    if (admission.refusal) {
      out.circuit_open = true;
      out.error = Prefix() + *admission.refusal;
      return out;
    }
    const int retries = admission.trial || query ? 0 : config_.max_retries;
    const int read_timeout_ms = query ? std::min(config_.query_timeout_ms, config_.timeout_ms) : config_.timeout_ms;
    const auto batch = static_cast<std::size_t>(std::max(1, config_.batch_size));
    for (std::size_t start = 0; start < texts.size(); start += batch) {
      const std::vector<std::string> part(texts.begin() + static_cast<std::ptrdiff_t>(start),
                                          texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), start + batch)));
      std::string error;
      bool endpoint_failed = true;
      auto vectors = CallWithRetries(part, retries, read_timeout_ms, error, endpoint_failed);
      if (!error.empty()) {
        if (endpoint_failed) breaker_.RecordFailure(error);
        out.vectors.clear();
        out.error = Prefix() + error;
        return out;
      }
      for (auto& v : vectors) out.vectors.push_back(std::move(v));
    }
    breaker_.RecordSuccess();
    return out;
  }

  std::string Prefix() const { return "embedding endpoint " + endpoint_ + ": "; }

  // `endpoint_failed` false: the request could not be built (a missing key variable), which
  // says nothing about the endpoint and does not count against it.
  std::vector<std::vector<float>> CallWithRetries(const std::vector<std::string>& texts, int retries,
                                                  int read_timeout_ms, std::string& error, bool& endpoint_failed) {
    json body{{"model", config_.model}, {"input", texts}, {"encoding_format", "float"}};
    if (config_.dimensions > 0) body["dimensions"] = config_.dimensions;
    auto req = MakeProviderRequest(config_, url_, target_, sdk::DumpJson(body), "providers.embedding", error);
    if (!req) {
      endpoint_failed = false;
      return {};
    }
    req->read_timeout_ms = read_timeout_ms;
    PostOutcome res = PostWithRetries(*req, retries, config_.backoff_ms);
    if (!res.error.empty()) {
      error = res.error;
      return {};
    }
    return ParseAnswer(res.response.body, texts.size(), error);
  }

  std::vector<std::vector<float>> ParseAnswer(const std::string& body, std::size_t expected, std::string& error) {
    const json j = json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array()) {
      error = "malformed answer (want a JSON object with a \"data\" array)";
      return {};
    }
    const json& data = j["data"];
    if (data.size() != expected) {
      error = "returned " + std::to_string(data.size()) + " embeddings for " + std::to_string(expected) + " inputs";
      return {};
    }
    std::vector<std::vector<float>> out(expected);
    std::vector<bool> seen(expected, false);
    const int want = Dimension();
    int dim = want;
    for (std::size_t i = 0; i < data.size(); ++i) {
      const json& item = data[i];
      if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
        error = "malformed answer: data[" + std::to_string(i) + "] has no \"embedding\" array";
        return {};
      }
      std::size_t index = i;
      if (item.contains("index")) {
        if (!item["index"].is_number_unsigned() || item["index"].get<std::size_t>() >= expected) {
          error = "malformed answer: data[" + std::to_string(i) + "].index is out of range";
          return {};
        }
        index = item["index"].get<std::size_t>();
      }
      if (seen[index]) {
        error = "malformed answer: index " + std::to_string(index) + " appears twice";
        return {};
      }
      seen[index] = true;
      const json& e = item["embedding"];
      if (dim > 0 && e.size() != static_cast<std::size_t>(dim)) {
        error = "returned " + std::to_string(e.size()) + "-dimensional vectors, expected " + std::to_string(dim) +
                (want > 0 && config_.dimensions > 0 ? " (providers.embedding.dimensions)" : "");
        return {};
      }
      dim = static_cast<int>(e.size());
      std::vector<float>& v = out[index];
      v.reserve(e.size());
      for (const json& x : e) {
        if (!x.is_number() || !std::isfinite(x.get<double>())) {
          error = "malformed answer: a non-numeric or non-finite value in embedding " + std::to_string(index);
          return {};
        }
        v.push_back(x.get<float>());
      }
    }
    if (dim <= 0) {
      error = "returned empty embeddings";
      return {};
    }
    std::lock_guard lock(mu_);
    if (config_.dimensions <= 0 && learned_dim_ == 0) learned_dim_ = dim;
    return out;
  }

  const EmbeddingConfig config_;
  const Url url_;
  CircuitBreaker breaker_;
  const std::string target_;
  const std::string endpoint_;
  mutable std::mutex mu_;
  int learned_dim_ = 0;
};

}  // namespace

std::unique_ptr<sdk::Embedder> MakeOpenAiEmbedder(const EmbeddingConfig& config,
                                                  std::shared_ptr<const sdk::Clock> clock,
                                                  std::filesystem::path breaker_state) {
  std::string error;
  auto url = ParseUrl(config.url, &error);
  if (!url) throw std::runtime_error("providers.embedding.url: " + error + " (value: " + config.url + ")");
  if (config.model.empty()) throw std::runtime_error("providers.embedding.model: must not be empty");
  if (!clock) clock = std::make_shared<sdk::SystemClock>();
  return std::make_unique<OpenAiEmbedder>(config, std::move(*url), std::move(clock), std::move(breaker_state));
}

}  // namespace kioku::host::providers
