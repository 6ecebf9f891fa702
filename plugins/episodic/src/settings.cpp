#include "settings.hpp"

#include "kioku/sdk/layer_vectors.hpp"

namespace kioku::episodic {

using Json = nlohmann::json;

Json SettingsSchema() {
  auto integer = [](std::int64_t min, std::int64_t max, std::int64_t def, const char* doc) {
    return Json{{"type", "integer"}, {"minimum", min}, {"maximum", max}, {"default", def},
                {"description", doc}};
  };
  auto boolean = [](bool def, const char* doc) {
    return Json{{"type", "boolean"}, {"default", def}, {"description", doc}};
  };
  Json compaction = {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {{"session_token_budget",
         integer(500, 10'000'000, 40'000,
                 "Fold a session's older summaries once their tokens exceed this.")},
        {"keep_recent_fraction",
         {{"type", "number"},
          {"minimum", 0},
          {"maximum", 0.9},
          {"default", 0.5},
          {"description", "Share of the budget left to the newest summaries, unfolded."}}},
        {"highlight_tokens",
         integer(0, 1'000'000, 2'000, "Room for highlights in a consolidated summary.")},
        {"model_highlights",
         boolean(false, "Chat model writes consolidated highlights (MCP tools only).")}}}};
  Json recall = {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {{"token_budget", integer(100, 200'000, 2'000, "Default session_recall output budget.")},
        {"default_limit", integer(1, 100, 10, "Results when no limit is given.")},
        {"summary_chars", integer(80, 100'000, 1'200, "Bytes of each summary in the text.")}}}};
  Json timeline = {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties", {{"max_items", integer(1, 1'000, 25, "Entries per timeline section.")}}}};
  Json ingest = {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {{"allowed_roots",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4096}}},
          {"maxItems", 64},
          {"default", Json::array({"~/.claude/projects", "~/.codex/sessions"})},
          {"description", "Folders session_ingest may read (\"~\" = $HOME, \"*\" = any)."}}},
        {"max_line_bytes", integer(1024, 1 << 30, 8 << 20, "Longer lines are skipped.")},
        {"batch_bytes", integer(4096, 1 << 30, 16 << 20, "Input bytes per transaction.")},
        {"suggest_memories", boolean(true, "File durable human statements.")},
        {"record_outcomes", boolean(true, "Send tool outcomes to feedback_record.")},
        {"watch_interval_ms", integer(50, 3'600'000, 2'000, "Polling period of --watch.")}}}};
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"compaction", compaction},
            {"recall", recall},
            {"timeline", timeline},
            {"ingest", ingest},
            {"vectors", sdk::VectorSettingsSchema("Summaries")}}}};
}

Settings ParseSettings(const Json& section) {
  Settings s;
  if (!section.is_object()) return s;
  auto obj = [&](const char* key) -> const Json& {
    static const Json kEmpty = Json::object();
    auto it = section.find(key);
    return (it != section.end() && it->is_object()) ? *it : kEmpty;
  };
  const Json& c = obj("compaction");
  s.session_token_budget = c.value("session_token_budget", s.session_token_budget);
  s.keep_recent_fraction = c.value("keep_recent_fraction", s.keep_recent_fraction);
  s.highlight_tokens = c.value("highlight_tokens", s.highlight_tokens);
  s.model_highlights = c.value("model_highlights", s.model_highlights);
  const Json& r = obj("recall");
  s.recall_token_budget = r.value("token_budget", s.recall_token_budget);
  s.recall_default_limit = r.value("default_limit", s.recall_default_limit);
  s.recall_summary_chars = r.value("summary_chars", s.recall_summary_chars);
  const Json& t = obj("timeline");
  s.timeline_max_items = t.value("max_items", s.timeline_max_items);
  const Json& i = obj("ingest");
  if (i.contains("allowed_roots") && i["allowed_roots"].is_array()) {
    s.ingest_allowed_roots = i["allowed_roots"].get<std::vector<std::string>>();
  }
  s.max_line_bytes = i.value("max_line_bytes", s.max_line_bytes);
  s.batch_bytes = i.value("batch_bytes", s.batch_bytes);
  s.suggest_memories = i.value("suggest_memories", s.suggest_memories);
  s.record_outcomes = i.value("record_outcomes", s.record_outcomes);
  s.watch_interval_ms = i.value("watch_interval_ms", s.watch_interval_ms);
  return s;
}

}  // namespace kioku::episodic
