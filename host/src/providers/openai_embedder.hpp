#pragma once
/// @file openai_embedder.hpp
/// The built-in embedder: an OpenAI-compatible `POST {url}/v1/embeddings` client (OpenAI,
/// Ollama, llama.cpp server, LM Studio, vLLM). Request body
///   {"model": M, "input": [texts...], "dimensions": D (only when configured)}
/// answer {"data": [{"index": i, "embedding": [floats...]}, ...]} (OpenAI API reference,
/// "Create embeddings"). The API key is read from the environment variable `api_key_env`
/// at each request and sent as "Authorization: Bearer"; it is never stored in this object,
/// logged, or put in an error.
///
/// Failure rules: a timeout, network error, HTTP 429 or 5xx is retried up to `max_retries`
/// times with exponential backoff (backoff_ms, doubling, capped at 4 s; Retry-After honoured
/// up to the same cap); any other status, malformed JSON, a wrong vector count or length, or
/// a non-finite value fails the call at once. `breaker_failures` failed calls in a row open
/// a circuit breaker: calls fail immediately (EmbedResult::circuit_open) until
/// `breaker_cooldown_ms` have passed on the host clock, then one trial call decides
/// (Nygard, "Release It!", circuit breaker pattern).

#include <memory>

#include "config.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/embedding.hpp"

namespace kioku::host::providers {

/// Builds the client. Throws std::runtime_error naming the key when `config.url` is not a
/// valid http(s) URL. `clock` drives the breaker (a ManualClock in tests).
std::unique_ptr<sdk::Embedder> MakeOpenAiEmbedder(const EmbeddingConfig& config,
                                                  std::shared_ptr<const sdk::Clock> clock);

}  // namespace kioku::host::providers
