#include "index_lag.hpp"

#include <climits>
#include <string>

namespace kioku::semantic {
std::int64_t ReadMark(const Env& env, std::string_view index) {
  sdk::CachedStatement q = env.Stmt("SELECT " + MarkSql(index));
  q->executeStep();
  return q->getColumn(0).getInt64();
}

IndexLagRows LagOf(const Env& env) {
  sdk::CachedStatement q = env.Stmt("SELECT (SELECT coalesce(max(seq), 0) FROM semantic_memories) - " +
                                    MarkSql("substring") + ", (SELECT coalesce(max(seq), 0) FROM semantic_entities) - " +
                                    MarkSql("entity_name"));
  q->executeStep();
  return {q->getColumn(0).getInt64(), q->getColumn(1).getInt64()};
}

std::string MarkSql(std::string_view index) {
  return "coalesce((SELECT seq FROM semantic_index_marks WHERE name = '" + std::string(index) + "'), 0)";
}

void CatchUpLaggingIndexes(SQLite::Database& db) {
  db.exec("INSERT INTO semantic_fts_trigram(rowid, text) SELECT seq, text FROM semantic_memories WHERE seq > " +
          MarkSql("substring") + "; INSERT INTO semantic_entities_fts(rowid, norm_name) SELECT seq, norm_name FROM "
          "semantic_entities WHERE seq > " + MarkSql("entity_name"));
  MarkIndexesWhole(db);
}

void MarkIndexesWhole(SQLite::Database& db) {
  // A mark never moves down: new rows get seqs above every earlier one (AUTOINCREMENT), so
  // rows deleted at the top leave no unindexed row below it.
  db.exec("INSERT INTO semantic_index_marks(name, seq) VALUES "
          "('substring', (SELECT coalesce(max(seq), 0) FROM semantic_memories)), "
          "('entity_name', (SELECT coalesce(max(seq), 0) FROM semantic_entities)) "
          "ON CONFLICT(name) DO UPDATE SET seq = max(seq, excluded.seq)");
}

void IndexLag::Queue() {
  if (queued_.exchange(true)) return;
  host_.DeferWrite([this](SQLite::Database& db) {
    // Cleared first: a write that commits while this runs queues the next catch-up.
    queued_.store(false);
    CaughtUp();
    CatchUpLaggingIndexes(db);
  });
}

void IndexLag::QueueIfStale(const Env& env) {
  const std::int64_t now = env.clock.NowMs();
  std::int64_t last = stale_checked_at_.load();
  if (last != INT64_MIN && now - last < kStaleLagMs / 2) return;
  if (!stale_checked_at_.compare_exchange_strong(last, now)) return;  // another thread looks
  // When the newest row above either mark was written; NULL when nothing lags. The newest
  // by seq, a primary-key read: max(captured_at) would walk its own index from the top,
  // past every row below the mark (all 100,000 rows of a store that does not lag).
  sdk::CachedStatement q = env.Stmt(
      "SELECT max(coalesce(m, e), coalesce(e, m)) FROM (SELECT (SELECT captured_at FROM semantic_memories WHERE seq > " +
      MarkSql("substring") + " ORDER BY seq DESC LIMIT 1) AS m, (SELECT created_at FROM semantic_entities WHERE seq > " +
      MarkSql("entity_name") + " ORDER BY seq DESC LIMIT 1) AS e)");
  if (!q->executeStep() || q->getColumn(0).isNull()) return;
  if (now - q->getColumn(0).getInt64() >= kStaleLagMs) Queue();
}

void SettleLaggingIndexes(const Env& env, std::int64_t added_text_bytes) {
  if (env.index_lag == nullptr) {
    CatchUpLaggingIndexes(env.db);
    return;
  }
  const std::int64_t bytes = env.index_lag->AddLaggingBytes(added_text_bytes);
  const IndexLagRows lag = LagOf(env);
  if (lag.memories > kMaxLagRows || lag.entities > kMaxLagRows || bytes > kMaxLagBytes) {
    CatchUpLaggingIndexes(env.db);
    env.index_lag->CaughtUp();
  } else if (lag.memories > 0 || lag.entities > 0) {
    env.index_lag->Queue();
  }
}

}  // namespace kioku::semantic
