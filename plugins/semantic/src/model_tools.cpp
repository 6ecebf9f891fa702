#include "model_tools.hpp"

#include <algorithm>
#include <set>

#include "kioku/sdk/json.hpp"
#include "normalize.hpp"

namespace kioku::semantic {

bool CitesGoneMemory(const Env& env, const Memory& m) {
  const std::string_view ref(m.source_ref);
  if (m.source != "derived" || ref.substr(0, kReflectSourcePrefix.size()) != kReflectSourcePrefix) return false;
  std::string_view rest = ref.substr(kReflectSourcePrefix.size());
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (const std::string_view id = rest.substr(0, comma); !id.empty()) {
      const std::optional<std::int64_t> seq = MemorySeqOfId(env.db, std::string(id));
      if (!seq) return true;
      sdk::CachedStatement q = env.Stmt("SELECT 1 FROM semantic_memories WHERE seq = ? AND status IN ('active', 'pinned')");
      sdk::Bind(*q, *seq);
      if (!q->executeStep()) return true;
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}

Json CitingAnswerSchema(const std::string& text_field) {
  return {{"type", "object"},
          {"properties", {{text_field, {{"type", "string"}}}, {"cited", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
          {"required", {text_field, "cited"}},
          {"additionalProperties", false}};
}

Citations ResolveCitations(const Json& cited, const std::vector<std::string>& ids) {
  Citations out;
  std::set<std::string> seen;
  for (const Json& id_json : cited) {
    const std::string id(Trim(id_json.get<std::string>()));
    if (!seen.insert(id).second) continue;
    const auto it = std::find(ids.begin(), ids.end(), id);
    if (it == ids.end()) {
      out.unknown.push_back(id);
    } else {
      out.found.push_back(static_cast<std::size_t>(it - ids.begin()));
    }
  }
  return out;
}

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
