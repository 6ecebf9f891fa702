#include "common.hpp"

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::working {

namespace {

bool KnownAgent(const std::string& id) { return !id.empty() && id != "unknown"; }

void CheckAgentId(const std::string& id) {
  if (id.empty() || id.size() > kMaxAgentIdBytes) {
    throw sdk::ToolError("agent_id must be 1 to " + std::to_string(kMaxAgentIdBytes) +
                         " bytes");
  }
  for (unsigned char c : id) {
    if (c <= 0x20 || c == 0x7f) {
      throw sdk::ToolError("agent_id '" + Snip(id, 40) +
                           "' contains whitespace or a control character; send a name "
                           "like \"claude-code-1\"");
    }
  }
  if (id == "unknown") {
    throw sdk::ToolError("agent_id 'unknown' is reserved; send a name like \"claude-code-1\"");
  }
}

}  // namespace

Actor ResolveActor(const Env& env, const Json& args, const sdk::CallContext& ctx,
                   bool agent_required) {
  Actor actor;
  const auto& caller = ctx.caller;
  const bool known = KnownAgent(caller.agent_id);
  std::string arg;
  if (args.is_object() && args.contains("agent_id") && !args.at("agent_id").is_null()) {
    arg = args.at("agent_id").get<std::string>();
    CheckAgentId(arg);
  }
  if (!arg.empty()) {
    if (known && arg != caller.agent_id &&
        env.settings.agent_id_argument == AgentIdArgument::kFallback) {
      throw sdk::ToolError("this connection is already identified as agent '" +
                           caller.agent_id + "'; omit agent_id or send '" + caller.agent_id +
                           "' (agent_id is only for transports that cannot tell who calls)");
    }
    actor.agent_id = arg;
  } else if (known) {
    actor.agent_id = caller.agent_id;
  } else if (agent_required) {
    throw sdk::ToolError(
        "cannot tell which agent is calling: send agent_id (a stable name such as "
        "\"claude-code-1\")");
  }
  actor.project_id = !caller.project_id.empty() ? caller.project_id : caller.project_root;
  actor.project_root = caller.project_root;
  actor.session_id = caller.session_id;
  return actor;
}

std::string_view LivenessName(Liveness liveness) {
  switch (liveness) {
    case Liveness::kLive:
      return "live";
    case Liveness::kStale:
      return "stale";
    case Liveness::kUnknown:
      break;
  }
  return "unknown";
}

Liveness LivenessOf(std::optional<std::int64_t> last_seen_ms, std::int64_t now_ms,
                    std::int64_t ttl_seconds) {
  if (!last_seen_ms) return Liveness::kUnknown;
  return now_ms - *last_seen_ms <= ttl_seconds * sdk::kMsPerSecond ? Liveness::kLive
                                                                    : Liveness::kStale;
}

std::optional<std::int64_t> LastSeen(SQLite::Database& db, const std::string& project_id,
                                     const std::string& agent_id) {
  SQLite::Statement q(db,
                      "SELECT last_seen_ms FROM working_presence WHERE project_id = ? AND "
                      "agent_id = ?");
  q.bind(1, project_id);
  q.bind(2, agent_id);
  if (q.executeStep()) return q.getColumn(0).getInt64();
  return std::nullopt;
}

void TouchPresence(SQLite::Database& db, const Actor& actor, std::int64_t now_ms) {
  SQLite::Statement q(db,
                      "INSERT INTO working_presence (project_id, agent_id, session_id, "
                      "first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?) "
                      "ON CONFLICT (project_id, agent_id) DO UPDATE SET "
                      "last_seen_ms = MAX(last_seen_ms, excluded.last_seen_ms), "
                      "session_id = CASE WHEN excluded.session_id = '' THEN session_id "
                      "ELSE excluded.session_id END");
  q.bind(1, actor.project_id);
  q.bind(2, actor.agent_id);
  q.bind(3, actor.session_id);
  q.bind(4, now_ms);
  q.bind(5, now_ms);
  q.exec();
}

void RecordEvent(SQLite::Database& db, const Actor& actor, std::string_view kind,
                 std::string_view subject, const Json& detail, std::int64_t now_ms) {
  SQLite::Statement q(db,
                      "INSERT INTO working_events (project_id, at_ms, agent_id, kind, "
                      "subject, detail) VALUES (?, ?, ?, ?, ?, ?)");
  q.bind(1, actor.project_id);
  q.bind(2, now_ms);
  q.bind(3, actor.agent_id);
  q.bind(4, std::string(kind));
  q.bind(5, std::string(subject));
  q.bind(6, sdk::DumpJson(detail.is_null() ? Json::object() : detail));
  q.exec();
}

std::string CheckText(const Env& env, std::string_view text, const std::string& what,
                      std::int64_t max_bytes) {
  if (static_cast<std::int64_t>(text.size()) > max_bytes) {
    throw sdk::ToolError(what + " is " + std::to_string(text.size()) +
                         " bytes; the limit is " + std::to_string(max_bytes) +
                         " bytes — shorten it");
  }
  std::string clean = sdk::IsValidUtf8(text) ? std::string(text) : sdk::SanitizeUtf8(text);
  if (env.settings.screen_secrets) {
    if (auto finding = sdk::FindSecret(clean)) {
      throw sdk::ToolError(what + " looks like it contains a secret (" + finding->kind +
                           " at byte " + std::to_string(finding->offset) +
                           "); nothing was stored — remove or redact it and retry");
    }
  }
  return clean;
}

std::optional<std::string> TextArg(const Env& env, const Json& args, const char* key,
                                   std::int64_t max_bytes) {
  if (!args.is_object() || !args.contains(key) || args.at(key).is_null()) return std::nullopt;
  return CheckText(env, args.at(key).get<std::string>(), key, max_bytes);
}

std::string RequiredTextArg(const Env& env, const Json& args, const char* key,
                            std::int64_t max_bytes) {
  auto value = TextArg(env, args, key, max_bytes);
  if (!value || sdk::CollapseWhitespace(*value).empty()) {
    throw sdk::ToolError(std::string(key) + " is empty; send some text");
  }
  return *value;
}

std::string Rfc(std::int64_t ms) { return sdk::FormatRfc3339(ms); }

Json RfcOrNull(std::optional<std::int64_t> ms) {
  return ms ? Json(sdk::FormatRfc3339(*ms)) : Json(nullptr);
}

std::string Snip(std::string_view text, std::size_t max_bytes) {
  return sdk::TruncateUtf8(sdk::CollapseWhitespace(text), max_bytes);
}

Json StrProp(std::string description, std::int64_t max_length, std::int64_t min_length) {
  Json p = {{"type", "string"}, {"description", std::move(description)},
            {"maxLength", max_length}};
  if (min_length > 0) p["minLength"] = min_length;
  return p;
}

Json IntProp(std::string description, std::int64_t minimum, std::int64_t maximum) {
  return {{"type", "integer"},
          {"description", std::move(description)},
          {"minimum", minimum},
          {"maximum", maximum}};
}

Json BoolProp(std::string description) {
  return {{"type", "boolean"}, {"description", std::move(description)}};
}

Json EnumProp(std::string description, std::vector<std::string> values) {
  return {{"type", "string"}, {"description", std::move(description)}, {"enum", values}};
}

Json AgentIdProp() {
  return StrProp(
      "Your agent id. Only needed when the connection cannot identify you (the transport's "
      "identity wins otherwise).",
      static_cast<std::int64_t>(kMaxAgentIdBytes), 1);
}

Json InputSchema(Json properties, std::vector<std::string> required) {
  Json s = {{"type", "object"},
            {"additionalProperties", false},
            {"properties", std::move(properties)}};
  if (!required.empty()) s["required"] = required;
  return s;
}

Json OutputSchema(Json properties, std::vector<std::string> required) {
  Json s = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) s["required"] = required;
  return s;
}

Json NullableStr() { return {{"type", Json::array({"string", "null"})}}; }
Json Str() { return {{"type", "string"}}; }
Json Int() { return {{"type", "integer"}}; }
Json Bool() { return {{"type", "boolean"}}; }
Json ArrayOf(Json items) { return {{"type", "array"}, {"items", std::move(items)}}; }

}  // namespace kioku::working
