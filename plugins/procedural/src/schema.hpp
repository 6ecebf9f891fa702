#pragma once
/// @file schema.hpp
/// Tables of the procedural layer and their migrations.
///
/// procedural_plans       one row per plan (ULID id, project, title, goal, tags, archived)
/// procedural_tasks       tasks keyed (plan_id, number); `version` is the optimistic-
///                        concurrency token plan_check compares
/// procedural_deps        task → task it depends on (same plan)
/// procedural_criteria    acceptance criteria of a task, each marked met or not
/// procedural_blockers    reported blockers; open while cleared_at_ms IS NULL
/// procedural_audit       every change: who, when, action, from → to, note
/// procedural_procedures  every version of every procedure; `current` marks the newest
/// procedural_procedures_fts  FTS5 (porter unicode61) over the current versions
/// procedural_runs        each recorded run of a procedure (success or failure)
/// procedural_run_stats   per (scope, name) run and success counts, kept with each run
/// procedural_vectors, procedural_vector_store, procedural_embed_queue (v2)
///                        embeddings of the current procedures (sdk/vector_tables.hpp)

#include <vector>

#include "kioku/sdk/column_renames.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/vector_tables.hpp"

namespace kioku::procedural {

std::vector<sdk::Migration> Migrations();

/// Migration 2: time columns named `<event>_at` like every layer's (they were `*_ms`);
/// the same list lets an older export import (ExporterSpec::renamed_columns).
const sdk::ColumnRenames& TimeColumnRenames();
/// What procedures embed: name, when and the steps' text of current versions.
const sdk::VectorTables& ProcedureVectorTables();

}  // namespace kioku::procedural
