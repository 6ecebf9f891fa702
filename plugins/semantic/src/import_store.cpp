#include "import_store.hpp"

#include "keys.hpp"
#include "normalize.hpp"
#include "kioku/sdk/sql.hpp"

namespace kioku::semantic {

std::unordered_map<std::string, KnownMemory> KnownTexts(const Env& env, const Scope& scope) {
  std::unordered_map<std::string, KnownMemory> known;
  SQLite::Statement q(env.db,
                      "SELECT own_id, status, text, captured_at, seq, id_nonce FROM semantic_memories WHERE scope = 'global' OR "
                      "(project_key = " + KeyOfSql("?") + " AND project_key <> 0) ORDER BY seq");
  sdk::Bind(q, scope.project_id);
  while (q.executeStep()) {
    known.emplace(NormalizeText(q.getColumn(2).getString()),
                  KnownMemory{MemoryId(q.getColumn(0).getString(), q.getColumn(3).getInt64(), q.getColumn(5).getInt64(),
                                       q.getColumn(4).getInt64()),
                              q.getColumn(1).getString()});
  }
  return known;
}

std::unordered_map<std::string, KnownMemory> KnownSourceRefs(const Env& env, const std::string& prefix) {
  std::unordered_map<std::string, KnownMemory> known;
  SQLite::Statement q(env.db,
                      "SELECT " + MemoryIdSql() + ", status, source_ref FROM semantic_memories WHERE substr(source_ref, 1, ?) = ?");
  sdk::Bind(q, static_cast<int>(prefix.size()), prefix);
  while (q.executeStep()) {
    known.emplace(q.getColumn(2).getString(), KnownMemory{q.getColumn(0).getString(), q.getColumn(1).getString()});
  }
  return known;
}

void LinkMemoryEntity(const Env& env, std::int64_t memory_seq, std::int64_t entity_seq) {
  sdk::CachedStatement q =
      env.Stmt("INSERT OR IGNORE INTO semantic_memory_entities(memory_seq, entity_seq) VALUES (?, ?)");
  sdk::Bind(*q, memory_seq, entity_seq);
  q->exec();
}

void ApplyImportedState(const Env& env, const Memory& m, const std::string& status,
                        const std::string& superseded_by, std::int64_t captured_at,
                        const std::string& agent_id, const std::string& detail) {
  const std::int64_t now = env.clock.NowMs();
  if (status == "superseded") {
    SQLite::Statement q(env.db,
                        "UPDATE semantic_memories SET prior_status = 'active', status = 'superseded', "
                        "superseded_at = ?, superseded_by = ? WHERE seq = ?");
    sdk::Bind(q, now, superseded_by, m.seq);
    q.exec();
  } else if (status != m.status) {
    SQLite::Statement q(env.db, "UPDATE semantic_memories SET status = ? WHERE seq = ?");
    sdk::Bind(q, status, m.seq);
    q.exec();
  }
  if (captured_at > 0) {
    // A derived id is computed from captured_at: the memory keeps the id it was given.
    SQLite::Statement q(env.db, "UPDATE semantic_memories SET own_id = " + MemoryIdSql() + ", captured_at = ? WHERE seq = ?");
    sdk::Bind(q, captured_at, m.seq);
    q.exec();
  }
  SQLite::Statement h(env.db,
                      "INSERT INTO semantic_memory_history(memory_id, action, at, agent_id, detail, snapshot) "
                      "VALUES (?, 'imported', ?, ?, ?, NULL)");
  sdk::Bind(h, m.id, now, agent_id, detail);
  h.exec();
}

}  // namespace kioku::semantic
