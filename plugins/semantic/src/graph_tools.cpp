#include <cstdint>
#include <algorithm>
#include <map>
#include <set>

#include "keys.hpp"
#include "entities.hpp"
#include "graph_store.hpp"
#include "index_lag.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/match_key.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "normalize.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

const Json kStr = sdk::schema::Type("string");
const Json kStrOrNull = sdk::schema::Nullable(sdk::schema::Type("string"));

Json TimeOrNull(std::int64_t ms) { return ms == 0 ? Json(nullptr) : Json(sdk::FormatRfc3339(ms)); }

Entity RequireEntity(SQLite::Database& db, const std::string& name_or_id, const char* field) {
  std::optional<Entity> e = FindEntity(db, name_or_id);
  if (!e) {
    throw sdk::ToolError("unknown entity '" + sdk::TruncateUtf8(name_or_id, 80) + "' (" + field +
                         "); search with entity_graph {query: \"...\"}");
  }
  return *e;
}

class EntityNames {
 public:
  explicit EntityNames(SQLite::Database& db) : db_(db) {}
  const Entity& Get(std::int64_t seq) {
    auto it = cache_.find(seq);
    if (it == cache_.end()) {
      std::optional<Entity> e = LoadEntity(db_, seq);
      it = cache_.emplace(seq, e ? *e : Entity{seq, "", "", "?", "?", 0}).first;
    }
    return it->second;
  }

 private:
  SQLite::Database& db_;
  std::map<std::int64_t, Entity> cache_;
};

Json RelationJson(const Relation& r, EntityNames& names) {
  const Entity& from = names.Get(r.from_seq);
  const Entity& to = names.Get(r.to_seq);
  Json j = {{"id", r.id},
            {"from", from.name},
            {"from_id", from.id},
            {"type", r.type},
            {"to", to.name},
            {"to_id", to.id},
            {"valid_from", sdk::FormatRfc3339(r.valid_from)},
            {"valid_to", TimeOrNull(r.valid_to)},
            {"recorded_at", sdk::FormatRfc3339(r.recorded_at)},
            {"expired_at", TimeOrNull(r.expired_at)}};
  if (!r.replaces.empty()) j["replaces"] = r.replaces;
  return j;
}

std::string RelationLine(const Relation& r, EntityNames& names) {
  std::string line = names.Get(r.from_seq).name + " -" + r.type + "-> " + names.Get(r.to_seq).name +
                     "  [valid " + sdk::FormatRfc3339(r.valid_from) + " .. " +
                     (r.valid_to == 0 ? std::string("open") : sdk::FormatRfc3339(r.valid_to)) +
                     "; recorded " + sdk::FormatRfc3339(r.recorded_at);
  if (r.expired_at != 0) line += ", expired " + sdk::FormatRfc3339(r.expired_at);
  return line + "]";
}

Json RelationSchema() {
  return sdk::schema::Output({{"id", kStr}, {"from", kStr}, {"from_id", kStr}, {"type", kStr},
                       {"to", kStr}, {"to_id", kStr}, {"valid_from", kStr},
                       {"valid_to", kStrOrNull}, {"recorded_at", kStr},
                       {"expired_at", kStrOrNull}, {"replaces", kStr}},
                      {"from", "type", "to", "valid_from", "valid_to", "recorded_at",
                       "expired_at"});
}

