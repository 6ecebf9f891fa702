#include "graph_store.hpp"

#include <algorithm>

#include "entities.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "normalize.hpp"

namespace kioku::semantic {
namespace {

constexpr const char* kRelationColumns =
    "r.seq, r.id, r.from_seq, r.type, r.to_seq, r.valid_from, r.valid_to, r.recorded_at, "
    "r.expired_at, r.replaces";

Relation ReadRelation(SQLite::Statement& q) {
  Relation r;
  r.seq = q.getColumn(0).getInt64();
  r.id = q.getColumn(1).getString();
  r.from_seq = q.getColumn(2).getInt64();
  r.type = q.getColumn(3).getString();
  r.to_seq = q.getColumn(4).getInt64();
  r.valid_from = q.getColumn(5).getInt64();
  r.valid_to = q.getColumn(6).isNull() ? 0 : q.getColumn(6).getInt64();
  r.recorded_at = q.getColumn(7).getInt64();
  r.expired_at = q.getColumn(8).isNull() ? 0 : q.getColumn(8).getInt64();
  r.replaces = q.getColumn(9).isNull() ? "" : q.getColumn(9).getString();
  return r;
}

Relation Insert(SQLite::Database& db, Relation r, const std::string& agent_id) {
  r.id = sdk::NewId(r.recorded_at);
  SQLite::Statement q(db,
                      "INSERT INTO semantic_relations(id, from_seq, type, to_seq, valid_from, "
                      "valid_to, recorded_at, expired_at, agent_id, replaces) VALUES "
                      "(?,?,?,?,?,?,?,NULL,?,?)");
  sdk::Bind(q, r.id, r.from_seq, r.type, r.to_seq, r.valid_from);
  if (r.valid_to != 0) {
    q.bind(6, r.valid_to);
  } else {
    q.bind(6);
  }
  q.bind(7, r.recorded_at);
  q.bind(8, agent_id);
  if (r.replaces.empty()) {
    q.bind(9);
  } else {
    q.bind(9, r.replaces);
  }
  q.exec();
  r.seq = db.getLastInsertRowid();
  return r;
}

// Expires `old` and records a copy whose validity ends at `valid_to`.
Relation Close(SQLite::Database& db, const Relation& old, std::int64_t valid_to,
               std::int64_t now, const std::string& agent_id) {
  SQLite::Statement q(db, "UPDATE semantic_relations SET expired_at = ? WHERE seq = ?");
  sdk::Bind(q, now, old.seq);
  q.exec();
  Relation copy = old;
  copy.valid_to = valid_to;
  copy.recorded_at = now;
  copy.expired_at = 0;
  copy.replaces = old.id;
  return Insert(db, copy, agent_id);
}

std::vector<Relation> Believed(SQLite::Database& db, std::int64_t from_seq,
                               const std::string& type) {
  SQLite::Statement q(db, std::string("SELECT ") + kRelationColumns +
                              " FROM semantic_relations r WHERE r.from_seq = ? AND r.type = ? "
                              "AND r.expired_at IS NULL ORDER BY r.seq");
  sdk::Bind(q, from_seq, type);
  std::vector<Relation> out;
  while (q.executeStep()) out.push_back(ReadRelation(q));
  return out;
}

bool OpenAt(const Relation& r, std::int64_t t) {
  return r.valid_from <= t && (r.valid_to == 0 || r.valid_to > t);
}

// Interval helpers over [from, to) with to == 0 meaning open (+infinity).
bool Covers(const Relation& r, std::int64_t from, std::int64_t to) {
  return r.valid_from <= from && (r.valid_to == 0 || (to != 0 && r.valid_to >= to));
}
bool Overlaps(const Relation& r, std::int64_t from, std::int64_t to) {
  return (to == 0 || r.valid_from < to) && (r.valid_to == 0 || r.valid_to > from);
}
bool Touches(const Relation& r, std::int64_t from, std::int64_t to) {
  return (to == 0 || r.valid_from <= to) && (r.valid_to == 0 || r.valid_to >= from);
}

void Expire(SQLite::Database& db, const Relation& r, std::int64_t now) {
  SQLite::Statement q(db, "UPDATE semantic_relations SET expired_at = ? WHERE seq = ?");
  sdk::Bind(q, now, r.seq);
  q.exec();
}

}  // namespace

std::string NormalizeRelationType(const std::string& type) {
  std::string t = AsciiLower(Trim(type));
  for (char& c : t) {
    if (c == ' ' || c == '-') c = '_';
  }
  const bool ok = !t.empty() && t.size() <= 64 && t.front() >= 'a' && t.front() <= 'z' &&
                  std::all_of(t.begin(), t.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
                  });
  if (!ok) {
    throw sdk::ToolError("relation type '" + sdk::TruncateUtf8(type, 40) +
                         "' is not a word: send snake_case such as uses, depends_on, owned_by");
  }
  return t;
}

