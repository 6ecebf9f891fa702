#include "context_provider.hpp"

#include <algorithm>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::working {
namespace {

constexpr int kMaxHandoffs = 5;
constexpr int kMaxClaims = 8;
constexpr int kMaxQuestions = 4;
constexpr int kMaxPromptClaims = 200;  // claims scanned for names the prompt mentions

std::string Ago(std::int64_t now, std::int64_t then) {
  const std::int64_t minutes = std::max<std::int64_t>(0, (now - then) / 60'000);
  if (minutes < 60) return std::to_string(minutes) + " min ago";
  if (minutes < 48 * 60) return std::to_string(minutes / 60) + " h ago";
  return std::to_string(minutes / (24 * 60)) + " d ago";
}

std::string In(std::int64_t now, std::int64_t then) {
  const std::int64_t minutes = std::max<std::int64_t>(0, (then - now) / 60'000);
  return minutes < 120 ? std::to_string(minutes) + " min" : std::to_string(minutes / 60) + " h";
}

bool Mentions(const std::string& prompt, const std::string& path) {
  if (prompt.find(path) != std::string::npos) return true;
  const auto slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return name.size() >= 4 && prompt.find(name) != std::string::npos;
}

void AddClaims(const ToolContext& env, const sdk::ContextRequest& request, const std::string& project, const std::string& me,
               sdk::ContextContribution& out) {
  const bool prompt = !request.query.empty();
  SQLite::Statement q(env.Db(),
                      "SELECT c.path, c.holder, c.intent, c.expires_at, p.last_seen_at FROM working_file_claims c "
                      "LEFT JOIN working_presence p ON p.project_id = c.project_id AND p.agent_id = c.holder "
                      "WHERE c.project_id = ?1 AND c.holder <> ?2 AND c.expires_at > ?3 "
                      "ORDER BY c.renewed_at DESC LIMIT ?4");
  sdk::Bind(q, project, me, request.now_ms, prompt ? kMaxPromptClaims : kMaxClaims);
  while (q.executeStep()) {
    const std::string path = q.getColumn(0).getString();
    if (prompt && !Mentions(request.query, path)) continue;
    std::optional<std::int64_t> seen;
    if (!q.getColumn(4).isNull()) seen = q.getColumn(4).getInt64();
    const bool live = LivenessOf(seen, request.now_ms, env.settings.presence_ttl_seconds) == Liveness::kLive;
    const std::string intent = q.getColumn(2).getString();
    out.items.push_back({"claim", live ? "live" : "stale",
                         path + " is claimed by " + q.getColumn(1).getString() +
                             (intent.empty() ? "" : " (" + Snip(intent, 80) + ")") + " for " +
                             In(request.now_ms, q.getColumn(3).getInt64()) + " more; coordinate before editing it",
                         live ? 0.9 : 0.5});
  }
}

void AddHandoffs(const ToolContext& env, const sdk::ContextRequest& request, const std::string& project, const std::string& me,
                 sdk::ContextContribution& out) {
  SQLite::Statement q(env.Db(),
                      "SELECT id, from_agent, to_agent, summary, open_items, created_at FROM working_handoffs "
                      "WHERE project_id = ?1 AND claimed_by IS NULL AND (to_agent IS NULL OR to_agent = ?2) "
                      "AND from_agent <> ?2 ORDER BY created_at DESC, id DESC LIMIT ?3");
  sdk::Bind(q, project, me, kMaxHandoffs);
  while (q.executeStep()) {
    const bool mine = !q.getColumn(2).isNull();
    std::string text = "from " + q.getColumn(1).getString() + " (" + Ago(request.now_ms, q.getColumn(5).getInt64()) +
                       "): " + Snip(q.getColumn(3).getString(), 300);
    const Json items = Json::parse(q.getColumn(4).getString(), nullptr, false);
    if (items.is_array() && !items.empty()) text += " — " + std::to_string(items.size()) + " open item(s)";
    text += "; take it with handoff_claim " + q.getColumn(0).getString();
    out.items.push_back({"handoff", mine ? "for you" : "open", text, mine ? 1.0 : 0.6});
  }
}

void AddQuestions(const ToolContext& env, const sdk::ContextRequest& request, const std::string& project,
                  sdk::ContextContribution& out) {
  SQLite::Statement q(env.Db(),
                      "SELECT id, asked_by, question, created_at FROM working_questions "
                      "WHERE project_id = ?1 AND answered_at IS NULL ORDER BY created_at DESC LIMIT ?2");
  sdk::Bind(q, project, kMaxQuestions);
  while (q.executeStep()) {
    out.items.push_back({"question", "open",
                         Snip(q.getColumn(2).getString(), 240) + " (asked by " + q.getColumn(1).getString() + ", " +
                             Ago(request.now_ms, q.getColumn(3).getInt64()) + "; question_answer " +
                             q.getColumn(0).getString() + ")",
                         0.4});
  }
}

}  // namespace

sdk::ContextContribution ProvideContext(const ToolContext& env, const sdk::ContextRequest& request) {
  const sdk::Caller& caller = request.caller;
  const std::string project = !caller.project_id.empty() ? caller.project_id : caller.project_root;
  const std::string me = caller.agent_id == "unknown" ? std::string() : caller.agent_id;
  sdk::ContextContribution out;
  if (project.empty()) return out;
  AddClaims(env, request, project, me, out);
  if (request.query.empty()) {
    AddHandoffs(env, request, project, me, out);
    AddQuestions(env, request, project, out);
  }
  return out;
}

}  // namespace kioku::working