std::vector<std::string> LinkedMemories(SQLite::Database& db, std::int64_t entity_seq,
                                        const sdk::Caller& caller) {
  std::string sql =
      "SELECT " + MemoryIdSql("m.") + " FROM semantic_memory_entities me JOIN semantic_memories m ON m.seq = "
      "me.memory_seq WHERE me.entity_seq = ? AND m.status IN "
      "('active','pinned','pending','contested') AND ";
  sql += caller.project_id.empty() ? "m.scope = 'global'" : "(m.scope = 'global' OR m.project_key = " + KeyOfSql("?") + ")";
  sql += " ORDER BY me.memory_seq DESC LIMIT 5";
  SQLite::Statement q(db, sql);
  sdk::Bind(q, entity_seq);
  if (!caller.project_id.empty()) q.bind(2, caller.project_id);
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

std::vector<Entity> SearchEntities(SQLite::Database& db, const std::string& query,
                                   const std::string& type, int limit) {
  const std::string q_text = std::string(Trim(query));
  // Folded as names are (NormalizeEntityName: MatchKey, no leading "./" or trailing '/'),
  // so what a name displays finds it; a query that folds to nothing is only case-folded.
  std::string folded = NormalizeEntityName(q_text);
  if (folded.empty()) folded = sdk::MatchKey(q_text);
  std::vector<std::int64_t> seqs;
  if (const std::optional<std::string> grams = sdk::TrigramMatch(folded)) {
    // Trigram index of normalized names (detail=none): rows holding the query's trigrams,
    // kept where the folded query is a substring of the normalized name; and the names
    // above the index's mark, which it does not hold yet (index_lag.hpp), scanned. Shortest
    // names first, then oldest.
    std::string sql =
        "SELECT seq FROM (SELECT e.seq, e.norm_name, e.type_key FROM semantic_entities_fts f JOIN semantic_entities e "
        "ON e.seq = f.rowid WHERE semantic_entities_fts MATCH ? AND kioku_substrings(semantic_entities_fts, ?) > 0 "
        "UNION ALL SELECT seq, norm_name, type_key FROM semantic_entities NOT INDEXED WHERE seq > " + MarkSql("entity_name") +
        " AND kioku_trigram_substrings(norm_name, ?) > 0)";
    if (!type.empty()) sql += " WHERE type_key = " + KeyOfSql("?");
    sql += " ORDER BY length(norm_name), seq LIMIT ?";
    SQLite::Statement q(db, sql);
    int i = 1;
    q.bind(i++, *grams);
    q.bind(i++, folded);
    q.bind(i++, folded);
    if (!type.empty()) q.bind(i++, type);
    q.bind(i, limit);
    while (q.executeStep()) seqs.push_back(q.getColumn(0).getInt64());
  } else {
    const std::string& norm = folded;
    std::string sql =
        "SELECT seq FROM semantic_entities WHERE norm_name >= ? AND norm_name < ?";
    if (!type.empty()) sql += " AND type_key = " + KeyOfSql("?");
    sql += " ORDER BY norm_name LIMIT ?";
    SQLite::Statement q(db, sql);
    int i = 1;
    q.bind(i++, norm);
    q.bind(i++, norm + "\xff");
    if (!type.empty()) q.bind(i++, type);
    q.bind(i, limit);
    while (q.executeStep()) seqs.push_back(q.getColumn(0).getInt64());
  }
  std::vector<Entity> out;
  for (std::int64_t s : seqs) {
    if (auto e = LoadEntity(db, s)) out.push_back(*e);
  }
  return out;
}

sdk::ToolResult Graph(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const sdk::Caller& caller = call.caller;
  Env env = ctx.MakeEnv();
  const bool has_query = args.contains("query");
  const bool has_entity = args.contains("entity");
  if (has_query == has_entity) {
    throw sdk::ToolError("send either query (search entities by name) or entity (traverse from "
                         "one entity), exactly one of them");
  }
  const std::optional<std::int64_t> as_of = sdk::TimeArg(args, "as_of");
  const std::int64_t t = as_of.value_or(env.clock.NowMs());
  const GraphAxis axis = args.value("as_of_axis", "valid") == "transaction" ? GraphAxis::kTransaction
                                                                             : GraphAxis::kValid;
  const bool history = args.value("history", false);
  const int depth = args.value("depth", 1);
  const int max_relations = std::min(args.value("limit", ctx.settings.graph.max_relations),
                                     ctx.settings.graph.max_relations);
  const std::string type = args.value("type", "");

  std::vector<Entity> roots;
  if (has_entity) {
    roots.push_back(RequireEntity(env.db, args.at("entity").get<std::string>(), "entity"));
  } else {
    const std::string query = args.at("query").get<std::string>();
    if (Trim(query).empty()) throw sdk::ToolError("query is empty; send part of an entity name");
    if (const auto unsearchable = sdk::UnsearchableQuery(query)) throw sdk::ToolError(*unsearchable);
    ctx.index_lag.QueueIfStale(env);  // a lag its dead writer left is scanned by the search
    roots = SearchEntities(env.db, query, type, 20);
  }

  EntityNames names(env.db);
  std::vector<Relation> relations;
  std::set<std::int64_t> seen_rel;
  std::set<std::int64_t> seen_entity;
  std::vector<std::int64_t> frontier;
  std::vector<std::int64_t> entity_order;
  for (const Entity& e : roots) {
    if (seen_entity.insert(e.seq).second) {
      frontier.push_back(e.seq);
      entity_order.push_back(e.seq);
    }
  }
  bool truncated = false;
  const int levels = has_entity ? depth : 1;
  for (int level = 0; level < levels && !frontier.empty() && !truncated; ++level) {
    std::vector<std::int64_t> next;
    for (std::int64_t e : frontier) {
      const int room = max_relations - static_cast<int>(relations.size());
      if (room <= 0) {
        truncated = true;
        break;
      }
      for (const Relation& r : RelationsOf(env.db, e, axis, t, history, room + 1)) {
        if (!seen_rel.insert(r.seq).second) continue;
        if (static_cast<int>(relations.size()) >= max_relations) {
          truncated = true;
          break;
        }
        relations.push_back(r);
        for (std::int64_t other : {r.from_seq, r.to_seq}) {
          if (seen_entity.insert(other).second) {
            next.push_back(other);
            entity_order.push_back(other);
          }
        }
      }
    }
    frontier = std::move(next);
  }

  // Fit under the host's byte cap (text and structuredContent together): relations are
  // kept in traversal order until the next one would not fit; `omitted` counts the rest, and
  // only entities that a kept relation (or the search) names are listed.
  const std::size_t room = call.result_budget_bytes == 0 ? SIZE_MAX : call.result_budget_bytes * 7 / 8;
  std::size_t used = 512;
  std::set<std::int64_t> roots_seq;
  for (const Entity& e : roots) roots_seq.insert(e.seq);
  for (std::int64_t seq : roots_seq) {
    const Entity& e = names.Get(seq);
    used += 2 * (e.name.size() + e.id.size() + e.type.size()) + 5 * 40 + 64;
  }
  std::size_t kept = 0;
  for (const Relation& r : relations) {
    const std::size_t cost = sdk::DumpJson(RelationJson(r, names)).size() + RelationLine(r, names).size() + 300;
    if (kept > 0 && used + cost > room) break;
    used += cost;
    ++kept;
  }
  const std::size_t omitted = relations.size() - kept;
  if (omitted > 0) {
    relations.resize(kept);
    truncated = true;
    std::set<std::int64_t> named = roots_seq;
    for (const Relation& r : relations) {
      named.insert(r.from_seq);
      named.insert(r.to_seq);
    }
    std::erase_if(entity_order, [&](std::int64_t seq) { return named.count(seq) == 0; });
  }

  Json entities = Json::array();
  std::string text;
  for (std::int64_t seq : entity_order) {
    const Entity& e = names.Get(seq);
    const std::vector<std::string> mems = LinkedMemories(env.db, seq, caller);
    entities.push_back({{"id", e.id}, {"name", e.name}, {"type", e.type}, {"memories", mems}});
  }
  Json rels = Json::array();
  for (const Relation& r : relations) rels.push_back(RelationJson(r, names));

  if (roots.empty()) {
    const std::string query = args.at("query").get<std::string>();
    text = "no entity matches \"" + Preview(query, 60) + "\"";
    // SearchEntities: below 3 characters only name prefixes are searched.
    if (sdk::Utf8Length(Trim(query)) < 3) text += " (names starting with it; 3 or more characters search inside names)";
  } else {
    text = Plural(entity_order.size(), "entity", "entities") + ", " +
           Plural(relations.size(), "relation", "relations");
    if (history) {
      text += " (full history, every row)";
    } else if (as_of) {
      text += axis == GraphAxis::kValid ? " valid at " : " as kioku believed at ";
      text += sdk::FormatRfc3339(t);
    } else {
      text += " (current)";
    }
    text += ":";
    for (std::int64_t seq : entity_order) {
      const Entity& e = names.Get(seq);
      text += "\n• " + e.name + " (" + e.type + ", " + e.id + ")";
    }
    for (const Relation& r : relations) text += "\n  " + RelationLine(r, names);
    if (omitted > 0) {
      text += "\n— " + std::to_string(omitted) +
              " more relations left out to fit the result size cap (ask with depth 1, a smaller limit or as_of)";
    } else if (truncated) {
      text += "\n— more relations left out (cap " + std::to_string(max_relations) + ")";
    }
  }
  Json out{{"entities", entities}, {"relations", rels}, {"truncated", truncated}};
  if (omitted > 0) out["omitted"] = omitted;
  return sdk::ToolResult::Ok(text, out);
}

}  // namespace

