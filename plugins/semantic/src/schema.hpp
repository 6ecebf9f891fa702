#pragma once
/// @file schema.hpp
/// The semantic layer's tables and their migrations.
///
/// semantic_memories          one row per memory (seq = FTS rowid; id computed, memory.hpp MemoryIdSql;
///                            the view semantic_memory_ids shows it)
/// semantic_keys              interned texts (keys.hpp): memories' projects, agents and sessions,
///                            entities' types
/// semantic_memory_history    audit trail: reaffirm, edit (with the previous version),
///                            supersede, forget, pin, unpin, confirm, purge
/// semantic_memory_tags       (tag, memory) index for tag filters
/// semantic_fts               FTS5 unicode61+porter over text/subject/value/tags (BM25)
/// semantic_fts_trigram       FTS5 trigram over text, detail=none (substrings, CJK >= 3 chars)
/// semantic_fts_cjk           FTS5 unicode61 over CJK bigrams (CJK 1–2 chars)
/// semantic_entities          typed entities: normalized name (the key), display name (empty
///                            when the same), ULID id (+ trigram FTS on normalized names, detail=none)
/// semantic_memory_entities   memory ↔ entity links
/// semantic_relations         bi-temporal relations (valid_from/valid_to,
///                            recorded_at/expired_at); rows are never deleted, only expired
///
/// The FTS tables are external-content tables (https://sqlite.org/fts5.html §4.4.3): update
/// and delete by triggers; inserts explicitly, in one INSERT … SELECT per table (see
/// migration 2 for why): the word and CJK indexes by MemoryWriter::Finish before COMMIT, the
/// substring and entity-name indexes up to a mark, caught up later (index_lag.hpp,
/// migration 20). Code that inserts rows must go through MemoryWriter or
/// SettleLaggingIndexes.

#include <vector>

#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/project_identity.hpp"

namespace kioku::semantic {

/// The migration after which memory ids are computed (semantic_memories.own_id holds the
/// ids kept from before, the view semantic_memory_ids every memory's id): export files
/// written before it name the column `id` (ExporterSpec::renamed_columns).
inline constexpr int kDerivedMemoryIdsVersion = 15;

/// The migration after which a memory's project, agent and session are keys of
/// semantic_keys (keys.hpp): export files name them by their text either side of it.
inline constexpr int kInternedKeysVersion = 16;

/// Ordered migrations; version 1 creates everything above.
/// v3 rewrites old project-key spellings with `projects` (HostServices::Projects()).
std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects = {});

/// Applies every migration to `db` in order, each in its own transaction, without a host
/// (the golden-set harness and benchmarks use a private database).
void ApplyMigrations(SQLite::Database& db);

}  // namespace kioku::semantic
