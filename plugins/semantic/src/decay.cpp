#include "decay.hpp"

#include <algorithm>
#include <cmath>

#include "keys.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/sql.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "ranking.hpp"
#include "review_store.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {
namespace {

constexpr int kMaxPrunePerPass = 1000;

int Expire(const Env& env, const std::string& agent) {
  std::vector<std::pair<std::int64_t, std::string>> expired;  // (seq, id)
  {
    SQLite::Statement q(env.db,
                        "SELECT seq, " + MemoryIdSql() + " FROM semantic_memories WHERE status IN ('active','pending','contested') "
                        "AND expires_at IS NOT NULL AND expires_at <= ?");
    sdk::Bind(q, env.clock.NowMs());
    while (q.executeStep()) expired.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getString());
  }
  for (const auto& [seq, id] : expired) {
    SQLite::Statement q(env.db,
                        "UPDATE semantic_memories SET prior_status = status, status = 'superseded', superseded_at = ? "
                        "WHERE seq = ?");
    sdk::Bind(q, env.clock.NowMs(), seq);
    q.exec();
    AddHistory(env, id, "expired", agent, "expiry passed");
  }
  return static_cast<int>(expired.size());
}

}  // namespace

std::optional<double> DecayedConfidenceNow(const Env& env, const Memory& m) {
  if (m.status == "pinned" || m.status == "superseded") return std::nullopt;
  SQLite::Statement q(env.db, "SELECT coalesce(max(at), 0) FROM semantic_memory_usage WHERE memory_seq = ?");
  sdk::Bind(q, m.seq);
  const std::int64_t used = q.executeStep() ? q.getColumn(0).getInt64() : 0;
  const std::int64_t ref_at = std::max(m.updated_at, used);
  const MultiplierSettings& ms = env.settings.multipliers;
  const auto h = ms.half_life_days.find(m.kind);
  const double days = static_cast<double>(std::max<std::int64_t>(0, env.clock.NowMs() - ref_at)) / sdk::kMsPerDay;
  return DecayedConfidence(m.confidence, days, h != ms.half_life_days.end() ? h->second : 90.0, ms.decay_exponent);
}

namespace {

void Decay(const Env& env, MaintainReport& report) {
  const std::int64_t now = env.clock.NowMs();
  const MultiplierSettings& ms = env.settings.multipliers;
  struct Row {
    std::int64_t seq;
    std::string kind, status;
    double stated;
    std::int64_t ref_at;
    bool has_state;
    double decayed;
  };
  std::vector<Row> rows;
  {
    SQLite::Statement q(env.db,
                        "SELECT m.seq, m.kind, m.status, m.confidence, max(m.updated_at, "
                        "coalesce((SELECT max(u.at) FROM semantic_memory_usage u WHERE u.memory_seq = m.seq), 0)), "
                        "d.confidence IS NOT NULL, coalesce(d.confidence, 0) "
                        "FROM semantic_memories m LEFT JOIN semantic_memory_decay d ON d.memory_seq = m.seq "
                        "WHERE m.status IN ('active','pending','contested')");
    while (q.executeStep()) {
      rows.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                      q.getColumn(3).getDouble(), q.getColumn(4).getInt64(), q.getColumn(5).getInt() != 0,
                      q.getColumn(6).getDouble()});
    }
  }
  SQLite::Statement state(env.db,
                          "INSERT INTO semantic_memory_decay(memory_seq, confidence, ref_at) VALUES (?1, ?2, ?3) "
                          "ON CONFLICT(memory_seq) DO UPDATE SET confidence = ?2, ref_at = ?3");
  SQLite::Statement clear(env.db, "DELETE FROM semantic_memory_decay WHERE memory_seq = ?");
  const double stale_below = env.settings.housekeeping.stale_below;
  for (const Row& r : rows) {
    const auto h = ms.half_life_days.find(r.kind);
    const double days = static_cast<double>(std::max<std::int64_t>(0, now - r.ref_at)) / sdk::kMsPerDay;
    const double conf = DecayedConfidence(r.stated, days, h != ms.half_life_days.end() ? h->second : 90.0, ms.decay_exponent);
    if (conf < stale_below) {
      if (!r.has_state || std::abs(conf - r.decayed) > 1e-4) {
        sdk::Bind(state, r.seq, conf, r.ref_at);
        state.exec();
        state.reset();
        ++report.decayed;
      }
    } else if (r.has_state) {  // above the line again (reaffirmed, used, or the line moved)
      sdk::Bind(clear, r.seq);
      clear.exec();
      clear.reset();
      ++report.decayed;
    }
    if (r.status == "active" && conf < stale_below) ++report.stale;
  }
}

