#pragma once
/// @file entity_store.hpp
/// Get-or-create of entities by (normalized name, type).

#include <cstdint>
#include <optional>
#include <string>

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

/// Returns the seq of (norm, type), creating the entity (ULID id, display `name`) when
/// missing. Must run inside a write transaction.
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
