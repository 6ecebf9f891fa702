#include "kioku/sdk/events.hpp"

#include <cmath>

namespace kioku::sdk {
namespace {

// Payloads may come from other plugins or older hosts: a missing key or a value of the
// wrong type leaves the default instead of throwing.
void ReadString(const nlohmann::json& payload, const char* key, std::string& out) {
  auto it = payload.find(key);
  if (it != payload.end() && it->is_string()) out = it->get<std::string>();
}

}  // namespace

nlohmann::json ToolCallEvent::ToJson() const {
  return {{"tool", tool},         {"plugin", plugin},   {"agent_id", agent_id},
          {"session_id", session_id}, {"project_id", project_id}, {"outcome", outcome},
          {"latency_ms", latency_ms}, {"error", error},   {"at_ms", at_ms},
          {"read_only", read_only}};
}

ToolCallEvent ToolCallEvent::FromJson(const nlohmann::json& payload) {
  ToolCallEvent event;
  if (!payload.is_object()) return event;
  ReadString(payload, "tool", event.tool);
  ReadString(payload, "plugin", event.plugin);
  ReadString(payload, "agent_id", event.agent_id);
  ReadString(payload, "session_id", event.session_id);
  ReadString(payload, "project_id", event.project_id);
  ReadString(payload, "outcome", event.outcome);
  ReadString(payload, "error", event.error);
  if (auto it = payload.find("read_only"); it != payload.end() && it->is_boolean()) {
    event.read_only = it->get<bool>();
  }
  if (auto it = payload.find("latency_ms"); it != payload.end() && it->is_number()) {
    event.latency_ms = it->get<double>();
  }
  if (auto it = payload.find("at_ms"); it != payload.end() && it->is_number()) {
    if (!it->is_number_float()) {
      event.at_ms = it->get<std::int64_t>();
    } else if (double d = it->get<double>(); std::isfinite(d) && std::fabs(d) < 9.0e18) {
      event.at_ms = static_cast<std::int64_t>(d);  // guarded: out-of-range casts are UB
    }
  }
  return event;
}

}  // namespace kioku::sdk
