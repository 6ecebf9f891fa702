#include "entity_store.hpp"

#include "kioku/sdk/ids.hpp"

namespace kioku::semantic {

EntityUpserter::EntityUpserter(SQLite::Database& db)
    : db_(db),
      select_(db, "SELECT seq FROM semantic_entities WHERE norm_name = ? AND type = ?"),
      insert_(db,
              "INSERT INTO semantic_entities(id, type, name, norm_name, created_at) "
              "VALUES (?, ?, ?, ?, ?)") {}

std::int64_t EntityUpserter::Ensure(const std::string& type, const std::string& name,
                                    const std::string& norm, std::int64_t now_ms) {
  select_.reset();
  select_.bind(1, norm);
  select_.bind(2, type);
  if (select_.executeStep()) {
    const std::int64_t seq = select_.getColumn(0).getInt64();
    select_.reset();
    return seq;
  }
  select_.reset();
  insert_.reset();
  insert_.bind(1, sdk::NewId(now_ms));
  insert_.bind(2, type);
  insert_.bind(3, name);
  insert_.bind(4, norm);
  insert_.bind(5, now_ms);
  insert_.exec();
  return db_.getLastInsertRowid();
}

std::optional<Entity> LoadEntity(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db,
                      "SELECT seq, id, type, name, norm_name, created_at FROM semantic_entities "
                      "WHERE seq = ?");
  q.bind(1, seq);
  if (!q.executeStep()) return std::nullopt;
  return Entity{q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                q.getColumn(3).getString(), q.getColumn(4).getString(),
                q.getColumn(5).getInt64()};
}

}  // namespace kioku::semantic
