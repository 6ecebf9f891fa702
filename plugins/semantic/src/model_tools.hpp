#pragma once
/// @file model_tools.hpp
/// The model-assisted tools (full profile): memory_reflect (reflect_tool.cpp) and
/// entity_extract_deep (extract_tool.cpp), and what they share: finding the chat model and
/// turning its failures into answers that say nothing was written.
///
/// Every model answer is untrusted input: the host checks it against the JSON schema sent
/// with the request (chat.hpp); these tools then check what a schema cannot (cited ids
/// resolve, names are real, no secret) and write nothing unless all of it checks out.

#include <string>
#include <string_view>

#include "kioku/sdk/chat.hpp"
#include "kioku/sdk/plugin.hpp"
#include "memory.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {

/// source_ref prefix of an observation written by memory_reflect ("reflect:<id>,<id>").
inline constexpr std::string_view kReflectSourcePrefix = "reflect:";

/// source_ref prefix of a memory written by memory_consolidate synthesize
/// ("consolidate:<id>,<id>", consolidate_model.hpp).
inline constexpr std::string_view kConsolidateSourcePrefix = "consolidate:";

/// True for a memory a model wrote (memory_reflect, memory_consolidate synthesize): shown
/// as "derived", never as confirmed ground truth, in recall and in the context block.
inline bool IsModelDerived(const Memory& m) {
  const std::string_view ref(m.source_ref);
  return m.source == "derived" && (ref.substr(0, kReflectSourcePrefix.size()) == kReflectSourcePrefix ||
                                   ref.substr(0, kConsolidateSourcePrefix.size()) == kConsolidateSourcePrefix);
}

/// True for a memory_reflect observation citing a memory that is no longer live
/// (superseded, forgotten or purged): what it synthesized may no longer hold, so recall
/// labels it trust "outdated" and the context block leaves it out. One indexed lookup of
/// the cited ids; false for every other memory.
bool CitesGoneMemory(const Env& env, const Memory& m);

/// JSON Schema of an answer {<text_field>: string, cited: [string]}, both required, nothing
/// else; kept to what strict structured outputs accept (no length keywords: lengths are
/// checked after validation).
Json CitingAnswerSchema(const std::string& text_field);

/// What an answer's `cited` array names, against the ids the model was sent: `found` holds
/// indexes into `ids` in answer order, `unknown` the other ids as sent (both trimmed, each id
/// once).
struct Citations {
  std::vector<std::size_t> found;
  std::vector<std::string> unknown;
};
Citations ResolveCitations(const Json& cited, const std::vector<std::string>& ids);

/// The deployment's chat model; ToolError naming `tool` and the config to set when none.
sdk::ChatModel& RequireChatModel(ToolContext& ctx, const char* tool);

/// Sends `request` (which has a json_schema) and returns the validated JSON answer.
/// ToolError, saying nothing was written, when the endpoint is unavailable or the answer
/// is not JSON / does not match the schema.
Json AskModelForJson(sdk::ChatModel& chat, const sdk::ChatRequest& request);

/// ToolError "the model's answer was rejected (nothing was written): <why>".
[[noreturn]] void RejectAnswer(const std::string& why);

/// memory_reflect.
void RegisterReflectTool(sdk::Registrar& registrar, ToolContext& ctx);
/// entity_extract_deep.
void RegisterExtractTool(sdk::Registrar& registrar, ToolContext& ctx);

}  // namespace kioku::semantic
