#pragma once
/// @file schema.hpp
/// The working plugin's tables (all prefixed `working_`) as ordered migrations.
///
/// Tables, all scoped by `project_id` (caller.project_id; "" when the transport names none):
///   working_presence     one row per (project, agent): last heartbeat, status, focus.
///   working_file_claims  one row per (project, path) currently or formerly leased; the row
///                        is the lease (holder, intent, expires_at, heartbeat_seq).
///   working_workspace    at most one row per project: the workspace claim.
///   working_focus        one row per (project, section) with its own version.
///   working_blocks       one row per (project, key): content and version.
///   working_block_history every version ever written (nothing is overwritten silently).
///   working_handoffs     handoffs; claimed_by NULL while open.
///   working_questions    questions; answered_at NULL while open.
///   working_events       append-only log/audit (claims, takeovers, releases, writes).
///   working_dumps        every workspace_dump summary, whether or not episodic took it.
/// Times are INTEGER Unix ms from HostServices::GetClock().

#include <vector>

#include "kioku/sdk/column_renames.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/project_identity.hpp"

namespace kioku::working {

/// v2 rewrites old project-key spellings with `projects` (HostServices::Projects()).
std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects = {});

/// Migration 3: time columns named `<event>_at` like every layer's (they were `*_ms`);
/// the same list lets an older export import (ExporterSpec::renamed_columns).
const sdk::ColumnRenames& TimeColumnRenames();

}  // namespace kioku::working
