#include "entity_store.hpp"

#include <algorithm>

#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/tool.hpp"
#include "normalize.hpp"

namespace kioku::semantic {

std::int64_t EnsureEntity(const Env& env, KeyInterner& keys, const std::string& type, const std::string& name,
                          const std::string& norm, std::int64_t now_ms) {
  const std::int64_t type_key = keys.Key(env, type);
  {
    sdk::CachedStatement q =
        env.Stmt("SELECT seq FROM semantic_entities WHERE norm_name = ? AND type_key = ?");
    sdk::Bind(*q, norm, type_key);
    if (q->executeStep()) {
      const std::int64_t seq = q->getColumn(0).getInt64();
      q->reset();
      return seq;
    }
    q->reset();
  }
  sdk::CachedStatement ins = env.Stmt(
      "INSERT INTO semantic_entities(type_key, name, norm_name, created_at) VALUES (?, ?, ?, ?)");
  sdk::Bind(*ins, type_key, name == norm ? std::string() : name, norm, now_ms);
  ins->exec();
  return env.db.getLastInsertRowid();
}

std::optional<Entity> LoadEntity(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db, std::string("SELECT e.seq, ") + kShownEntityIdSql + ", " + KeyTextSql("e.type_key") + ", " + kEntityNameSql +
                              ", e.norm_name, e.created_at FROM semantic_entities e WHERE e.seq = ?");
  sdk::Bind(q, seq);
  if (!q.executeStep()) return std::nullopt;
  const std::int64_t created_at = q.getColumn(5).getInt64();
  return Entity{q.getColumn(0).getInt64(), EntityId(q.getColumn(1).getString(), created_at, seq),
                q.getColumn(2).getString(), q.getColumn(3).getString(), q.getColumn(4).getString(), created_at};
}

std::string EntityId(const std::string& shown, std::int64_t created_at, std::int64_t seq) {
  return shown.empty() ? sdk::DerivedId(created_at, seq) : shown;
}

namespace {

constexpr std::size_t kListedIds = 5;

// An entity's creation time as its derived id holds it: DerivedId clamps a time outside
// what a ULID holds, so lookups by id compare the clamped value.
const std::string& IdTimeSql() {
  static const std::string sql = "max(0, min(created_at, " + std::to_string(sdk::kMaxIdTimeMs) + "))";
  return sql;
}

// (id, seq) of up to kListedIds + 1 ids starting with `upper` (upper-case), kept ids first.
std::vector<std::pair<std::string, std::int64_t>> IdsStartingWith(SQLite::Database& db, const std::string& upper) {
  std::vector<std::pair<std::string, std::int64_t>> found;
  {
    // An index range, as sdk::ResolveIdPrefix does ('[' follows 'Z').
    SQLite::Statement q(db, "SELECT id, entity_seq FROM semantic_entity_ids WHERE id >= ? AND id < ? ORDER BY id LIMIT " +
                                std::to_string(kListedIds + 1));
    sdk::Bind(q, upper, upper + "[");
    while (q.executeStep()) found.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt64());
  }
  if (auto range = sdk::DerivedIdPrefixRange(upper)) {
    SQLite::Statement q(db, "SELECT seq, created_at FROM semantic_entities WHERE seq BETWEEN ? AND ? AND " +
                                IdTimeSql() + " BETWEEN ? AND ? ORDER BY created_at, seq LIMIT " +
                                std::to_string(kListedIds + 1));
    sdk::Bind(q, range->seq_lo, range->seq_hi, range->ms_lo, range->ms_hi);
    while (q.executeStep()) {
      const std::int64_t seq = q.getColumn(0).getInt64();
      found.emplace_back(sdk::DerivedId(q.getColumn(1).getInt64(), seq), seq);
    }
  }
  return found;
}

}  // namespace

std::optional<std::int64_t> ResolveEntityId(SQLite::Database& db, std::string_view typed) {
  const std::string upper = AsciiUpper(typed);
  std::vector<std::pair<std::string, std::int64_t>> found = IdsStartingWith(db, upper);
  for (const auto& [id, seq] : found) {
    if (id == upper) return seq;
  }
  if (found.empty()) return std::nullopt;
  const std::int64_t first = found.front().second;
  if (std::all_of(found.begin(), found.end(), [&](const auto& f) { return f.second == first; })) return first;
  std::string list;
  for (std::size_t i = 0; i < found.size() && i < kListedIds; ++i) list += (i ? ", " : "") + found[i].first;
  if (found.size() > kListedIds) list += ", …";
  throw sdk::ToolError("id prefix '" + std::string(typed) + "' matches several entity ids: " + list +
                       "; send more characters");
}

std::int64_t KeepImportedEntityIds(SQLite::Database& db, const std::vector<ImportedEntityId>& ids,
                                   const std::vector<std::int64_t>& seqs_before) {
  SQLite::Statement entity(db, "SELECT seq FROM semantic_entities WHERE norm_name = ? AND type_key = " + KeyOfSql("?"));
  SQLite::Statement kept(db, "SELECT entity_seq FROM semantic_entity_ids WHERE id = ?");
  SQLite::Statement derived_row(db, "SELECT 1 FROM semantic_entities WHERE seq = ? AND " + IdTimeSql() + " = ?");
  SQLite::Statement has_shown(db, "SELECT 1 FROM semantic_entity_ids WHERE entity_seq = ? AND shown = 1");
  SQLite::Statement add(db, "INSERT INTO semantic_entity_ids(id, entity_seq, shown) VALUES (?, ?, ?)");
  std::int64_t added = 0;
  for (const ImportedEntityId& in : ids) {
    const std::string id = AsciiUpper(in.id);
    entity.reset();
    sdk::Bind(entity, in.norm_name, in.type);
    if (id.empty() || !entity.executeStep()) continue;
    const std::int64_t seq = entity.getColumn(0).getInt64();
    kept.reset();
    sdk::Bind(kept, id);
    if (kept.executeStep()) continue;  // a kept id: its entity's, or another's here, which keeps it
    if (auto parts = sdk::ParseDerivedId(id)) {
      derived_row.reset();
      sdk::Bind(derived_row, parts->seq, parts->unix_ms);
      if (derived_row.executeStep()) {
        // The derived id of a row here: this entity's own, or one the database had (its
        // meaning stays). A row this import renumbered onto that seq takes the id from no
        // one: the file's entity does (one call's entities share a millisecond, so
        // renumbering shifts one entity's id onto the next).
        if (parts->seq == seq || std::binary_search(seqs_before.begin(), seqs_before.end(), parts->seq)) continue;
      }
    }
    bool shown = in.shown && !in.existed;
    if (shown) {
      has_shown.reset();
      sdk::Bind(has_shown, seq);
      shown = !has_shown.executeStep();
    }
    add.reset();
    sdk::Bind(add, id, seq, std::int64_t{shown ? 1 : 0});
    add.exec();
    ++added;
  }
  return added;
}

}  // namespace kioku::semantic
