#pragma once
/// @file graph_store.hpp
/// The bi-temporal entity graph (dokoro seed "Bi-temporal facts"; Zep/Graphiti style, with
/// proper transaction time). Each relation row has
///   valid time        valid_from / valid_to   when it was true in the world
///   transaction time  recorded_at / expired_at when kioku believed that row
/// Rows are immutable except for setting expired_at once. Changing what we believe about
/// a relation's validity (closing it) expires the row and records a corrected copy with
/// valid_to set, so "what did kioku believe at T" stays answerable. Nothing is deleted.
///
/// Assertion rule (valid time is what the assertion says about the world; transaction time
/// is when kioku learned it, so the order in which assertions arrive never matters for
/// what is valid when, and a later assertion corrects an earlier one where they disagree):
///  1. Single-valued types (settings graph.single_valued, e.g. uses, owned_by,
///     default_branch): an open-ended assertion holds "until the next known change" — its
///     valid_to becomes the earliest valid_from of a believed row of another target that
///     starts after it. So asserting B from March and then A from January gives
///     A [Jan, Mar) and B [Mar, open), the same as asserting them in time order.
///  2. Same target, any type: one believed row per continuous interval. An assertion that a
///     believed row already covers is `already_known` (nothing written); believed rows
///     that overlap or touch it are expired and one row over their union is recorded
///     (`replaces` names the first of them). entity_graph never lists a fact twice.
///  3. Single-valued, other targets: within the (merged) interval the new assertion wins;
///     each overlapping row of another target is expired and its parts before and after
///     the interval are recorded again as corrected copies. Rows wholly inside it are
///     reported as closed and not re-recorded. Other types (depends_on, implements, …)
///     accumulate targets.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "entity_store.hpp"
#include "memory.hpp"

namespace kioku::semantic {

struct Relation {
  std::int64_t seq = 0;
  std::string id;
  std::int64_t from_seq = 0;
  std::string type;
  std::int64_t to_seq = 0;
  std::int64_t valid_from = 0;
  std::int64_t valid_to = 0;  ///< 0 = open
  std::int64_t recorded_at = 0;
  std::int64_t expired_at = 0;  ///< 0 = still believed
  std::string replaces;         ///< Id of the row this one corrected, "" = original.
};

/// Time predicate for graph reads.
enum class GraphAxis {
  kValid,        ///< Believed now, valid at T.
  kTransaction,  ///< Believed at T, valid at T (kioku's view as it stood at T).
};

struct RelateOutcome {
  Relation relation;
  bool already_known = false;
  std::vector<Relation> closed;  ///< Corrected copies of the relations this one closed.
};

/// Normalizes a relation type: trimmed, lower-case, spaces/dashes → '_'. ToolError when it
/// is not `^[a-z][a-z0-9_]*$` afterwards or longer than 64.
std::string NormalizeRelationType(const std::string& type);

/// Finds an entity by name (normalized; any type unless `type` is given), else by id or
/// unique id prefix. nullopt when nothing matches by name and the text is not an id.
std::optional<Entity> FindEntity(SQLite::Database& db, const std::string& name_or_id,
                                 const std::string& type = "");

/// FindEntity or create it (type = `type`, else ClassifyEntityName). In a write transaction.
Entity EnsureNamedEntity(const Env& env, const std::string& name, const std::string& type,
                         std::int64_t now_ms);

/// Asserts from -type-> to valid over [valid_from, valid_to). In a write transaction.
/// ToolError when valid_to <= valid_from or from == to.
RelateOutcome Relate(const Env& env, const Entity& from, const std::string& type,
                     const Entity& to, std::int64_t valid_from, std::int64_t valid_to,
                     const std::string& agent_id);

/// Ends the validity of the current from -type-> to relation(s) at `at`. Returns the
/// corrected rows. ToolError when there is none open at `at`.
std::vector<Relation> Unrelate(const Env& env, const Entity& from, const std::string& type,
                               const Entity& to, std::int64_t at, const std::string& agent_id);

/// Relations touching `entity_seq` (either direction) that satisfy the time predicate at
/// `t` on `axis`; `all_history` returns every row instead. At most `limit`.
std::vector<Relation> RelationsOf(SQLite::Database& db, std::int64_t entity_seq, GraphAxis axis,
                                  std::int64_t t, bool all_history, int limit);

}  // namespace kioku::semantic
