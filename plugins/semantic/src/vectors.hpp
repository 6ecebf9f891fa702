#pragma once
/// @file vectors.hpp
/// Memory embeddings in the SDK's vector tables (kioku/sdk/vector_tables.hpp), whose names
/// this layer had before the SDK grew them:
///   semantic_vectors      one unit float32 vector per memory (key memory_seq)
///   semantic_vector_store the store's model and dimension (one row)
///   semantic_embed_queue  memories waiting to be embedded, filled by triggers on insert and
///                         on a change of text; rows of purged memories go by foreign key.
/// Search, the worker and `kioku embed`: sdk/layer_vectors.hpp, sdk/embed_worker.hpp;
/// the semantic-only part, folding near-duplicates on write: dedup.hpp.

#include "kioku/sdk/layer_vectors.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/vector_tables.hpp"
#include "settings.hpp"

namespace kioku::semantic {

/// The migration creating the tables and triggers above and queueing every existing memory.
sdk::Migration VectorsMigration(int version);

/// The memories' vector tables: the text of every memory, keyed by its seq.
const sdk::VectorTables& MemoryVectorTables();

/// The SDK's view of `semantic.vectors` (dedup_threshold stays with dedup.hpp).
sdk::VectorSettings ToSdkVectorSettings(const VectorSettings& s);

}  // namespace kioku::semantic
