#include "kioku/sdk/layer_contracts.hpp"

#include <utility>

#include "kioku/sdk/clock.hpp"

namespace kioku::sdk::contract {

Json SessionStartArgs(std::string_view session_id) {
  return {{"session_id", std::string(session_id)}};
}

Json SessionSummaryAddArgs(std::string_view session_id, std::string_view summary) {
  return {{"session_id", std::string(session_id)}, {"summary", std::string(summary)}};
}

Json MemorySuggestArgs(const MemorySuggestion& s) {
  Json args = {{"text", s.text},
               {"kind", s.kind},
               {"source", s.source},
               {"source_ref", s.source_ref},
               {"tags", s.tags}};
  if (!s.subject.empty()) {
    args["subject"] = s.subject;
    args["value"] = s.value;
  }
  return args;
}

Json FeedbackRecordItem(const ToolOutcome& o) {
  Json r = {{"tool", o.tool},
            {"outcome", o.outcome},
            {"session_id", o.session_id},
            {"project_id", o.project_id}};
  const std::pair<const char*, const std::string*> optional_text[] = {
      {"agent_id", &o.agent_id}, {"model", &o.model}, {"error", &o.error},
      {"source_id", &o.source_id}};
  for (const auto& [key, value] : optional_text) {
    if (!value->empty()) r[key] = *value;
  }
  if (o.at_ms) r["at"] = FormatRfc3339(*o.at_ms);
  if (o.latency_ms) r["latency_ms"] = *o.latency_ms;
  return r;
}

Json FeedbackRecordArgs(Json records) { return {{"records", std::move(records)}}; }

std::optional<std::int64_t> FeedbackRecordExpired(const Json& structured) {
  if (!structured.is_object()) return std::nullopt;
  auto it = structured.find("expired");
  if (it == structured.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

}  // namespace kioku::sdk::contract
