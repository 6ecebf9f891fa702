#include "schema.hpp"

namespace kioku::procedural {

const sdk::ColumnRenames& TimeColumnRenames() {
  static const sdk::ColumnRenames renames{2, {
      {"procedural_plans", "created_at_ms", "created_at"},
      {"procedural_plans", "updated_at_ms", "updated_at"},
      {"procedural_tasks", "updated_at_ms", "updated_at"},
      {"procedural_criteria", "met_at_ms", "met_at"},
      {"procedural_blockers", "reported_at_ms", "reported_at"},
      {"procedural_blockers", "cleared_at_ms", "cleared_at"},
      {"procedural_audit", "at_ms", "at"},
      {"procedural_procedures", "created_at_ms", "created_at"},
      {"procedural_runs", "at_ms", "at"},
      {"procedural_run_stats", "last_at_ms", "last_at"},
  }};
  return renames;
}

// Current versions are embedded: name, when and the steps' text (an old version keeps the
// vector it had; procedure_find reads current versions only).
const sdk::VectorTables& ProcedureVectorTables() {
  static const sdk::VectorTables tables{
      .prefix = "procedural",
      .key = "procedure_seq",
      .source = "procedural_procedures",
      .source_key = "seq",
      .time_column = "created_at",
      .text_sql = "{row}.name || char(10) || {row}.when_text || char(10) || coalesce((SELECT "
                  "group_concat(json_extract(value, '$.text'), char(10)) FROM json_each({row}.steps)), '')",
      .text_columns = {},  // versions are immutable: a change is a new row
      .filter = "{row}.current = 1",
      .item = "procedure",
      .items = "procedures",
  };
  return tables;
}

std::vector<sdk::Migration> Migrations() {
  std::vector<sdk::Migration> out;
  sdk::Migration m;
  m.version = 1;
  m.description = "plans, tasks, dependencies, criteria, blockers, audit; procedures, runs";
  m.sql = R"SQL(
CREATE TABLE procedural_plans (
  id            TEXT    PRIMARY KEY,
  project_id    TEXT    NOT NULL,
  title         TEXT    NOT NULL,
  goal          TEXT    NOT NULL DEFAULT '',
  tags          TEXT    NOT NULL DEFAULT '[]',
  archived      INTEGER NOT NULL DEFAULT 0,
  archive_note  TEXT    NOT NULL DEFAULT '',
  created_by    TEXT    NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX procedural_plans_project ON procedural_plans(project_id, id);
CREATE INDEX procedural_plans_updated ON procedural_plans(project_id, archived, updated_at_ms);

CREATE TABLE procedural_tasks (
  plan_id       TEXT    NOT NULL REFERENCES procedural_plans(id) ON DELETE CASCADE,
  number        INTEGER NOT NULL,
  parent        INTEGER,
  title         TEXT    NOT NULL,
  description   TEXT    NOT NULL DEFAULT '',
  state         TEXT    NOT NULL CHECK (state IN ('todo','doing','done','skipped')),
  note          TEXT    NOT NULL DEFAULT '',
  version       INTEGER NOT NULL DEFAULT 1,
  updated_by    TEXT    NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (plan_id, number)
) WITHOUT ROWID;

CREATE TABLE procedural_deps (
  plan_id    TEXT    NOT NULL REFERENCES procedural_plans(id) ON DELETE CASCADE,
  task       INTEGER NOT NULL,
  depends_on INTEGER NOT NULL,
  PRIMARY KEY (plan_id, task, depends_on)
) WITHOUT ROWID;

CREATE TABLE procedural_criteria (
  plan_id   TEXT    NOT NULL REFERENCES procedural_plans(id) ON DELETE CASCADE,
  task      INTEGER NOT NULL,
  number    INTEGER NOT NULL,
  text      TEXT    NOT NULL,
  met       INTEGER NOT NULL DEFAULT 0,
  met_by    TEXT,
  met_at_ms INTEGER,
  PRIMARY KEY (plan_id, task, number)
) WITHOUT ROWID;

CREATE TABLE procedural_blockers (
  id             TEXT    PRIMARY KEY,
  plan_id        TEXT    NOT NULL REFERENCES procedural_plans(id) ON DELETE CASCADE,
  task           INTEGER NOT NULL,
  reason         TEXT    NOT NULL,
  reported_by    TEXT    NOT NULL,
  reported_at_ms INTEGER NOT NULL,
  cleared_by     TEXT,
  cleared_at_ms  INTEGER,
  clear_note     TEXT
);
CREATE INDEX procedural_blockers_open ON procedural_blockers(plan_id, task)
  WHERE cleared_at_ms IS NULL;

CREATE TABLE procedural_audit (
  seq        INTEGER PRIMARY KEY,
  plan_id    TEXT    NOT NULL REFERENCES procedural_plans(id) ON DELETE CASCADE,
  task       INTEGER NOT NULL DEFAULT 0,
  agent_id   TEXT    NOT NULL,
  at_ms      INTEGER NOT NULL,
  action     TEXT    NOT NULL,
  from_value TEXT    NOT NULL DEFAULT '',
  to_value   TEXT    NOT NULL DEFAULT '',
  note       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX procedural_audit_plan ON procedural_audit(plan_id, seq);

CREATE TABLE procedural_procedures (
  seq           INTEGER PRIMARY KEY,
  id            TEXT    NOT NULL UNIQUE,
  project_id    TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  version       INTEGER NOT NULL,
  when_text     TEXT    NOT NULL,
  steps         TEXT    NOT NULL,
  tags          TEXT    NOT NULL DEFAULT '[]',
  created_by    TEXT    NOT NULL,
  created_at_ms INTEGER NOT NULL,
  current       INTEGER NOT NULL,
  UNIQUE (project_id, name, version)
);
CREATE INDEX procedural_procedures_current ON procedural_procedures(project_id, name)
  WHERE current = 1;
CREATE VIRTUAL TABLE procedural_procedures_fts USING fts5(
  name, when_text, steps, tags, tokenize = 'porter unicode61');

CREATE TABLE procedural_runs (
  id             INTEGER PRIMARY KEY,
  procedure_id   TEXT    NOT NULL REFERENCES procedural_procedures(id),
  project_id     TEXT    NOT NULL,
  name           TEXT    NOT NULL,
  version        INTEGER NOT NULL,
  success        INTEGER NOT NULL,
  note           TEXT    NOT NULL DEFAULT '',
  agent_id       TEXT    NOT NULL,
  run_project_id TEXT    NOT NULL,
  at_ms          INTEGER NOT NULL
);
CREATE INDEX procedural_runs_name ON procedural_runs(project_id, name, id);

CREATE TABLE procedural_run_stats (
  project_id TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  runs       INTEGER NOT NULL,
  successes  INTEGER NOT NULL,
  last_at_ms INTEGER NOT NULL,
  PRIMARY KEY (project_id, name)
) WITHOUT ROWID;
)SQL";
  out.push_back(std::move(m));
  out.push_back(sdk::RenameColumnsMigration(TimeColumnRenames(), "time columns named <event>_at (were *_ms)"));
  out.push_back(sdk::VectorTablesMigration(3, ProcedureVectorTables()));
  out.push_back(sdk::QueueWhileEmbeddingMigration(4, ProcedureVectorTables()));
  return out;
}

}  // namespace kioku::procedural
