#include "providers/provider_call.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace kioku::host::providers {
namespace {

constexpr int kMaxBackoffMs = 4000;

// The server's own error message, when it sent the OpenAI error shape (bounded).
std::string ErrorDetail(const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error")) {
    const nlohmann::json& e = j["error"];
    std::string msg = e.is_object() ? e.value("message", "") : (e.is_string() ? e.get<std::string>() : "");
    if (msg.size() > 200) msg.resize(200);
    if (!msg.empty()) return ": " + msg;
  }
  return "";
}

}  // namespace

std::string EndpointName(const Url& url) {
  return std::string(url.tls ? "https://" : "http://") +
         (url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host) + ":" + url.port + url.path;
}

std::string ApiTarget(const Url& url, const std::string& api) {
  std::string base = url.path;
  if (base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0) base.resize(base.size() - 3);
  return base + "/v1" + api;
}

std::optional<HttpPostRequest> MakeProviderRequest(const ProviderConfig& config, const Url& url,
                                                   const std::string& target, std::string body,
                                                   const std::string& config_key,
                                                   std::string& error) {
  HttpPostRequest req;
  req.url = url;
  req.target = target;
  req.body = std::move(body);
  req.connect_timeout_ms = config.connect_timeout_ms;
  req.read_timeout_ms = config.timeout_ms;
  if (!config.api_key_env.empty()) {
    const char* key = std::getenv(config.api_key_env.c_str());
    if (key == nullptr || *key == '\0') {
      error = "environment variable " + config.api_key_env + " (" + config_key + ".api_key_env) is not set";
      return std::nullopt;
    }
    req.headers.emplace_back("Authorization", std::string("Bearer ") + key);
  }
  return req;
}

PostOutcome PostWithRetries(const HttpPostRequest& request, int max_retries, int backoff_ms) {
  int delay = backoff_ms;
  for (int attempt = 0;; ++attempt) {
    PostOutcome out;
    out.response = HttpPost(request);
    const HttpPostResponse& res = out.response;
    bool retryable = false;
    int retry_after_ms = -1;
    if (!res.error.empty()) {
      out.error = res.error;
      retryable = true;
    } else if (res.status == 429 || res.status >= 500) {
      out.error = "HTTP " + std::to_string(res.status);
      retryable = true;
      if (!res.retry_after.empty() && res.retry_after.size() < 6 &&
          std::all_of(res.retry_after.begin(), res.retry_after.end(), [](unsigned char c) { return std::isdigit(c); })) {
        retry_after_ms = std::stoi(res.retry_after) * 1000;
      }
    } else if (res.status != 200) {
      out.error = "HTTP " + std::to_string(res.status) + ErrorDetail(res.body);
    }
    if (out.error.empty()) return out;
    if (!retryable || attempt >= max_retries) {
      if (attempt > 0) out.error += " (after " + std::to_string(attempt + 1) + " attempts)";
      return out;
    }
    int wait = std::min(retry_after_ms >= 0 ? retry_after_ms : delay, kMaxBackoffMs);
    if (wait > 0) {
      // Full jitter keeps several kioku processes from retrying in lockstep.
      thread_local std::minstd_rand rng{std::random_device{}()};
      std::uniform_int_distribution<int> jitter(wait / 2, wait);
      std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
    }
    delay = std::min(std::max(1, delay) * 2, kMaxBackoffMs);
  }
}

std::filesystem::path BreakerStateFile(const std::filesystem::path& home, const std::string& kind) {
  return home / (kind + ".breaker");
}

std::string BreakerKey(const std::string& endpoint, const std::string& model) { return endpoint + " " + model; }

CircuitBreaker::CircuitBreaker(int failures_to_open, int cooldown_ms, std::shared_ptr<const sdk::Clock> clock,
                               std::string key, std::filesystem::path shared_state)
    : failures_to_open_(failures_to_open),
      cooldown_ms_(cooldown_ms),
      clock_(std::move(clock)),
      key_(std::move(key)),
      shared_state_(std::move(shared_state)) {}

void CircuitBreaker::LoadShared() const {
  if (shared_state_.empty() || !shared_ok_) return;
  // Never blocks or balloons: no FIFO, device or link, at most 4 KiB.
  constexpr std::size_t kMaxBytes = 4096;
  const int fd = ::open(shared_state_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= kMaxBytes) {
    text.resize(kMaxBytes);
    const ssize_t n = ::read(fd, text.data(), text.size());
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  ::close(fd);
  // Another key's or garbled: this process's own state stands.
  std::istringstream in(text);
  std::string key, counts, error;
  if (!std::getline(in, key) || key != key_ || !std::getline(in, counts)) return;
  std::getline(in, error);
  int failures = 0;
  long long open_until = 0;
  if (std::sscanf(counts.c_str(), "%d %lld", &failures, &open_until) != 2 || failures < 0) return;
  failures_ = failures;
  open_until_ms_ = std::min<std::int64_t>(open_until, clock_->NowMs() + cooldown_ms_);
  last_error_ = error;
}

void CircuitBreaker::SaveShared() const {
  if (shared_state_.empty() || !shared_ok_) return;
  std::string error = last_error_;
  std::replace(error.begin(), error.end(), '\n', ' ');
  const std::string text =
      key_ + "\n" + std::to_string(failures_) + " " + std::to_string(open_until_ms_) + "\n" + error + "\n";
  // A fresh 0600 file (never through a link, never someone else's), then a rename over the
  // old one, so readers see the old or the new state whole.
  const std::string tmp = shared_state_.string() + ".tmp" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool saved = false;
  if (fd >= 0) {
    saved = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    saved = saved && ::rename(tmp.c_str(), shared_state_.c_str()) == 0;
    if (!saved) ::unlink(tmp.c_str());
  }
  shared_ok_ = saved;
}

CircuitBreaker::Admission CircuitBreaker::Admit() {
  std::lock_guard lock(mu_);
  LoadShared();
  const std::int64_t now = clock_->NowMs();
  Admission a;
  if (open_until_ms_ > now) {
    a.refusal = "circuit open after " + std::to_string(failures_) + " consecutive failures (last: " + last_error_ +
                "); retrying after " + std::to_string((open_until_ms_ - now + 999) / 1000) + " s";
  } else if (failures_ >= failures_to_open_) {
    // The cooldown is over: this call is the trial; the circuit stays open for the others.
    a.trial = true;
    open_until_ms_ = now + cooldown_ms_;
    SaveShared();
  }
  return a;
}

void CircuitBreaker::RecordFailure(const std::string& error) {
  std::lock_guard lock(mu_);
  LoadShared();
  ++failures_;
  last_error_ = error;
  if (failures_ >= failures_to_open_) open_until_ms_ = clock_->NowMs() + cooldown_ms_;
  SaveShared();
}

void CircuitBreaker::RecordSuccess() {
  std::lock_guard lock(mu_);
  LoadShared();
  const bool was_failing = failures_ > 0 || open_until_ms_ > 0;
  failures_ = 0;
  open_until_ms_ = 0;
  if (was_failing) SaveShared();
}

sdk::EmbedderHealth CircuitBreaker::Health() const {
  std::lock_guard lock(mu_);
  LoadShared();
  sdk::EmbedderHealth h;
  h.consecutive_failures = failures_;
  h.last_error = last_error_;
  h.circuit_open = open_until_ms_ > clock_->NowMs();
  h.retry_at_ms = h.circuit_open ? open_until_ms_ : 0;
  return h;
}

}  // namespace kioku::host::providers
