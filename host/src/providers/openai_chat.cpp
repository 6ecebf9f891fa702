#include "providers/openai_chat.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "json_schema.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/text.hpp"
#include "providers/http_client.hpp"
#include "providers/provider_call.hpp"

namespace kioku::host::providers {
namespace {

using nlohmann::json;

// Models often wrap JSON in a Markdown fence even when asked not to.
std::string StripFence(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text.compare(first, 3, "```") != 0) return text;
  const auto body = text.find('\n', first);
  const auto close = text.rfind("```");
  if (body == std::string::npos || close == std::string::npos || close <= body) return text;
  return text.substr(body + 1, close - body - 1);
}

class OpenAiChat final : public sdk::ChatModel {
 public:
  OpenAiChat(ChatConfig config, Url url, std::shared_ptr<const sdk::Clock> clock, std::filesystem::path breaker_state)
      : config_(std::move(config)),
        url_(std::move(url)),
        breaker_(config_.breaker_failures, config_.breaker_cooldown_ms, std::move(clock),
                 BreakerKey(EndpointName(url_), config_.model), std::move(breaker_state)),
        target_(ApiTarget(url_, "/chat/completions")),
        endpoint_(EndpointName(url_)) {}

  std::string Model() const override { return config_.model; }
  std::string Endpoint() const override { return endpoint_; }
  sdk::EmbedderHealth Health() const override { return breaker_.Health(); }

  sdk::ChatResult Complete(const sdk::ChatRequest& request) override {
    sdk::ChatResult out;
    const CircuitBreaker::Admission admission = breaker_.Admit();
    if (admission.refusal) {
      out.circuit_open = true;
      return Fail(out, sdk::ChatError::kUnavailable, *admission.refusal);
    }
    // Compiled before any traffic: a malformed schema is the caller's bug, not the model's.
    std::unique_ptr<JsonSchema> schema;
    if (!request.json_schema.is_null()) {
      try {
        schema = std::make_unique<JsonSchema>(request.json_schema);
      } catch (const std::exception& e) {
        return Fail(out, sdk::ChatError::kInvalidAnswer, std::string("request schema is malformed: ") + e.what());
      }
    }
    std::string error;
    auto req = MakeProviderRequest(config_, url_, target_, sdk::DumpJson(Body(request)), "providers.chat", error);
    if (!req) return Fail(out, sdk::ChatError::kUnavailable, error);  // ours (a missing key), not the endpoint's
    PostOutcome res = PostWithRetries(*req, admission.trial ? 0 : config_.max_retries, config_.backoff_ms);
    if (!res.error.empty()) return Unavailable(out, res.error);
    const json envelope = json::parse(res.response.body, nullptr, false);
    const json* content = nullptr;
    if (envelope.is_object() && envelope.contains("choices") && envelope["choices"].is_array() &&
        !envelope["choices"].empty() && envelope["choices"][0].is_object()) {
      const json& choice = envelope["choices"][0];
      if (choice.contains("message") && choice["message"].is_object() && choice["message"].contains("content") &&
          choice["message"]["content"].is_string()) {
        content = &choice["message"]["content"];
      }
    }
    if (content == nullptr) {
      return Unavailable(out, "malformed answer (want {\"choices\": [{\"message\": {\"content\": \"...\"}}]})");
    }
    breaker_.RecordSuccess();
    out.text = content->get<std::string>();
    if (!schema) return out;
    out.text = StripFence(out.text);
    json value = json::parse(out.text, nullptr, false);
    if (value.is_discarded()) {
      return Fail(out, sdk::ChatError::kInvalidAnswer,
                  "answer is not JSON (it begins \"" + sdk::TruncateUtf8(sdk::CollapseWhitespace(out.text), 60) + "\")");
    }
    const std::vector<std::string> violations = schema->Validate(value);
    if (!violations.empty()) {
      return Fail(out, sdk::ChatError::kInvalidAnswer, "answer does not match the schema: " + JoinViolations(violations, 3));
    }
    out.json = std::move(value);
    return out;
  }

 private:
  json Body(const sdk::ChatRequest& request) const {
    json messages = json::array();
    for (const sdk::ChatMessage& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    json body{{"model", config_.model},
              {"messages", messages},
              {"temperature", config_.temperature},
              {"max_tokens", request.max_tokens > 0 ? request.max_tokens : config_.max_tokens},
              {"stream", false}};
    if (!request.json_schema.is_null()) {
      if (config_.response_format == "json_schema") {
        body["response_format"] = {
            {"type", "json_schema"},
            {"json_schema", {{"name", request.schema_name}, {"schema", request.json_schema}, {"strict", true}}}};
      } else if (config_.response_format == "json_object") {
        body["response_format"] = {{"type", "json_object"}};
      }
    }
    return body;
  }

  sdk::ChatResult& Fail(sdk::ChatResult& out, sdk::ChatError kind, const std::string& error) const {
    out.kind = kind;
    out.error = "chat endpoint " + endpoint_ + ": " + error;
    out.json = nullptr;
    return out;
  }

  sdk::ChatResult& Unavailable(sdk::ChatResult& out, const std::string& error) {
    breaker_.RecordFailure(error);
    return Fail(out, sdk::ChatError::kUnavailable, error);
  }

  const ChatConfig config_;
  const Url url_;
  CircuitBreaker breaker_;
  const std::string target_;
  const std::string endpoint_;
};

}  // namespace

std::unique_ptr<sdk::ChatModel> MakeOpenAiChat(const ChatConfig& config, std::shared_ptr<const sdk::Clock> clock,
                                               std::filesystem::path breaker_state) {
  std::string error;
  auto url = ParseUrl(config.url, &error);
  if (!url) throw std::runtime_error("providers.chat.url: " + error + " (value: " + config.url + ")");
  if (config.model.empty()) throw std::runtime_error("providers.chat.model: must not be empty");
  if (!clock) clock = std::make_shared<sdk::SystemClock>();
  return std::make_unique<OpenAiChat>(config, std::move(*url), std::move(clock), std::move(breaker_state));
}

}  // namespace kioku::host::providers
