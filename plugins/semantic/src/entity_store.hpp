#pragma once
/// @file entity_store.hpp
/// Get-or-create of entities by (normalized name, type).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

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

/// Over the alias `e`: the id an entity was given while ids were stored (migration 12 kept
/// them in semantic_entity_ids), '' for entities made since.
inline constexpr const char* kLegacyEntityIdSql =
    "coalesce((SELECT i.id FROM semantic_entity_ids i WHERE i.entity_seq = e.seq), '')";

/// An entity's id: `legacy` (kLegacyEntityIdSql) when it has one, else
/// sdk::DerivedId(created_at, seq), a ULID-shaped id computed, not stored.
std::string EntityId(const std::string& legacy, std::int64_t created_at, std::int64_t seq);

/// The seq of the entity whose id is, or starts with, `typed` (>= 4 characters, either
/// case): a legacy id by its index, a derived one decoded to a range of seqs and creation
/// times (a prefix that fixes only part of the time scans the table). nullopt when none is;
/// sdk::ToolError "id prefix 'x' matches several entity ids: a, b; send more characters"
/// when several are.
std::optional<std::int64_t> ResolveEntityId(SQLite::Database& db, std::string_view typed);

/// Returns the seq of (norm, type), creating the entity (display `name`) when missing.
/// Must run inside a write transaction.
std::int64_t EnsureEntity(const Env& env, const std::string& type, const std::string& name,
                          const std::string& norm, std::int64_t now_ms);

/// Highest entity seq (0 when none); rows above it are new in this transaction.
std::int64_t MaxEntitySeq(const Env& env);

/// Adds entities with seq > `floor` to the entity name index (semantic_entities_fts, which
/// holds their normalized names).
/// Call before the transaction that created them commits.
void IndexNewEntities(const Env& env, std::int64_t floor);

/// Loads an entity by seq; nullopt when absent.
std::optional<Entity> LoadEntity(SQLite::Database& db, std::int64_t seq);

}  // namespace kioku::semantic
