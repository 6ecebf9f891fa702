#pragma once
/// @file schema.hpp
/// Tables of the episodic layer (all prefixed `episodic_`) and their migrations.
///
///   episodic_sessions      one row per session (live or imported from a transcript), with
///                          trigger-kept counts of its active summaries and log entries
///   episodic_log           append-only session log (progress/note/issue/decision/request)
///   episodic_summaries     summaries; `status` = active | folded (compaction keeps originals);
///                          `highlights_model` (v7): the chat model that wrote a consolidated
///                          summary's highlights, '' = extractive
///   episodic_files         files touched per session (read / modified)
///   episodic_tool_stats    tool calls and failures per session (from transcripts)
///   episodic_ingest_files  per transcript file: byte offset, line number, parser state
///   episodic_ingest_seen   transcript line ids already recorded (Claude Code `uuid`)
///   episodic_outbox        cross-layer calls (feedback_record, memory_suggest) written in
///                          the ingest transaction and delivered after commit
/// FTS5 indexes (external content): episodic_summaries_fts (unicode61 + Porter),
/// episodic_summaries_tri (trigram, substrings), episodic_log_fts (unicode61 + Porter).
/// episodic_vectors, episodic_vector_store, episodic_embed_queue (v6): embeddings of the
/// active summaries, keyed by the summary's rowid like the FTS indexes (sdk/vector_tables.hpp).

#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/vector_tables.hpp"

namespace kioku::episodic {

/// v2 rewrites old project-key spellings with `projects` (HostServices::Projects()); v4
/// does the same inside queued outbox rows (outbox_keys.hpp).
std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects = {});

/// Recomputes every session's `active_summaries` and `log_entries` (v5's trigger-kept
/// counts) from the summaries and log; run after rows arrive without the triggers' help
/// (an import copies the counts of another database, then its summaries fire the triggers).
void RecountSessions(SQLite::Database& db);

/// What summaries embed: the text of active summaries (a summary folded later keeps its
/// vector; session_recall reads active ones only).
const sdk::VectorTables& SummaryVectorTables();

}  // namespace kioku::episodic
