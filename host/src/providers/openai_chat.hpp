#pragma once
/// @file openai_chat.hpp
/// The built-in chat model: an OpenAI-compatible `POST {url}/v1/chat/completions` client
/// (OpenAI, Ollama, llama.cpp server, LM Studio, vLLM). Request body
///   {"model": M, "messages": [{"role", "content"}...], "temperature": T, "max_tokens": N,
///    "response_format": {"type": "json_schema", "json_schema": {"name", "schema",
///    "strict": true}}}   (or {"type": "json_object"}, or absent: config response_format)
/// answer {"choices": [{"message": {"content": "..."}}]} (OpenAI API reference, "Create
/// chat completion"; "Structured Outputs" for response_format). The key is handled as in
/// openai_embedder.hpp.
///
/// Failure rules: providers/provider_call.hpp (retries, backoff, circuit breaker). An
/// envelope that is not the shape above is sdk::ChatError::kUnavailable and counts as a
/// failure. With a schema, the content (a ```json fence stripped) must parse as JSON and
/// satisfy the schema (valijson, json_schema.hpp), else sdk::ChatError::kInvalidAnswer,
/// not retried and not counted against the endpoint.

#include <filesystem>
#include <memory>

#include "config.hpp"
#include "kioku/sdk/chat.hpp"
#include "kioku/sdk/clock.hpp"

namespace kioku::host::providers {

/// Builds the client. Throws std::runtime_error naming the key when `config.url` is not a
/// valid http(s) URL or the model is empty. `clock` drives the breaker (null = system);
/// `breaker_state`: the file the deployment's processes share it through (CircuitBreaker,
/// provider_call.hpp), empty = this client's own.
std::unique_ptr<sdk::ChatModel> MakeOpenAiChat(const ChatConfig& config, std::shared_ptr<const sdk::Clock> clock,
                                               std::filesystem::path breaker_state = {});

}  // namespace kioku::host::providers
