#include "context_provider.hpp"

#include <algorithm>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/text.hpp"

namespace kioku::episodic {
namespace {

constexpr std::size_t kSummaryBytes = 300;

std::string Ago(std::int64_t now, std::int64_t then) {
  const std::int64_t minutes = std::max<std::int64_t>(0, (now - then) / 60'000);
  if (minutes < 60) return std::to_string(minutes) + " min ago";
  if (minutes < 48 * 60) return std::to_string(minutes / 60) + " h ago";
  return std::to_string(minutes / (24 * 60)) + " d ago";
}

}  // namespace

sdk::ContextContribution ProvideContext(const ToolContext& env, const sdk::ContextRequest& request) {
  sdk::ContextContribution out;
  if (!request.query.empty()) return out;
  const auto keys = ProjectScope(sdk::Json::object(), request.caller);
  std::string sql =
      "SELECT se.agent_id, se.last_activity_at, se.title, (SELECT su.summary FROM episodic_summaries su "
      "WHERE su.session_id = se.id AND su.status = 'active' ORDER BY su.ended_at DESC, su.created_at DESC "
      "LIMIT 1) FROM episodic_sessions se WHERE se.id <> ?";
  if (keys) sql += " AND " + ProjectClause(keys->size());
  sql += " ORDER BY se.last_activity_at DESC LIMIT 3";
  SQLite::Statement q(env.host.Db(), sql);
  int i = 1;
  q.bind(i++, request.caller.session_id);
  if (keys) {
    for (const std::string& k : *keys) q.bind(i++, k);
  }
  while (q.executeStep()) {
    std::string text = q.getColumn(3).isNull() ? std::string() : q.getColumn(3).getString();
    if (sdk::CollapseWhitespace(text).empty()) text = q.getColumn(2).getString();
    text = sdk::TruncateAtBoundary(sdk::CollapseWhitespace(text), kSummaryBytes);
    if (text.empty()) continue;
    const std::string agent = q.getColumn(0).getString();
    out.items.push_back({"summary", "last session",
                         (agent.empty() ? std::string() : agent + ", ") + Ago(request.now_ms, q.getColumn(1).getInt64()) +
                             ": " + text + " (session_recall for more)",
                         0.8});
    break;
  }
  return out;
}

}  // namespace kioku::episodic
