#include "dedup.hpp"

#include <optional>
#include <string>

#include "keys.hpp"
#include "kioku/sdk/sql.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {
namespace {

struct Identity {
  std::string id, kind, scope, project_id, path, subject, value, status;
};

std::optional<Identity> ReadIdentity(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db,
                      "SELECT " + MemoryIdSql() + ", kind, scope, " + KeyTextSql("project_key") + ", path, subject, value, status "
                      "FROM semantic_memories WHERE seq = ?");
  sdk::Bind(q, static_cast<int64_t>(seq));
  if (!q.executeStep()) return std::nullopt;
  Identity i;
  i.id = q.getColumn(0).getString();
  i.kind = q.getColumn(1).getString();
  i.scope = q.getColumn(2).getString();
  i.project_id = q.getColumn(3).getString();
  i.path = q.getColumn(4).getString();
  i.subject = q.getColumn(5).getString();
  i.value = q.getColumn(6).getString();
  i.status = q.getColumn(7).getString();
  return i;
}

void History(SQLite::Database& db, const std::string& id, const char* action, std::int64_t at,
             const std::string& detail) {
  SQLite::Statement q(db,
                      "INSERT INTO semantic_memory_history(memory_id, action, at, agent_id, detail) "
                      "VALUES (?, ?, ?, 'kioku-embed', ?)");
  sdk::Bind(q, id, action, static_cast<int64_t>(at), detail);
  q.exec();
}

}  // namespace

bool FoldNearDuplicate(ToolContext& ctx, SQLite::Database& db, std::int64_t seq, const std::vector<float>& unit) {
  const double threshold = ctx.settings.vectors.dedup_threshold;
  if (threshold >= 1.0) return false;
  const auto fresh = ReadIdentity(db, seq);
  if (!fresh || (fresh->status != "active" && fresh->status != "pending")) return false;
  for (const sdk::VectorHit& hit : ctx.vectors->Nearest(db, unit, 8)) {
    if (hit.label >= seq || hit.score < threshold) continue;
    const auto old = ReadIdentity(db, hit.label);
    if (!old || (old->status != "active" && old->status != "pinned" && old->status != "pending")) continue;
    if (old->kind != fresh->kind || old->scope != fresh->scope || old->project_id != fresh->project_id ||
        old->path != fresh->path || old->subject != fresh->subject || old->value != fresh->value) {
      continue;
    }
    const std::int64_t now = ctx.host.GetClock().NowMs();
    SQLite::Statement a(db,
                        "UPDATE semantic_memories SET updated_at = max(updated_at, ?), "
                        "reaffirm_count = reaffirm_count + 1 WHERE seq = ?");
    sdk::Bind(a, static_cast<int64_t>(now), static_cast<int64_t>(hit.label));
    a.exec();
    SQLite::Statement b(db,
                        "UPDATE semantic_memories SET prior_status = status, status = 'superseded', "
                        "superseded_at = ?, superseded_by = ? WHERE seq = ?");
    sdk::Bind(b, static_cast<int64_t>(now), old->id, static_cast<int64_t>(seq));
    b.exec();
    const std::string cos = std::to_string(hit.score).substr(0, 5);
    History(db, old->id, "reaffirmed", now, "near-identical " + fresh->id + " (cosine " + cos + ")");
    History(db, fresh->id, "superseded", now, "by near-identical " + old->id + " (cosine " + cos + ")");
    return true;
  }
  return false;
}

}  // namespace kioku::semantic
