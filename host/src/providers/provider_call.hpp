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

/// The circuit breaker of one client. Thread-safe.
///
/// With a `shared_state` file the state is the deployment's, not the process's: every
/// process on one KIOKU_HOME (a server, and each `kioku call`, `kioku context` and hook,
/// which are processes of their own) reads the count and the open circuit from it before
/// a call and writes its outcome back (a rename, so a reader never sees half a file). A
/// dead endpoint then costs the first `failures_to_open` calls of the deployment their
/// retries, not every process its own. Updates of two processes at once may lose one
/// count (last writer wins). The file names its endpoint; a missing, unreadable or garbled
/// file, or one of another endpoint (the config changed), leaves the process's own state,
/// and a file that cannot be written keeps the breaker in-process.
///
/// After the cooldown, the one call let through is a trial (Nygard's half-open state): it
/// should make a single attempt (Trial()), so a still-dead endpoint costs one connect, not
/// the retries and their backoff.
class CircuitBreaker {
 public:
  CircuitBreaker(int failures_to_open, int cooldown_ms, std::shared_ptr<const sdk::Clock> clock,
                 std::string endpoint = {}, std::filesystem::path shared_state = {});

  /// The message to fail with while the circuit is open ("circuit open after 5 consecutive
  /// failures (last: ...); retrying after 30 s"); nullopt when a call may go ahead.
  std::optional<std::string> Refusal() const;
  /// Whether a call now would be the trial after an open circuit's cooldown (as of the last
  /// Refusal()): the caller makes one attempt, without retries.
  bool Trial() const;
  void RecordFailure(const std::string& error);
  void RecordSuccess();
  sdk::EmbedderHealth Health() const;

 private:
  void LoadShared() const;  // under mu_
  void SaveShared() const;  // under mu_

  const int failures_to_open_;
  const int cooldown_ms_;
  const std::shared_ptr<const sdk::Clock> clock_;
  const std::string endpoint_;
  const std::filesystem::path shared_state_;
  mutable std::mutex mu_;
  mutable int failures_ = 0;
  mutable std::int64_t open_until_ms_ = 0;
  mutable std::string last_error_;
};

}  // namespace kioku::host::providers
