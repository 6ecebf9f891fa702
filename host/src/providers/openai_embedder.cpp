#include "providers/openai_embedder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "kioku/sdk/json.hpp"
#include "providers/http_client.hpp"

namespace kioku::host::providers {
namespace {

using nlohmann::json;

constexpr int kMaxBackoffMs = 4000;

struct Attempt {
  std::vector<std::vector<float>> vectors;
  std::string error;
  bool retryable = false;
  int retry_after_ms = -1;
};

class OpenAiEmbedder final : public sdk::Embedder {
 public:
  OpenAiEmbedder(EmbeddingConfig config, Url url, std::shared_ptr<const sdk::Clock> clock)
      : config_(std::move(config)), url_(std::move(url)), clock_(std::move(clock)) {
    std::string base = url_.path;
    if (base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0) base.resize(base.size() - 3);
    target_ = base + "/v1/embeddings";
    endpoint_ = std::string(url_.tls ? "https://" : "http://") +
                (url_.host.find(':') != std::string::npos ? "[" + url_.host + "]" : url_.host) + ":" +
                url_.port + url_.path;
  }

  std::string Model() const override { return config_.model; }

  int Dimension() const override {
    std::lock_guard lock(mu_);
    return config_.dimensions > 0 ? config_.dimensions : learned_dim_;
  }

  std::string Endpoint() const override { return endpoint_; }

  sdk::EmbedderHealth Health() const override {
    std::lock_guard lock(mu_);
    sdk::EmbedderHealth h;
    h.consecutive_failures = failures_;
    h.last_error = last_error_;
    h.circuit_open = open_until_ms_ > clock_->NowMs();
    h.retry_at_ms = h.circuit_open ? open_until_ms_ : 0;
    return h;
  }

  sdk::EmbedResult Embed(const std::vector<std::string>& texts) override {
    sdk::EmbedResult out;
    if (texts.empty()) return out;
    {
      std::lock_guard lock(mu_);
      const std::int64_t now = clock_->NowMs();
      if (open_until_ms_ > now) {
        out.circuit_open = true;
        out.error = Prefix() + "circuit open after " + std::to_string(failures_) +
                    " consecutive failures (last: " + last_error_ + "); retrying after " +
                    std::to_string((open_until_ms_ - now + 999) / 1000) + " s";
        return out;
      }
    }
    const auto batch = static_cast<std::size_t>(std::max(1, config_.batch_size));
    for (std::size_t start = 0; start < texts.size(); start += batch) {
      const std::vector<std::string> part(texts.begin() + static_cast<std::ptrdiff_t>(start),
                                          texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), start + batch)));
      std::string error;
      auto vectors = CallWithRetries(part, error);
      if (!error.empty()) {
        RecordFailure(error);
        out.vectors.clear();
        out.error = Prefix() + error;
        return out;
      }
      for (auto& v : vectors) out.vectors.push_back(std::move(v));
    }
    RecordSuccess();
    return out;
  }

 private:
  std::string Prefix() const { return "embedding endpoint " + endpoint_ + ": "; }

  void RecordFailure(const std::string& error) {
    std::lock_guard lock(mu_);
    ++failures_;
    last_error_ = error;
    if (failures_ >= config_.breaker_failures) open_until_ms_ = clock_->NowMs() + config_.breaker_cooldown_ms;
  }

  void RecordSuccess() {
    std::lock_guard lock(mu_);
    failures_ = 0;
    open_until_ms_ = 0;
  }

  std::vector<std::vector<float>> CallWithRetries(const std::vector<std::string>& texts, std::string& error) {
    json body{{"model", config_.model}, {"input", texts}, {"encoding_format", "float"}};
    if (config_.dimensions > 0) body["dimensions"] = config_.dimensions;
    HttpPostRequest req;
    req.url = url_;
    req.target = target_;
    req.body = sdk::DumpJson(body);
    req.connect_timeout_ms = config_.connect_timeout_ms;
    req.read_timeout_ms = config_.timeout_ms;
    if (!config_.api_key_env.empty()) {
      const char* key = std::getenv(config_.api_key_env.c_str());
      if (key == nullptr || *key == '\0') {
        error = "environment variable " + config_.api_key_env + " (providers.embedding.api_key_env) is not set";
        return {};
      }
      req.headers.emplace_back("Authorization", std::string("Bearer ") + key);
    }
    int delay = config_.backoff_ms;
    for (int attempt = 0;; ++attempt) {
      Attempt a = Once(req, texts.size());
      if (a.error.empty()) return std::move(a.vectors);
      if (!a.retryable || attempt >= config_.max_retries) {
        error = a.error + (attempt > 0 ? " (after " + std::to_string(attempt + 1) + " attempts)" : "");
        return {};
      }
      int wait = a.retry_after_ms >= 0 ? a.retry_after_ms : delay;
      wait = std::min(wait, kMaxBackoffMs);
      if (wait > 0) {
        // Full jitter keeps several kioku processes from retrying in lockstep.
        thread_local std::minstd_rand rng{std::random_device{}()};
        std::uniform_int_distribution<int> jitter(wait / 2, wait);
        std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
      }
      delay = std::min(std::max(1, delay) * 2, kMaxBackoffMs);
    }
  }

  Attempt Once(const HttpPostRequest& req, std::size_t expected) {
    Attempt a;
    HttpPostResponse res = HttpPost(req);
    if (!res.error.empty()) {
      a.error = res.error;
      a.retryable = true;
      return a;
    }
    if (res.status == 429 || res.status >= 500) {
      a.error = "HTTP " + std::to_string(res.status);
      a.retryable = true;
      if (!res.retry_after.empty() && std::all_of(res.retry_after.begin(), res.retry_after.end(), ::isdigit) &&
          res.retry_after.size() < 6) {
        a.retry_after_ms = std::stoi(res.retry_after) * 1000;
      }
      return a;
    }
    if (res.status != 200) {
      a.error = "HTTP " + std::to_string(res.status) + ErrorDetail(res.body);
      return a;
    }
    a.vectors = ParseAnswer(res.body, expected, a.error);
    return a;
  }

  // The server's own error message, when it sent the OpenAI error shape (bounded).
  static std::string ErrorDetail(const std::string& body) {
    const json j = json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("error")) {
      const json& e = j["error"];
      std::string msg = e.is_object() ? e.value("message", "") : (e.is_string() ? e.get<std::string>() : "");
      if (msg.size() > 200) msg.resize(200);
      if (!msg.empty()) return ": " + msg;
    }
    return "";
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
  const std::shared_ptr<const sdk::Clock> clock_;
  std::string target_;
  std::string endpoint_;
  mutable std::mutex mu_;
  int learned_dim_ = 0;
  int failures_ = 0;
  std::int64_t open_until_ms_ = 0;
  std::string last_error_;
};

}  // namespace

std::unique_ptr<sdk::Embedder> MakeOpenAiEmbedder(const EmbeddingConfig& config,
                                                  std::shared_ptr<const sdk::Clock> clock) {
  std::string error;
  auto url = ParseUrl(config.url, &error);
  if (!url) throw std::runtime_error("providers.embedding.url: " + error + " (value: " + config.url + ")");
  if (config.model.empty()) throw std::runtime_error("providers.embedding.model: must not be empty");
  if (!clock) clock = std::make_shared<sdk::SystemClock>();
  return std::make_unique<OpenAiEmbedder>(config, std::move(*url), std::move(clock));
}

}  // namespace kioku::host::providers