// Contested memories with a subject, in no open pair, whose live subject rivals are all
// gone (the pinned rival was forgotten): the survivor is active again.
int ReinstateSubjectSurvivors(const Env& env, const std::string& agent) {
  std::vector<Memory> contested;
  {
    SQLite::Statement q(env.db, std::string("SELECT ") + MemoryColumns() +
                                    " FROM semantic_memories m WHERE m.status = 'contested' AND m.subject <> '' "
                                    "AND NOT EXISTS (SELECT 1 FROM semantic_rivals r WHERE r.resolved_at IS NULL "
                                    "AND (r.a_seq = m.seq OR r.b_seq = m.seq))");
    while (q.executeStep()) contested.push_back(ReadMemory(q));
  }
  int n = 0;
  for (const Memory& m : contested) {
    SQLite::Statement q(env.db,
                        "SELECT value FROM semantic_memories WHERE subject <> '' AND subject = ? AND scope = ? AND project_key = " +
                            KeyOfSql("?") + " AND path = ? AND seq <> ? AND status IN ('active','pinned','contested')");
    sdk::Bind(q, m.subject, m.scope.kind, m.scope.project_id, m.scope.path, m.seq);
    bool rival = false;
    while (q.executeStep()) rival = rival || NormalizeText(q.getColumn(0).getString()) != NormalizeText(m.value);
    if (rival) continue;
    SQLite::Statement up(env.db, "UPDATE semantic_memories SET status = 'active' WHERE seq = ?");
    sdk::Bind(up, m.seq);
    up.exec();
    AddHistory(env, m.id, "reinstated", agent, "its rival for " + m.subject + " is gone");
    ++n;
  }
  return n;
}

int Prune(const Env& env, const std::string& agent) {
  const int days = env.settings.housekeeping.superseded_retention_days;
  if (days <= 0) return 0;
  std::vector<Memory> old;
  {
    SQLite::Statement q(env.db, std::string("SELECT ") + MemoryColumns() +
                                    " FROM semantic_memories m WHERE m.status = 'superseded' AND "
                                    "coalesce(m.superseded_at, m.updated_at) < ? ORDER BY m.seq LIMIT ?");
    sdk::Bind(q, env.clock.NowMs() - static_cast<std::int64_t>(days) * sdk::kMsPerDay, kMaxPrunePerPass);
    while (q.executeStep()) old.push_back(ReadMemory(q));
  }
  if (old.empty()) return 0;
  MemoryWriter writer(env);
  for (const Memory& m : old) {
    if (m.status != "superseded") continue;  // guarded twice: only superseded rows go
    writer.Purge(m, Author{agent, ""});
  }
  writer.Finish();
  return static_cast<int>(old.size());
}

}  // namespace

double DecayedConfidence(double base, double elapsed_days, double half_life_days, double exponent) {
  return std::clamp(base, 0.0, 1.0) * Retrievability(elapsed_days, half_life_days, exponent);
}

MaintainReport RunMaintenance(const Env& env, const std::string& agent_id) {
  MaintainReport r;
  r.ran_at = env.clock.NowMs();
  r.expired = Expire(env, agent_id);
  Decay(env, r);
  // Rival pairs first (their survivors), then memories contested by a vanished pin.
  r.reinstated = static_cast<int>(ResolveGoneRivals(env, agent_id).size()) + ReinstateSubjectSurvivors(env, agent_id);
  r.pruned = Prune(env, agent_id);
  SQLite::Statement q(env.db,
                      "INSERT INTO semantic_maintenance(name, at, detail) VALUES ('housekeeping', ?1, ?2) "
                      "ON CONFLICT(name) DO UPDATE SET at = ?1, detail = ?2");
  sdk::Bind(q, r.ran_at, sdk::DumpJson(MaintainReportJson(r)));
  q.exec();
  return r;
}

sdk::Json MaintainReportJson(const MaintainReport& r) {
  return {{"expired", r.expired}, {"decayed", r.decayed}, {"stale", r.stale},
          {"reinstated", r.reinstated}, {"pruned", r.pruned}, {"ran_at", sdk::FormatRfc3339(r.ran_at)}};
}

void MaybeScheduleMaintenance(ToolContext& ctx) {
  const int minutes = ctx.settings.housekeeping.interval_minutes;
  if (minutes <= 0) return;
  const std::int64_t now = ctx.host.GetClock().NowMs();
  std::int64_t last = ctx.maintenance_checked_at.load();
  if (last != 0 && now - last < 60'000) return;
  if (!ctx.maintenance_checked_at.compare_exchange_strong(last, now)) return;
  const std::int64_t interval_ms = static_cast<std::int64_t>(minutes) * 60'000;
  ToolContext* c = &ctx;
  ctx.host.DeferWrite([c, interval_ms](SQLite::Database& db) {
    Env env{db, c->host.GetClock(), c->settings, c->statements};
    SQLite::Statement q(db, "SELECT at FROM semantic_maintenance WHERE name = 'housekeeping'");
    if (q.executeStep() && env.clock.NowMs() - q.getColumn(0).getInt64() < interval_ms) return;
    q.reset();
    // Inside the host's batch transaction: a failure rolls back this pass only, so the
    // other deferred writes of the batch still land.
    db.exec("SAVEPOINT semantic_housekeeping");
    try {
      RunMaintenance(env, "kioku-housekeeping");
      db.exec("RELEASE semantic_housekeeping");
    } catch (const std::exception& e) {
      db.exec("ROLLBACK TO semantic_housekeeping");
      db.exec("RELEASE semantic_housekeeping");
      c->host.Log().Warn(std::string("semantic housekeeping failed: ") + e.what());
    }
  });
}

}  // namespace kioku::semantic
