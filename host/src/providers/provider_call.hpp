#pragma once
/// @file provider_call.hpp
/// What every model-endpoint client shares (the embedder and the chat client): the endpoint
/// name for messages, the API target under "/v1", the Authorization header from the
/// environment, bounded retries with backoff, and the circuit breaker.
///
/// Failure rules (the same for every provider): a timeout, network error, HTTP 429 or 5xx
/// is retried up to `max_retries` times with exponential backoff (backoff_ms, doubling,
/// capped at 4 s, full jitter between half and all of it; a numeric Retry-After is honoured
/// up to the same cap); any other status fails at once. `breaker_failures` failed calls in a
/// row open a circuit breaker: calls fail immediately until `breaker_cooldown_ms` have
/// passed on the host clock, then one trial call decides (Nygard, "Release It!", circuit
/// breaker pattern).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "config.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/embedding.hpp"
#include "providers/http_client.hpp"

namespace kioku::host::providers {

/// "http://127.0.0.1:11434/path" (v6 hosts bracketed); never holds a key.
std::string EndpointName(const Url& url);

/// The request target for `api` ("/embeddings", "/chat/completions") under the URL's path,
/// with "/v1" added once (a URL already ending in "/v1" is not doubled).
std::string ApiTarget(const Url& url, const std::string& api);

/// A POST request for `config` (URL, timeouts, JSON body) with the Authorization header
/// when `config.api_key_env` is set. The key is read from the environment now and never
/// kept elsewhere. nullopt + `error` naming the variable and `config_key` when it is unset.
std::optional<HttpPostRequest> MakeProviderRequest(const ProviderConfig& config, const Url& url,
                                                   const std::string& target, std::string body,
                                                   const std::string& config_key,
                                                   std::string& error);

/// A response of status 200 (error empty), or the reason there is none: "HTTP 500 (after
/// 3 attempts)", "HTTP 401: bad key" (the server's OpenAI-style message, bounded),
/// "read timed out after 100 ms".
struct PostOutcome {
  HttpPostResponse response;
  std::string error;
};

/// Sends `request`, retrying as the file comment says. Blocks during backoff.
PostOutcome PostWithRetries(const HttpPostRequest& request, int max_retries, int backoff_ms);

/// The file the processes of one deployment share a provider's circuit breaker through:
/// `<home>/<kind>.breaker` (kind "embedding" or "chat").
std::filesystem::path BreakerStateFile(const std::filesystem::path& home, const std::string& kind);

/// What a shared breaker file is kept for: the endpoint (EndpointName) and the model, so
/// another model on the same server, or another URL after a config change, starts afresh.
std::string BreakerKey(const std::string& endpoint, const std::string& model);

/// The circuit breaker of one client. Thread-safe.
///
/// With a `shared_state` file the state is the deployment's, not the process's: every
/// process on one KIOKU_HOME (a server, and each `kioku call`, `kioku context` and hook,
/// which are processes of their own) reads the count and the open circuit from it before
/// a call and writes its outcome back (a fresh 0600 file renamed over it, so a reader sees
/// the old or the new state whole). A dead endpoint then costs the first
/// `failures_to_open` calls of the deployment their retries, not every process its own.
/// Two processes updating at once may lose one count (last writer wins). The file holds
/// `key` (BreakerKey), "<failures> <open_until_ms>" and the last error. Only a regular file
/// of at most 4 KiB is read, never through a link; one that is missing, unreadable,
/// garbled or of another key leaves the process's own state, an open time past now +
/// cooldown counts as now + cooldown, and after a write fails the breaker stays in-process.
///
/// After the cooldown, the call Admit() lets through is the trial (Nygard's half-open
/// state): the circuit stays open for every other call and process until it reports, and it
/// should make a single attempt, so a still-dead endpoint costs one connect, not the retries
/// and their backoff. Only endpoint failures count (RecordFailure): a request that could
/// not be built (a missing API key variable) is this process's problem, not the endpoint's.
class CircuitBreaker {
 public:
  CircuitBreaker(int failures_to_open, int cooldown_ms, std::shared_ptr<const sdk::Clock> clock,
                 std::string key = {}, std::filesystem::path shared_state = {});

  struct Admission {
    /// Set when the call may not go ahead: "circuit open after 5 consecutive failures
    /// (last: ...); retrying after 30 s".
    std::optional<std::string> refusal;
    /// The call is the trial after an open circuit's cooldown: one attempt, no retries.
    bool trial = false;
  };
  /// Whether a call may go ahead now (and claims the trial when one is due).
  Admission Admit();
  void RecordFailure(const std::string& error);
  void RecordSuccess();
  sdk::EmbedderHealth Health() const;

 private:
  void LoadShared() const;  // under mu_
  void SaveShared() const;  // under mu_

  const int failures_to_open_;
  const int cooldown_ms_;
  const std::shared_ptr<const sdk::Clock> clock_;
  const std::string key_;
  const std::filesystem::path shared_state_;
  mutable std::mutex mu_;
  mutable bool shared_ok_ = true;  // false after a write failed: in-process from then on
  mutable int failures_ = 0;
  mutable std::int64_t open_until_ms_ = 0;
  mutable std::string last_error_;
};

}  // namespace kioku::host::providers
