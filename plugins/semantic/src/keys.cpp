#include "keys.hpp"

#include "kioku/sdk/sql.hpp"
#include "memory.hpp"

namespace kioku::semantic {

std::string KeyTextSql(std::string_view column) {
  return "coalesce((SELECT text FROM semantic_keys WHERE seq = " + std::string(column) + "), '')";
}

std::string KeyOfSql(std::string_view param) {
  // The parameter appears once, so plain "?" placeholders keep their positions.
  return "(SELECT CASE WHEN p.text = '' THEN 0 ELSE (SELECT k.seq FROM semantic_keys k WHERE k.text = p.text) END "
         "FROM (SELECT " + std::string(param) + " AS text) p)";
}

std::string InViewerScopeSql(std::string_view param) {
  return "(m.scope = 'global' OR (" + std::string(param) + " <> '' AND m.project_key = " + KeyOfSql(param) + "))";
}

void DropUnusedKeys(SQLite::Database& db) {
  db.exec("DELETE FROM semantic_keys WHERE seq NOT IN (SELECT project_key FROM semantic_memories UNION SELECT "
          "agent_key FROM semantic_memories UNION SELECT session_key FROM semantic_memories UNION SELECT type_key "
          "FROM semantic_entities)");
}

std::int64_t KeyInterner::Key(const Env& env, const std::string& text) { return Key(env.db, env.statements, text); }

std::int64_t KeyInterner::Key(SQLite::Database& db, sdk::StatementCache& statements, const std::string& text) {
  if (text.empty()) return 0;
  for (const auto& [given, key] : given_) {
    if (given == text) return key;
  }
  std::int64_t key = 0;
  {
    sdk::CachedStatement q = statements.Get(db, "SELECT seq FROM semantic_keys WHERE text = ?");
    sdk::Bind(*q, text);
    if (q->executeStep()) key = q->getColumn(0).getInt64();
    q->reset();
  }
  if (key == 0) {
    sdk::CachedStatement q = statements.Get(db, "INSERT INTO semantic_keys(text) VALUES (?)");
    sdk::Bind(*q, text);
    q->exec();
    key = db.getLastInsertRowid();
  }
  // A handful a write (agent, session, projects): a list beats a map.
  if (given_.size() < 8) given_.emplace_back(text, key);
  return key;
}

}  // namespace kioku::semantic
