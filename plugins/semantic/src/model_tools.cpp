#include "model_tools.hpp"

namespace kioku::semantic {

sdk::ChatModel& RequireChatModel(ToolContext& ctx, const char* tool) {
  sdk::ChatModel* chat = ctx.host.GetChatModel();
  if (chat == nullptr) {
    throw sdk::ToolError(std::string(tool) +
                         " needs a chat model, and none is configured: set providers.chat {url, model} in "
                         "kioku.yaml (an OpenAI-compatible server: Ollama, llama.cpp, vLLM, LM Studio, "
                         "OpenAI; api_key_env names the key's variable), restart, and check it with "
                         "kioku doctor --online");
  }
  return *chat;
}

void RejectAnswer(const std::string& why) {
  throw sdk::ToolError("the model's answer was rejected (nothing was written): " + why);
}

Json AskModelForJson(sdk::ChatModel& chat, const sdk::ChatRequest& request) {
  const sdk::ChatResult r = chat.Complete(request);
  if (r.ok()) return r.json;
  if (r.kind == sdk::ChatError::kInvalidAnswer) RejectAnswer(r.error);
  throw sdk::ToolError("the chat model is unavailable (nothing was written): " + r.error +
                       (r.circuit_open ? "" : "; kioku doctor --online checks the endpoint"));
}

}  // namespace kioku::semantic
