#pragma once
/// @file entity_store.hpp
/// Get-or-create of entities by (normalized name, type).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "keys.hpp"
#include "memory.hpp"

namespace kioku::semantic {

struct Entity {
  std::int64_t seq = 0;
  std::string id;
  std::string type;
  std::string name;
  std::string norm_name;
  std::int64_t created_at = 0;
};

/// An entity's display name over the alias `e` in SQL: `name` is stored empty when it is
/// the same as `norm_name` (most paths and names are), so the row keeps one copy.
inline constexpr const char* kEntityNameSql = "coalesce(nullif(e.name, ''), e.norm_name)";

/// Over the alias `e`: the id an entity is shown with when it is not its derived one (one
/// given out before ids were computed, or the one an import's file showed it with; see
/// schema.cpp migration 12), '' for most entities.
inline constexpr const char* kShownEntityIdSql =
    "coalesce((SELECT i.id FROM semantic_entity_ids i WHERE i.entity_seq = e.seq AND i.shown = 1), '')";

/// An entity's id: `shown` (kShownEntityIdSql) when it has one, else
/// sdk::DerivedId(created_at, seq), a ULID-shaped id computed, not stored.
std::string EntityId(const std::string& shown, std::int64_t created_at, std::int64_t seq);

/// The seq of the entity whose id is, or starts with, `typed` (>= 4 characters, either
/// case). Every entity answers to its derived id (decoded to a range of seqs and creation
/// times; a prefix that fixes only part of the time scans the table) and to the ids in
/// semantic_entity_ids (by their index). nullopt when none does; sdk::ToolError "id prefix
/// 'x' matches several entity ids: a, b; send more characters" when several entities do.
std::optional<std::int64_t> ResolveEntityId(SQLite::Database& db, std::string_view typed);

/// An id a file being imported gave one of its entities, with the entity's natural key:
/// its derived id there, the stored id of a file written before ids were computed, or one
/// of its semantic_entity_ids rows. `shown`: the file showed the entity with it; `existed`:
/// the database held the entity before the import.
struct ImportedEntityId {
  std::string id;
  std::string norm_name;
  std::string type;
  bool shown = false;
  bool existed = false;
};

/// Keeps the ids of an import's entities working here, after the rows are in (same
/// transaction): an id that names no entity here yet (the entity was renumbered, merged into
/// one already here, or the file predates computed ids) is added to semantic_entity_ids for
/// the entity with its (norm_name, type), shown when the file showed it and the entity is new
/// here (not `existed`) and has no shown id yet. An id this database already used keeps its
/// entity: a kept id, or the derived id of a row in `seqs_before` (the entity seqs before the
/// import, ascending); the derived id of a row the import added gives way to the file's
/// entity. Returns the ids added.
std::int64_t KeepImportedEntityIds(SQLite::Database& db, const std::vector<ImportedEntityId>& ids,
                                   const std::vector<std::int64_t>& seqs_before);

/// Returns the seq of (norm, type), creating the entity (display `name`) when missing; the
/// type is interned by `keys` (keys.hpp), the write transaction's interner. Must run inside
/// that write transaction.
std::int64_t EnsureEntity(const Env& env, KeyInterner& keys, const std::string& type, const std::string& name,
                          const std::string& norm, std::int64_t now_ms);

/// Loads an entity by seq; nullopt when absent.
std::optional<Entity> LoadEntity(SQLite::Database& db, std::int64_t seq);

}  // namespace kioku::semantic