void RegisterGraphTools(sdk::Registrar& registrar, ToolContext& ctx) {
  const Json entity_schema = sdk::schema::Output({{"id", kStr}, {"name", kStr}, {"type", kStr},
                                           {"memories", {{"type", "array"}, {"items", kStr}}}},
                                          {"id", "name", "type"});
  {
    sdk::ToolSpec spec;
    spec.name = "entity_graph";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Explore the entity graph";
    spec.description =
        "Find entities (files, identifiers, packages, flags, URLs, concepts) by name with "
        "query, or walk the relations around one entity with entity (depth 1–5). Entities "
        "come from memory text and from entity_relate. as_of answers for a past time: "
        "as_of_axis \"valid\" (default) = what we now know was true then, \"transaction\" = "
        "what kioku believed then. history: true lists every row, closed ones included.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object({
          {"query", sdk::schema::String(200, "Part of an entity name.")},
          {"entity", sdk::schema::String(500, "Entity name or id to traverse from.")},
          {"type", sdk::schema::String(32, "Only entities of this type (query search).")},
          {"depth",
           {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}, {"description", "Hops from entity (default 1)."}}},
          {"as_of", sdk::schema::String(64, "RFC 3339 time to look at.")},
          {"as_of_axis", sdk::schema::Enum({"valid", "transaction"}, "Time axis of as_of.")},
          {"history", {{"type", "boolean"}, {"description", "Every row, ignoring time."}}},
          {"limit",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", 5000},
            {"description", "Most relations to return (capped by settings)."}}},
      });
      t.output_schema = sdk::schema::Output({{"entities", {{"type", "array"}, {"items", entity_schema}}},
                                             {"relations", {{"type", "array"}, {"items", RelationSchema()}}},
                                             {"truncated", {{"type", "boolean"}}},
                                             {"omitted", {{"type", "integer"}}}},
                                            {"entities", "relations"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      return Graph(ctx, args, call);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "entity_relate";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Record a relation between entities";
    spec.description =
        "Assert that from -type-> to holds, e.g. (\"api-service\", \"uses\", \"postgres\") or "
        "(\"src/auth/session.ts\", \"depends_on\", \"jsonwebtoken\"). Entities are created by "
        "name if new. valid_from/valid_to say when it held in the world (default: from now, "
        "open). For single-valued types (uses, owned_by, default_branch, …) a new target "
        "closes the previous one; others accumulate. Nothing is ever deleted.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object(
          {
              {"from", sdk::schema::String(500, "Source entity name or id.", 1)},
              {"type", sdk::schema::String(64, "Relation type, snake_case (uses, depends_on).", 1)},
              {"to", sdk::schema::String(500, "Target entity name or id.", 1)},
              {"valid_from", sdk::schema::String(64, "RFC 3339: true since (default now).")},
              {"valid_to", sdk::schema::String(64, "RFC 3339: true until (default open).")},
              {"from_type", sdk::schema::String(32, "Type for a new from entity (default guessed).")},
              {"to_type", sdk::schema::String(32, "Type for a new to entity (default guessed).")},
          },
          {"from", "type", "to"});
      t.output_schema = sdk::schema::Output({{"relation", RelationSchema()},
                                             {"action", sdk::schema::Enum({"related", "already_known"}, "")},
                                             {"closed", {{"type", "array"}, {"items", RelationSchema()}}}},
                                            {"relation", "action", "closed"});
    };
    spec.annotations.idempotent = true;
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      Env env = ctx.MakeEnv();
      const std::string type = NormalizeRelationType(args.at("type").get<std::string>());
      const std::int64_t now = env.clock.NowMs();
      const std::int64_t valid_from = sdk::TimeArg(args, "valid_from").value_or(now);
      const std::optional<std::int64_t> valid_to_arg = sdk::TimeArg(args, "valid_to");
      // Checked here, not only in Relate: a given valid_to of 1970-01-01 must not read as
      // the store's "open" (0).
      if (valid_from < 0) throw sdk::ToolError("valid_from is before 1970-01-01; send a later time");
      if (valid_to_arg && *valid_to_arg <= valid_from) {
        throw sdk::ToolError("valid_to (" + sdk::FormatRfc3339(*valid_to_arg) +
                             ") must be later than valid_from (" + sdk::FormatRfc3339(valid_from) +
                             "); omit valid_to for a relation that still holds");
      }
      const std::int64_t valid_to = valid_to_arg.value_or(0);
      const std::string from_type = AsciiLower(Trim(args.value("from_type", "")));
      const std::string to_type = AsciiLower(Trim(args.value("to_type", "")));
      sdk::ScreenSecrets(args);
      for (const char* f : {"from", "to"}) {
        const std::string v = args.at(f).get<std::string>();
        if (Trim(v).empty()) throw sdk::ToolError(std::string(f) + " is empty; send an entity name");
      }
      RelateOutcome outcome;
      sdk::WithWriteTransaction(env.db, [&] {
        const Entity from = EnsureNamedEntity(env, args.at("from").get<std::string>(), from_type, now);
        const Entity to = EnsureNamedEntity(env, args.at("to").get<std::string>(), to_type, now);
        outcome = Relate(env, from, type, to, valid_from, valid_to, call.caller.agent_id);
        SettleLaggingIndexes(env);  // the entity-name index (index_lag.hpp)
      });
      EntityNames names(env.db);
      Json closed = Json::array();
      std::string text = (outcome.already_known ? "already known: " : "related: ") +
                         RelationLine(outcome.relation, names);
      for (const Relation& r : outcome.closed) {
        closed.push_back(RelationJson(r, names));
        text += "\nclosed (single-valued " + type + "): " + RelationLine(r, names);
      }
      return sdk::ToolResult::Ok(
          text, Json{{"relation", RelationJson(outcome.relation, names)},
                     {"action", outcome.already_known ? "already_known" : "related"},
                     {"closed", closed}});
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "entity_unrelate";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "End a relation";
    spec.description =
        "Say that from -type-> to stopped holding (at `at`, default now). The relation is not "
        "deleted: its validity ends, and as_of queries before that time still see it.";
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = sdk::schema::Object(
          {
              {"from", sdk::schema::String(500, "Source entity name or id.", 1)},
              {"type", sdk::schema::String(64, "Relation type.", 1)},
              {"to", sdk::schema::String(500, "Target entity name or id.", 1)},
              {"at", sdk::schema::String(64, "RFC 3339: when it stopped holding (default now).")},
          },
          {"from", "type", "to"});
      t.output_schema = sdk::schema::Output({{"ended", {{"type", "array"}, {"items", RelationSchema()}}}}, {"ended"});
    };
    registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
      Env env = ctx.MakeEnv();
      const std::string type = NormalizeRelationType(args.at("type").get<std::string>());
      const std::int64_t at = sdk::TimeArg(args, "at").value_or(env.clock.NowMs());
      std::vector<Relation> ended;
      sdk::WithWriteTransaction(env.db, [&] {
        const Entity from = RequireEntity(env.db, args.at("from").get<std::string>(), "from");
        const Entity to = RequireEntity(env.db, args.at("to").get<std::string>(), "to");
        ended = Unrelate(env, from, type, to, at, call.caller.agent_id);
      });
      EntityNames names(env.db);
      Json out = Json::array();
      std::string text = "ended (kept for as_of queries):";
      for (const Relation& r : ended) {
        out.push_back(RelationJson(r, names));
        text += "\n  " + RelationLine(r, names);
      }
      return sdk::ToolResult::Ok(text, Json{{"ended", out}});
    });
  }
}

}  // namespace kioku::semantic
