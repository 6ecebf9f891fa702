#pragma once
/// @file embedding.hpp
/// The embedding provider contract: text in, float32 vectors out. The host builds one
/// embedder from the config (`providers.embedding`, an OpenAI-compatible endpoint) and hands
/// it to plugins through HostServices::GetEmbedder(); none is configured by default
/// (kioku then searches text only). Light on purpose: no HTTP or JSON types here.

#include <cstdint>
#include <string>
#include <vector>

namespace kioku::sdk {

/// The answer to one Embed call: either `vectors` (one per input text, same order) or an
/// `error`, never both.
struct EmbedResult {
  std::vector<std::vector<float>> vectors;
  /// Empty on success. Otherwise one line a person can act on, e.g.
  /// "embedding endpoint http://127.0.0.1:11434: connect timed out after 2000 ms",
  /// "... HTTP 429 after 3 attempts", "... returned 512-dimensional vectors, expected 384",
  /// "... circuit open after 5 consecutive failures; retrying after 30 s". Never holds the
  /// API key.
  std::string error;
  /// True when the embedder did not even try (circuit open): the caller should not retry
  /// soon.
  bool circuit_open = false;

  bool ok() const { return error.empty(); }
};

/// What an embedder knows about its own health, for `kioku doctor` and degraded notices.
struct EmbedderHealth {
  bool circuit_open = false;      ///< Requests are refused without trying until `retry_at_ms`.
  std::int64_t retry_at_ms = 0;   ///< Host clock, Unix ms; 0 when closed.
  int consecutive_failures = 0;   ///< Calls that failed in a row (reset by a success).
  std::string last_error;         ///< The last failure's message ("" = none yet).
};

/// A text embedder. Implementations must be thread-safe: the background embed worker and
/// request threads (query embedding) call it concurrently.
///
/// Contract of every vector returned with ok(): exactly Dimension() finite float32 values
/// (the host's client checks this and reports a mismatch as an error instead of returning
/// it). Vectors are NOT necessarily normalized; callers normalize (vectors.hpp) and must
/// still refuse zero-norm vectors.
class Embedder {
 public:
  virtual ~Embedder() = default;

  /// The model name sent to the endpoint and recorded with every stored vector, e.g.
  /// "nomic-embed-text". Vectors of different models are never compared.
  virtual std::string Model() const = 0;

  /// Vector length: the configured `dimensions`, else the length the endpoint returned
  /// first; 0 while unknown (nothing embedded yet).
  virtual int Dimension() const = 0;

  /// Embeds `texts` (at most a few hundred; the client splits larger batches). Blocks for
  /// at most the configured timeouts times the retry count plus backoff. Never throws for
  /// endpoint or network faults: they come back as EmbedResult::error.
  virtual EmbedResult Embed(const std::vector<std::string>& texts) = 0;

  /// Embeds a search query while a caller waits (recall): the host's client makes one
  /// attempt, no retries, with its read timeout cut to `providers.embedding.
  /// query_timeout_ms`, so a hung endpoint costs a recall seconds, not timeouts times
  /// attempts (with the defaults 45 s, past the call's own deadline). A failure counts for
  /// the circuit breaker like any other; the caller falls back to text search. Default:
  /// Embed({text}).
  virtual EmbedResult EmbedQuery(const std::string& text) { return Embed({text}); }

  /// Current health (no network traffic).
  virtual EmbedderHealth Health() const = 0;

  /// Where it sends requests, for messages ("http://127.0.0.1:11434"); never the key.
  virtual std::string Endpoint() const = 0;
};

}  // namespace kioku::sdk
