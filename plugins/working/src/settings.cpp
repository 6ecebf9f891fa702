#include "settings.hpp"

#include <stdexcept>

namespace kioku::working {
namespace {

nlohmann::json IntSetting(const char* description, std::int64_t def, std::int64_t min,
                          std::int64_t max) {
  return {{"type", "integer"},
          {"description", description},
          {"default", def},
          {"minimum", min},
          {"maximum", max}};
}

std::int64_t GetInt(const nlohmann::json& s, const char* key, std::int64_t def) {
  if (!s.is_object() || !s.contains(key)) return def;
  const auto& v = s.at(key);
  if (!v.is_number_integer()) {
    throw std::runtime_error(std::string("working.") + key + ": expected an integer");
  }
  return v.get<std::int64_t>();
}

}  // namespace

nlohmann::json SettingsSchema() {
  using nlohmann::json;
  json props = {
      {"presence_ttl_seconds",
       IntSetting("Seconds after the last heartbeat an agent still counts as live.", 900,
                  kMinTtlSeconds, 86'400)},
      {"file_claim_default_ttl_seconds",
       IntSetting("Lease of a file claim when the call gives no ttl_seconds.", 300,
                  kMinTtlSeconds, 86'400)},
      {"file_claim_max_ttl_seconds",
       IntSetting("Longest file-claim lease a call may ask for.", 3600, kMinTtlSeconds,
                  86'400)},
      {"workspace_default_ttl_seconds",
       IntSetting("Lease of a workspace claim when the call gives no ttl_seconds.", 3600,
                  kMinTtlSeconds, 7 * 86'400)},
      {"workspace_max_ttl_seconds",
       IntSetting("Longest workspace lease a call may ask for.", 86'400, kMinTtlSeconds,
                  7 * 86'400)},
      {"max_paths_per_call",
       IntSetting("Most paths one file_claim/file_release call may name.", 256, 1, 4096)},
      {"max_block_bytes", IntSetting("Size cap of one shared block, UTF-8 bytes.", 8192, 64,
                                     1'048'576)},
      {"max_focus_section_bytes",
       IntSetting("Size cap of one focus section, UTF-8 bytes.", 16'384, 64, 1'048'576)},
      {"max_text_bytes",
       IntSetting("Size cap of handoff summaries, questions, answers, tasks.", 16'384, 64,
                  1'048'576)},
      {"dump_max_bytes",
       IntSetting("Size cap of the summary workspace_dump writes to the episodic layer.", 8000,
                  256, 1'048'576)},
      {"screen_secrets",
       {{"type", "boolean"},
        {"default", true},
        {"description", "Refuse writes whose text looks like a credential."}}},
      {"agent_id_argument",
       {{"type", "string"},
        {"enum", {"fallback", "override"}},
        {"default", "fallback"},
        {"description",
         "fallback: a tool's agent_id argument is used only when the transport cannot "
         "identify the agent; override: the argument always wins."}}},
  };
  return {{"type", "object"}, {"additionalProperties", false}, {"properties", props}};
}

Settings ParseSettings(const nlohmann::json& section) {
  Settings s;
  s.presence_ttl_seconds = GetInt(section, "presence_ttl_seconds", s.presence_ttl_seconds);
  s.file_claim_default_ttl_seconds =
      GetInt(section, "file_claim_default_ttl_seconds", s.file_claim_default_ttl_seconds);
  s.file_claim_max_ttl_seconds =
      GetInt(section, "file_claim_max_ttl_seconds", s.file_claim_max_ttl_seconds);
  s.workspace_default_ttl_seconds =
      GetInt(section, "workspace_default_ttl_seconds", s.workspace_default_ttl_seconds);
  s.workspace_max_ttl_seconds =
      GetInt(section, "workspace_max_ttl_seconds", s.workspace_max_ttl_seconds);
  s.max_paths_per_call = GetInt(section, "max_paths_per_call", s.max_paths_per_call);
  s.max_block_bytes = GetInt(section, "max_block_bytes", s.max_block_bytes);
  s.max_focus_section_bytes =
      GetInt(section, "max_focus_section_bytes", s.max_focus_section_bytes);
  s.max_text_bytes = GetInt(section, "max_text_bytes", s.max_text_bytes);
  s.dump_max_bytes = GetInt(section, "dump_max_bytes", s.dump_max_bytes);
  if (section.is_object() && section.contains("screen_secrets")) {
    s.screen_secrets = section.at("screen_secrets").get<bool>();
  }
  if (section.is_object() && section.contains("agent_id_argument")) {
    const auto mode = section.at("agent_id_argument").get<std::string>();
    if (mode == "override") {
      s.agent_id_argument = AgentIdArgument::kOverride;
    } else if (mode == "fallback") {
      s.agent_id_argument = AgentIdArgument::kFallback;
    } else {
      throw std::runtime_error("working.agent_id_argument: '" + mode +
                               "' is not one of fallback, override");
    }
  }
  if (s.file_claim_default_ttl_seconds > s.file_claim_max_ttl_seconds) {
    throw std::runtime_error(
        "working.file_claim_default_ttl_seconds (" +
        std::to_string(s.file_claim_default_ttl_seconds) +
        ") exceeds working.file_claim_max_ttl_seconds (" +
        std::to_string(s.file_claim_max_ttl_seconds) + ")");
  }
  if (s.workspace_default_ttl_seconds > s.workspace_max_ttl_seconds) {
    throw std::runtime_error(
        "working.workspace_default_ttl_seconds (" +
        std::to_string(s.workspace_default_ttl_seconds) +
        ") exceeds working.workspace_max_ttl_seconds (" +
        std::to_string(s.workspace_max_ttl_seconds) + ")");
  }
  return s;
}

}  // namespace kioku::working
