#include "common.hpp"

#include <algorithm>
#include <filesystem>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::working {

Actor ResolveActor(const Env& env, const Json& args, const sdk::CallContext& ctx,
                   bool agent_required) {
  const auto& caller = ctx.caller;
  const auto policy = env.settings.agent_id_argument == AgentIdArgument::kOverride
                          ? sdk::AgentArgument::kOverrideUnlessToken
                          : sdk::AgentArgument::kRefuseContradiction;
  Actor actor;
  actor.agent_name = sdk::ResolveAgentId(caller, args, agent_required, policy);
  actor.agent_id = sdk::InstanceHolder(actor.agent_name, caller);
  actor.project_id = !caller.project_id.empty() ? caller.project_id : caller.project_root;
  actor.project_root = caller.project_root;
  actor.session_id = caller.session_id;
  if (!caller.working_dir.empty() && !caller.project_root.empty()) {
    const auto rel = std::filesystem::path(caller.working_dir)
                         .lexically_normal()
                         .lexically_relative(std::filesystem::path(caller.project_root).lexically_normal());
    if (!rel.empty() && rel != "." && *rel.begin() != "..") actor.subdir = rel.generic_string();
  }
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
  RefuseSecret(env, clean, what);
  return clean;
}

void RefuseSecret(const Env& env, std::string_view text, const std::string& what) {
  if (!env.settings.screen_secrets) return;
  if (auto finding = sdk::FindSecret(text)) {
    throw sdk::ToolError(what + " looks like it contains a secret (" + finding->kind +
                         " at byte " + std::to_string(finding->offset) +
                         "); nothing was stored — remove or redact it and retry");
  }
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

namespace {
// A property without a description when its name says it all (each description costs
// context on every request).
Json Described(Json p, std::string description) {
  if (!description.empty()) p["description"] = std::move(description);
  return p;
}
}  // namespace

std::vector<std::size_t> FairShares(const std::vector<std::size_t>& need, std::size_t room) {
  std::vector<std::size_t> order(need.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return need[a] < need[b]; });
  std::vector<std::size_t> share(need.size());
  std::size_t left = room;
  for (std::size_t k = 0; k < order.size(); ++k) {
    share[order[k]] = std::min(need[order[k]], left / (order.size() - k));
    left -= share[order[k]];
  }
  return share;
}

bool FitFields(Json& row, const std::vector<std::string>& keys, std::size_t budget) {
  std::vector<std::size_t> need;
  std::size_t total = sdk::DumpJson(row).size();
  if (total <= budget) return false;
  for (const auto& key : keys) need.push_back(row.contains(key) ? sdk::DumpJson(row[key]).size() : 0);
  std::size_t fields = 0;
  for (std::size_t n : need) fields += n;
  const std::size_t fixed = total - fields + 32 * keys.size();  // + the *_omitted keys
  const auto share = FairShares(need, budget > fixed ? budget - fixed : 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (share[i] >= need[i]) continue;
    Json& v = row[keys[i]];
    if (v.is_string()) {
      const std::string& full = v.get_ref<const std::string&>();
      // The share is in escaped JSON bytes; cut the raw text in the same proportion.
      std::string part = sdk::TruncateUtf8(full, share[i] * full.size() / need[i], "");
      row[keys[i] + "_omitted_bytes"] = full.size() - part.size();
      v = std::move(part);
    } else if (v.is_array()) {
      Json kept = Json::array();
      std::size_t used = 2;
      for (const Json& item : v) {
        const std::size_t cost = sdk::DumpJson(item).size() + 1;
        if (used + cost > share[i]) break;
        used += cost;
        kept.push_back(item);
      }
      row[keys[i] + "_omitted"] = v.size() - kept.size();
      v = std::move(kept);
    }
  }
  return true;
}

TextWindow WindowOf(std::string_view content, std::size_t offset, std::size_t max_bytes) {
  TextWindow w;
  w.offset = std::min(offset, content.size());
  while (w.offset < content.size() && (static_cast<unsigned char>(content[w.offset]) & 0xC0) == 0x80) ++w.offset;
  w.part = sdk::TruncateUtf8(content.substr(w.offset), max_bytes, "");
  w.omitted = content.size() - w.offset - w.part.size();
  return w;
}

Json StrProp(std::string description, std::int64_t max_length, std::int64_t min_length) {
  Json p = Described({{"type", "string"}, {"maxLength", max_length}}, std::move(description));
  if (min_length > 0) p["minLength"] = min_length;
  return p;
}

Json IntProp(std::string description, std::int64_t minimum, std::int64_t maximum) {
  return Described({{"type", "integer"}, {"minimum", minimum}, {"maximum", maximum}}, std::move(description));
}

Json BoolProp(std::string description) { return Described({{"type", "boolean"}}, std::move(description)); }

Json EnumProp(std::string description, std::vector<std::string> values) {
  return Described({{"type", "string"}, {"enum", values}}, std::move(description));
}

Json AgentIdProp() {
  // No description: the name says it, and it is only needed when the connection carries no
  // identity (every working tool has it, so each word here costs ten times per request).
  return StrProp(
      "",
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
