#include "common.hpp"

#include <algorithm>
#include <filesystem>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/args.hpp"
#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::working {

Actor ResolveActor(const ToolContext& env, const Json& args, const sdk::CallContext& ctx,
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
                      "SELECT last_seen_at FROM working_presence WHERE project_id = ? AND "
                      "agent_id = ?");
  sdk::Bind(q, project_id, agent_id);
  if (q.executeStep()) return q.getColumn(0).getInt64();
  return std::nullopt;
}

void TouchPresence(SQLite::Database& db, const Actor& actor, std::int64_t now_ms) {
  SQLite::Statement q(db,
                      "INSERT INTO working_presence (project_id, agent_id, session_id, "
                      "first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?) "
                      "ON CONFLICT (project_id, agent_id) DO UPDATE SET "
                      "last_seen_at = MAX(last_seen_at, excluded.last_seen_at), "
                      "session_id = CASE WHEN excluded.session_id = '' THEN session_id "
                      "ELSE excluded.session_id END");
  sdk::Bind(q, actor.project_id, actor.agent_id, actor.session_id, now_ms, now_ms);
  q.exec();
}

void RecordEvent(SQLite::Database& db, const Actor& actor, std::string_view kind,
                 std::string_view subject, const Json& detail, std::int64_t now_ms) {
  SQLite::Statement q(db,
                      "INSERT INTO working_events (project_id, at, agent_id, kind, "
                      "subject, detail) VALUES (?, ?, ?, ?, ?, ?)");
  sdk::Bind(q, actor.project_id, now_ms, actor.agent_id, std::string(kind), std::string(subject),
            sdk::DumpJson(detail.is_null() ? Json::object() : detail));
  q.exec();
}

std::string CheckText(const ToolContext& env, std::string_view text, const std::string& what,
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

void RefuseSecret(const ToolContext& env, std::string_view text, const std::string& what) {
  if (env.settings.screen_secrets) sdk::ScreenText(text, what);
}

std::optional<std::string> TextArg(const ToolContext& env, const Json& args, const char* key,
                                   std::int64_t max_bytes) {
  auto text = sdk::TextArg(args, key, static_cast<std::size_t>(max_bytes));
  if (text) RefuseSecret(env, *text, key);
  return text;
}

std::string RequiredTextArg(const ToolContext& env, const Json& args, const char* key,
                            std::int64_t max_bytes) {
  std::string text = sdk::RequiredTextArg(args, key, static_cast<std::size_t>(max_bytes));
  RefuseSecret(env, text, key);
  return text;
}

std::string Rfc(std::int64_t ms) { return sdk::FormatRfc3339(ms); }

Json RfcOrNull(std::optional<std::int64_t> ms) {
  return ms ? Json(sdk::FormatRfc3339(*ms)) : Json(nullptr);
}

std::string Snip(std::string_view text, std::size_t max_bytes) {
  return sdk::TruncateUtf8(sdk::CollapseWhitespace(text), max_bytes);
}

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

Json AgentIdProp() {
  // No description: the name says it, and it is only needed when the connection carries no
  // identity (every working tool has it, so each word here costs ten times per request).
  return schema::String(static_cast<std::int64_t>(kMaxAgentIdBytes), {}, 1);
}

}  // namespace kioku::working
