#include "settings.hpp"

#include "kioku/sdk/settings.hpp"

namespace kioku::affective {

nlohmann::json SettingsSchema() {
  using nlohmann::json;
  const json name_list = {{"type", "array"},
                          {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}}},
                          {"maxItems", 1000}};
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {{"half_life_days",
         {{"type", "number"}, {"minimum", 0.01}, {"maximum", 3650}, {"default", 14},
          {"description", "Recency half-life in days used by feedback_route."}}},
        {"min_samples",
         {{"type", "number"}, {"minimum", 0}, {"maximum", 1e9}, {"default", 10},
          {"description", "Effective sample size at which a routing score is confident."}}},
        {"z",
         {{"type", "number"}, {"minimum", 0.1}, {"maximum", 5}, {"default", 1.96},
          {"description", "Normal quantile of the Wilson lower bound (1.96 = 95%)."}}},
        {"explore_weight",
         {{"type", "number"}, {"minimum", 0}, {"maximum", 10}, {"default", 1.0},
          {"description", "Weight of the UCB1 exploration bonus when explore is true."}}},
        {"retention_days",
         {{"type", "integer"}, {"minimum", 1}, {"maximum", 36500}, {"default", 90},
          {"description", "Raw outcome rows older than this are deleted; day buckets stay."}}},
        {"error_max_bytes",
         {{"type", "integer"}, {"minimum", 32}, {"maximum", 10000}, {"default", 500},
          {"description", "Stored error text is truncated to this many bytes."}}},
        {"recent_failures",
         {{"type", "integer"}, {"minimum", 0}, {"maximum", 50}, {"default", 5},
          {"description", "Recent failures listed per tool by feedback_query."}}},
        {"capture",
         {{"type", "boolean"}, {"default", true},
          {"description", "Record every kioku tool call automatically."}}},
        {"capture_exclude", sdk::Setting(name_list, json::array())},
        {"hook",
         {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"agent_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200},
                          {"default", "claude-code"}}},
            {"skip_mcp_servers", sdk::Setting(name_list, json::array({"kioku"}))}}}}}}}};
}

Settings ParseSettings(const nlohmann::json& section) {
  Settings s;
  if (!section.is_object()) return s;
  s.half_life_days = section.value("half_life_days", s.half_life_days);
  s.min_samples = section.value("min_samples", s.min_samples);
  s.z = section.value("z", s.z);
  s.explore_weight = section.value("explore_weight", s.explore_weight);
  s.retention_days = section.value("retention_days", s.retention_days);
  s.error_max_bytes = section.value("error_max_bytes", s.error_max_bytes);
  s.recent_failures = section.value("recent_failures", s.recent_failures);
  s.capture = section.value("capture", s.capture);
  s.capture_exclude = section.value("capture_exclude", s.capture_exclude);
  if (auto it = section.find("hook"); it != section.end() && it->is_object()) {
    s.hook.agent_id = it->value("agent_id", s.hook.agent_id);
    s.hook.skip_mcp_servers = it->value("skip_mcp_servers", s.hook.skip_mcp_servers);
  }
  return s;
}

}  // namespace kioku::affective
