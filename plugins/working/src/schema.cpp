#include "schema.hpp"

#include "kioku/sdk/project_keys.hpp"

namespace kioku::working {

const sdk::ColumnRenames& TimeColumnRenames() {
  static const sdk::ColumnRenames renames{3, {
      {"working_presence", "first_seen_ms", "first_seen_at"},
      {"working_presence", "last_seen_ms", "last_seen_at"},
      {"working_file_claims", "claimed_at_ms", "claimed_at"},
      {"working_file_claims", "renewed_at_ms", "renewed_at"},
      {"working_file_claims", "expires_at_ms", "expires_at"},
      {"working_workspace", "claimed_at_ms", "claimed_at"},
      {"working_workspace", "renewed_at_ms", "renewed_at"},
      {"working_workspace", "expires_at_ms", "expires_at"},
      {"working_focus", "updated_at_ms", "updated_at"},
      {"working_blocks", "created_at_ms", "created_at"},
      {"working_blocks", "updated_at_ms", "updated_at"},
      {"working_block_history", "written_at_ms", "written_at"},
      {"working_handoffs", "created_at_ms", "created_at"},
      {"working_handoffs", "claimed_at_ms", "claimed_at"},
      {"working_questions", "created_at_ms", "created_at"},
      {"working_questions", "answered_at_ms", "answered_at"},
      {"working_events", "at_ms", "at"},
      {"working_dumps", "created_at_ms", "created_at"},
  }};
  return renames;
}

std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects) {
  sdk::Migration v1;
  v1.version = 1;
  v1.description = "working layer: presence, file claims, workspace, focus, blocks, "
                   "handoffs, questions, events, dumps";
  v1.sql = R"sql(
CREATE TABLE working_presence (
  project_id    TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  status        TEXT NOT NULL DEFAULT '',
  focus         TEXT NOT NULL DEFAULT '',
  session_id    TEXT NOT NULL DEFAULT '',
  first_seen_ms INTEGER NOT NULL,
  last_seen_ms  INTEGER NOT NULL,
  PRIMARY KEY (project_id, agent_id)
) WITHOUT ROWID;

CREATE TABLE working_file_claims (
  project_id    TEXT NOT NULL,
  path          TEXT NOT NULL,
  holder        TEXT NOT NULL,
  intent        TEXT NOT NULL DEFAULT '',
  session_id    TEXT NOT NULL DEFAULT '',
  claimed_at_ms INTEGER NOT NULL,
  renewed_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  heartbeat_seq INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, path)
) WITHOUT ROWID;
CREATE INDEX working_file_claims_holder ON working_file_claims (project_id, holder);

CREATE TABLE working_workspace (
  project_id    TEXT PRIMARY KEY,
  holder        TEXT NOT NULL,
  task          TEXT NOT NULL,
  session_id    TEXT NOT NULL DEFAULT '',
  claimed_at_ms INTEGER NOT NULL,
  renewed_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE working_focus (
  project_id    TEXT NOT NULL,
  section       TEXT NOT NULL,
  content       TEXT NOT NULL,
  version       INTEGER NOT NULL,
  updated_by    TEXT NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, section)
) WITHOUT ROWID;

CREATE TABLE working_blocks (
  project_id    TEXT NOT NULL,
  key           TEXT NOT NULL,
  content       TEXT NOT NULL,
  version       INTEGER NOT NULL,
  created_by    TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_by    TEXT NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
) WITHOUT ROWID;

CREATE TABLE working_block_history (
  project_id    TEXT NOT NULL,
  key           TEXT NOT NULL,
  version       INTEGER NOT NULL,
  content       TEXT NOT NULL,
  written_by    TEXT NOT NULL,
  written_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, key, version)
) WITHOUT ROWID;

CREATE TABLE working_handoffs (
  id            TEXT PRIMARY KEY,
  project_id    TEXT NOT NULL,
  from_agent    TEXT NOT NULL,
  to_agent      TEXT,
  summary       TEXT NOT NULL,
  open_items    TEXT NOT NULL DEFAULT '[]',
  session_id    TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL,
  claimed_by    TEXT,
  claimed_at_ms INTEGER
);
CREATE INDEX working_handoffs_open ON working_handoffs (project_id, claimed_by, created_at_ms);

CREATE TABLE working_questions (
  id             TEXT PRIMARY KEY,
  project_id     TEXT NOT NULL,
  asked_by       TEXT NOT NULL,
  question       TEXT NOT NULL,
  context        TEXT NOT NULL DEFAULT '',
  session_id     TEXT NOT NULL DEFAULT '',
  created_at_ms  INTEGER NOT NULL,
  answer         TEXT,
  answered_by    TEXT,
  answered_at_ms INTEGER
);
CREATE INDEX working_questions_project ON working_questions (project_id, answered_at_ms, created_at_ms);

CREATE TABLE working_events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL,
  at_ms      INTEGER NOT NULL,
  agent_id   TEXT NOT NULL,
  kind       TEXT NOT NULL,
  subject    TEXT NOT NULL DEFAULT '',
  detail     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX working_events_project ON working_events (project_id, seq);
CREATE INDEX working_events_agent ON working_events (project_id, agent_id, seq);

CREATE TABLE working_dumps (
  id            TEXT PRIMARY KEY,
  project_id    TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  session_id    TEXT NOT NULL,
  reason        TEXT NOT NULL DEFAULT '',
  summary       TEXT NOT NULL,
  episodic      TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX working_dumps_project ON working_dumps (project_id, agent_id, created_at_ms);
)sql";
  std::vector<sdk::ProjectColumn> keys;
  for (const char* table : {"working_presence", "working_workspace", "working_focus", "working_blocks",
                            "working_block_history", "working_handoffs", "working_questions", "working_events",
                            "working_dumps"}) {
    keys.push_back({table, "project_id", ""});
  }
  keys.push_back({"working_file_claims", "project_id", "path"});
  return {v1, sdk::ProjectKeysMigration(2, std::move(keys), projects),
          sdk::RenameColumnsMigration(TimeColumnRenames(), "time columns named <event>_at (were *_ms)")};
}

}  // namespace kioku::working