std::optional<Entity> FindEntity(SQLite::Database& db, const std::string& name_or_id,
                                 const std::string& type) {
  const std::string norm = NormalizeEntityName(name_or_id);
  {
    std::string sql = "SELECT seq FROM semantic_entities WHERE norm_name = ?";
    if (!type.empty()) sql += " AND type_key = " + KeyOfSql("?");
    sql += " ORDER BY seq LIMIT 1";
    SQLite::Statement q(db, sql);
    sdk::Bind(q, norm);
    if (!type.empty()) q.bind(2, type);
    if (q.executeStep()) return LoadEntity(db, q.getColumn(0).getInt64());
  }
  // Ids are ULIDs (Crockford base32, first character 0-7 until the year 10889); only such
  // text is tried as an id prefix, so a name like "pnpm" never resolves to an id.
  const std::string_view t = Trim(name_or_id);
  const bool id_like = t.size() >= 4 && t.size() <= 26 && t.front() >= '0' && t.front() <= '7' &&
                       std::all_of(t.begin(), t.end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
                                (c >= 'a' && c <= 'z');
                       });
  if (!id_like) return std::nullopt;
  const std::optional<std::int64_t> seq = ResolveEntityId(db, t);
  return seq ? LoadEntity(db, *seq) : std::nullopt;
}

Entity EnsureNamedEntity(const Env& env, const std::string& name, const std::string& type,
                         std::int64_t now_ms) {
  SQLite::Database& db = env.db;
  const std::string_view trimmed = Trim(name);
  if (trimmed.empty()) throw sdk::ToolError("entity name is empty");
  if (std::optional<Entity> found = FindEntity(db, std::string(trimmed), type)) {
    // An id typed for a name is fine; a name only matches entities of the asked type.
    return *found;
  }
  const std::string t = type.empty() ? ClassifyEntityName(trimmed) : type;
  KeyInterner keys;
  const std::int64_t seq =
      EnsureEntity(env, keys, t, std::string(trimmed), NormalizeEntityName(trimmed), now_ms);
  return *LoadEntity(db, seq);
}

