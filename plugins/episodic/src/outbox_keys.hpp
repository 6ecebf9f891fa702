#pragma once
/// @file outbox_keys.hpp
/// Outbox rows (episodic_outbox, schema.hpp) queued by an earlier release name their project
/// the way that release spelled it: in the caller JSON (`project_id`), in each
/// feedback_record record (`records[].project_id`) and in a suggestion's dedupe key
/// ("suggest:<project>:<text>"). Delivered as they are, they would file memories and
/// outcomes under a key no live caller uses.

#include <string>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

#include "kioku/sdk/project_identity.hpp"

namespace kioku::episodic {

/// Rewrites every project spelling in `payload` (records[].project_id) and `caller`
/// (project_id) to sdk::CanonicalProjectKey. Returns true when something changed.
bool CanonicalizeOutboxProjects(nlohmann::json& payload, nlohmann::json& caller,
                                const sdk::ProjectOptions& options);

/// Applies CanonicalizeOutboxProjects to every stored outbox row and moves a suggestion's
/// dedupe key to the new project (UPDATE OR IGNORE: when the new key is already queued the
/// old key stays, so the row is never lost). Runs inside the caller's transaction; throws
/// SQLite::Exception on database errors. Returns the rows changed.
int MoveOutboxProjectKeys(SQLite::Database& db, const sdk::ProjectOptions& options);

}  // namespace kioku::episodic
