#include "entity_store.hpp"

#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::semantic {

std::int64_t EnsureEntity(const Env& env, const std::string& type, const std::string& name,
                          const std::string& norm, std::int64_t now_ms) {
  {
    sdk::CachedStatement q =
        env.Stmt("SELECT seq FROM semantic_entities WHERE norm_name = ? AND type = ?");
    sdk::Bind(*q, norm, type);
    if (q->executeStep()) {
      const std::int64_t seq = q->getColumn(0).getInt64();
      q->reset();
      return seq;
    }
    q->reset();
  }
  sdk::CachedStatement ins = env.Stmt(
      "INSERT INTO semantic_entities(type, name, norm_name, created_at) VALUES (?, ?, ?, ?)");
  sdk::Bind(*ins, type, name == norm ? std::string() : name, norm, now_ms);
  ins->exec();
  return env.db.getLastInsertRowid();
}

std::int64_t MaxEntitySeq(const Env& env) {
  sdk::CachedStatement q = env.Stmt("SELECT coalesce(max(seq), 0) FROM semantic_entities");
  q->executeStep();
  const std::int64_t v = q->getColumn(0).getInt64();
  q->reset();
  return v;
}

void IndexNewEntities(const Env& env, std::int64_t floor) {
  sdk::CachedStatement q = env.Stmt(
      "INSERT INTO semantic_entities_fts(rowid, norm_name) SELECT seq, norm_name FROM semantic_entities "
      "WHERE seq > ?");
  sdk::Bind(*q, floor);
  q->exec();
}

std::optional<Entity> LoadEntity(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db, std::string("SELECT e.seq, ") + kLegacyEntityIdSql + ", e.type, " + kEntityNameSql +
                              ", e.norm_name, e.created_at FROM semantic_entities e WHERE e.seq = ?");
  sdk::Bind(q, seq);
  if (!q.executeStep()) return std::nullopt;
  const std::int64_t created_at = q.getColumn(5).getInt64();
  return Entity{q.getColumn(0).getInt64(), EntityId(q.getColumn(1).getString(), created_at, seq),
                q.getColumn(2).getString(), q.getColumn(3).getString(), q.getColumn(4).getString(), created_at};
}

std::string EntityId(const std::string& legacy, std::int64_t created_at, std::int64_t seq) {
  return legacy.empty() ? sdk::DerivedId(created_at, seq) : legacy;
}

std::optional<std::int64_t> ResolveEntityId(SQLite::Database& db, std::string_view typed) {
  std::string upper(typed);
  for (char& c : upper) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  constexpr std::size_t kListed = 5;
  std::vector<std::pair<std::string, std::int64_t>> found;  // (id, seq), at most kListed + 1
  {
    // Legacy ids: an index range, as sdk::ResolveIdPrefix does ('[' follows 'Z').
    SQLite::Statement q(db, "SELECT id, entity_seq FROM semantic_entity_ids WHERE id >= ? AND id < ? ORDER BY id LIMIT " +
                                std::to_string(kListed + 1));
    sdk::Bind(q, upper, upper + "[");
    while (q.executeStep()) {
      found.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt64());
      if (found.back().first == upper) return found.back().second;
    }
  }
  if (auto range = sdk::DerivedIdPrefixRange(upper)) {
    SQLite::Statement q(db, "SELECT e.seq, e.created_at FROM semantic_entities e WHERE e.seq BETWEEN ? AND ? "
                            "AND e.created_at BETWEEN ? AND ? AND NOT EXISTS (SELECT 1 FROM semantic_entity_ids i "
                            "WHERE i.entity_seq = e.seq) ORDER BY e.created_at, e.seq LIMIT " +
                                std::to_string(kListed + 1));
    sdk::Bind(q, range->seq_lo, range->seq_hi, range->ms_lo, range->ms_hi);
    while (q.executeStep() && found.size() <= kListed) {
      const std::int64_t seq = q.getColumn(0).getInt64();
      found.emplace_back(sdk::DerivedId(q.getColumn(1).getInt64(), seq), seq);
    }
  }
  if (found.empty()) return std::nullopt;
  if (found.size() == 1) return found.front().second;
  std::string list;
  for (std::size_t i = 0; i < found.size() && i < kListed; ++i) list += (i ? ", " : "") + found[i].first;
  if (found.size() > kListed) list += ", …";
  throw sdk::ToolError("id prefix '" + std::string(typed) + "' matches several entity ids: " + list +
                       "; send more characters");
}

}  // namespace kioku::semantic
