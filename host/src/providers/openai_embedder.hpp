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
/// Failure rules: providers/provider_call.hpp (retries, backoff, circuit breaker); in
/// addition malformed JSON, a wrong vector count or length, or a non-finite value fails the
/// call at once and counts as a failure for the breaker.

#include <filesystem>
#include <memory>

#include "config.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/embedding.hpp"

namespace kioku::host::providers {

/// Builds the client. Throws std::runtime_error naming the key when `config.url` is not a
/// valid http(s) URL. `clock` drives the breaker (a ManualClock in tests); `breaker_state`:
/// the file the deployment's processes share it through (CircuitBreaker, provider_call.hpp),
/// empty = this client's own.
std::unique_ptr<sdk::Embedder> MakeOpenAiEmbedder(const EmbeddingConfig& config,
                                                  std::shared_ptr<const sdk::Clock> clock,
                                                  std::filesystem::path breaker_state = {});

}  // namespace kioku::host::providers
