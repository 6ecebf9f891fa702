#pragma once
/// @file chat.hpp
/// The chat provider contract: messages in, one model answer out, for the optional
/// model-assisted work (memory_reflect, entity_extract_deep, episodic model highlights).
/// The host builds one chat model from the config (`providers.chat`, an OpenAI-compatible
/// chat-completions endpoint) and hands it to plugins through HostServices::GetChatModel();
/// none is configured by default (the tools then say what to configure).
///
/// Every answer is untrusted input. With a `json_schema` the host checks the answer
/// against it (JSON Schema draft 7) before returning it, so a plugin receives either a
/// conforming JSON value or an error; the plugin still checks what a schema cannot (that
/// cited ids exist, that names are non-empty after trimming) and writes nothing otherwise.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kioku/sdk/embedding.hpp"

namespace kioku::sdk {

/// One chat message, as in the OpenAI chat-completions API.
struct ChatMessage {
  std::string role;  ///< "system" | "user" | "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  /// JSON Schema (draft 7) the answer must satisfy; null = free text. Sent to the endpoint
  /// as `response_format` (config `providers.chat.response_format`) and always checked by
  /// the host, whatever the endpoint promises.
  nlohmann::json json_schema;
  /// Name of the schema in `response_format.json_schema.name` (`^[a-zA-Z0-9_-]{1,64}$`).
  std::string schema_name = "answer";
  /// Most tokens to generate; 0 = the config's `max_tokens`.
  int max_tokens = 0;
};

/// Why a call failed.
enum class ChatError {
  kNone,
  /// The endpoint did not answer usefully: network, timeout, HTTP status, malformed
  /// envelope, circuit open, missing key. Nothing the model said is involved.
  kUnavailable,
  /// The endpoint answered, but the model's content is not JSON or does not match
  /// `json_schema`. Counted as a success for the circuit breaker (the endpoint is healthy).
  kInvalidAnswer,
};

/// The answer to one Complete call.
struct ChatResult {
  std::string text;    ///< The model's content (fences stripped when a schema was given).
  nlohmann::json json; ///< Parsed `text` when the request had a schema and ok(); else null.
  /// Empty on success. Otherwise one line a person can act on, e.g.
  /// "chat endpoint http://127.0.0.1:11434: HTTP 500 (after 3 attempts)",
  /// "... answer is not JSON: ...", "... answer does not match the schema: cited[0]: ...".
  /// Never holds the API key.
  std::string error;
  ChatError kind = ChatError::kNone;
  bool circuit_open = false;  ///< Refused without trying (see EmbedResult::circuit_open).

  bool ok() const { return error.empty(); }
};

/// A chat-completions model. Implementations must be thread-safe (request threads call it
/// concurrently). Never throws for endpoint, network or answer faults: they come back as
/// ChatResult::error.
class ChatModel {
 public:
  virtual ~ChatModel() = default;

  /// The model name sent to the endpoint, e.g. "qwen2.5:7b-instruct".
  virtual std::string Model() const = 0;

  /// Sends `request` and returns the first choice's content. Blocks for at most the
  /// configured timeouts times the retry count plus backoff.
  virtual ChatResult Complete(const ChatRequest& request) = 0;

  /// Current health (no network traffic). Same shape as the embedder's.
  virtual EmbedderHealth Health() const = 0;

  /// Where it sends requests, for messages; never the key.
  virtual std::string Endpoint() const = 0;
};

}  // namespace kioku::sdk