RelateOutcome Relate(const Env& env, const Entity& from, const std::string& type,
                     const Entity& to, std::int64_t valid_from, std::int64_t valid_to,
                     const std::string& agent_id) {
  if (from.seq == to.seq) {
    throw sdk::ToolError("from and to are the same entity (" + from.name +
                         "); a relation links two different entities");
  }
  if (valid_to != 0 && valid_to <= valid_from) {
    throw sdk::ToolError("valid_to must be later than valid_from");
  }
  const std::int64_t now = env.clock.NowMs();
  RelateOutcome out;
  std::vector<Relation> believed = Believed(env.db, from.seq, type);
  const auto& single_types = env.settings.graph.single_valued;
  const bool single = std::find(single_types.begin(), single_types.end(), type) != single_types.end();

  // (1) Single-valued, open-ended: "from valid_from until the next known change".
  if (single && valid_to == 0) {
    for (const Relation& r : believed) {
      if (r.to_seq != to.seq && r.valid_from > valid_from) {
        valid_to = valid_to == 0 ? r.valid_from : std::min(valid_to, r.valid_from);
      }
    }
  }
  // (2) Same target: one row per continuous interval. A believed row that already covers
  // the assertion makes it known; rows that overlap or touch it merge into one.
  for (const Relation& r : believed) {
    if (r.to_seq == to.seq && Covers(r, valid_from, valid_to)) {
      out.relation = r;
      out.already_known = true;
      return out;
    }
  }
  std::int64_t merged_from = valid_from, merged_to = valid_to;
  std::vector<const Relation*> merged;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Relation& r : believed) {
      if (r.to_seq != to.seq || r.expired_at != 0) continue;
      if (std::find(merged.begin(), merged.end(), &r) != merged.end()) continue;
      if (!Touches(r, merged_from, merged_to)) continue;
      merged.push_back(&r);
      merged_from = std::min(merged_from, r.valid_from);
      merged_to = (merged_to == 0 || r.valid_to == 0) ? 0 : std::max(merged_to, r.valid_to);
      grew = true;
    }
  }
  for (const Relation* r : merged) Expire(env.db, *r, now);
  // (3) Single-valued, other targets: the newer assertion wins over [merged_from, merged_to);
  // their parts outside it are recorded again as corrected copies.
  if (single) {
    for (const Relation& r : believed) {
      if (r.to_seq == to.seq || !Overlaps(r, merged_from, merged_to)) continue;
      Expire(env.db, r, now);
      if (r.valid_from < merged_from) {
        Relation before = r;
        before.valid_to = merged_from;
        before.recorded_at = now;
        before.expired_at = 0;
        before.replaces = r.id;
        out.closed.push_back(Insert(env.db, before, agent_id));
      }
      if (merged_to != 0 && (r.valid_to == 0 || r.valid_to > merged_to)) {
        Relation after = r;
        after.valid_from = merged_to;
        after.recorded_at = now;
        after.expired_at = 0;
        after.replaces = r.id;
        out.closed.push_back(Insert(env.db, after, agent_id));
      }
      if (r.valid_from >= merged_from &&
          (merged_to == 0 || (r.valid_to != 0 && r.valid_to <= merged_to))) {
        Relation gone = r;  // wholly superseded in valid time: reported, not re-recorded
        gone.expired_at = now;
        out.closed.push_back(gone);
      }
    }
  }
  Relation r;
  r.from_seq = from.seq;
  r.type = type;
  r.to_seq = to.seq;
  r.valid_from = merged_from;
  r.valid_to = merged_to;
  r.recorded_at = now;
  if (!merged.empty()) r.replaces = merged.front()->id;
  out.relation = Insert(env.db, r, agent_id);
  return out;
}

std::vector<Relation> Unrelate(const Env& env, const Entity& from, const std::string& type,
                               const Entity& to, std::int64_t at, const std::string& agent_id) {
  const std::int64_t now = env.clock.NowMs();
  std::vector<Relation> out;
  bool any_current = false;
  for (const Relation& r : Believed(env.db, from.seq, type)) {
    if (r.to_seq != to.seq) continue;
    any_current = true;
    if (!OpenAt(r, at) || r.valid_from >= at) continue;
    out.push_back(Close(env.db, r, at, now, agent_id));
  }
  if (out.empty()) {
    throw sdk::ToolError(
        std::string(any_current ? "the relation " : "there is no relation ") + from.name +
        " -" + type + "-> " + to.name +
        (any_current ? " is not open at " + sdk::FormatRfc3339(at) +
                           " (already ended, or it starts later); entity_graph with history: "
                           "true shows its rows"
                     : "; entity_graph {entity: \"" + from.name + "\"} shows what is recorded"));
  }
  return out;
}

std::vector<Relation> RelationsOf(SQLite::Database& db, std::int64_t entity_seq, GraphAxis axis,
                                  std::int64_t t, bool all_history, int limit) {
  std::string pred;
  if (!all_history) {
    pred = " AND r.valid_from <= ?1 AND (r.valid_to IS NULL OR r.valid_to > ?1)";
    pred += axis == GraphAxis::kValid
                ? " AND r.expired_at IS NULL"
                : " AND r.recorded_at <= ?1 AND (r.expired_at IS NULL OR r.expired_at > ?1)";
  }
  const std::string sql = std::string("SELECT ") + kRelationColumns +
                          " FROM semantic_relations r WHERE r.from_seq = ?2" + pred +
                          " UNION SELECT " + kRelationColumns +
                          " FROM semantic_relations r WHERE r.to_seq = ?2" + pred +
                          " ORDER BY 1 LIMIT ?3";
  SQLite::Statement q(db, sql);
  if (!all_history) q.bind(1, t);
  q.bind(2, entity_seq);
  q.bind(3, limit);
  std::vector<Relation> out;
  while (q.executeStep()) out.push_back(ReadRelation(q));
  return out;
}

}  // namespace kioku::semantic
