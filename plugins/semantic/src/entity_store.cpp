#include "entity_store.hpp"

#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"

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
      "INSERT INTO semantic_entities(id, type, name, norm_name, created_at) "
      "VALUES (?, ?, ?, ?, ?)");
  sdk::Bind(*ins, sdk::NewId(now_ms), type, name == norm ? std::string() : name, norm, now_ms);
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
  SQLite::Statement q(db, std::string("SELECT e.seq, e.id, e.type, ") + kEntityNameSql +
                              ", e.norm_name, e.created_at FROM semantic_entities e WHERE e.seq = ?");
  sdk::Bind(q, seq);
  if (!q.executeStep()) return std::nullopt;
  return Entity{q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                q.getColumn(3).getString(), q.getColumn(4).getString(),
                q.getColumn(5).getInt64()};
}

}  // namespace kioku::semantic
