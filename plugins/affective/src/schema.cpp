#include "schema.hpp"

#include "kioku/sdk/project_keys.hpp"
#include "project_merge.hpp"

namespace kioku::affective {

const sdk::ColumnRenames& TimeColumnRenames() {
  static const sdk::ColumnRenames renames{4, {
      {"affective_outcomes", "at_ms", "at"},
      {"affective_buckets", "last_at_ms", "last_at"},
      {"affective_totals", "last_at_ms", "last_at"},
      {"affective_totals", "landmark_ms", "landmark_at"},
  }};
  return renames;
}

std::vector<sdk::Migration> Migrations(const sdk::ProjectOptions& projects) {
  std::vector<sdk::Migration> out;
  sdk::Migration m;
  m.version = 1;
  m.description = "outcomes, day buckets, all-time totals with forward decay, meta";
  // Raw rows use the rowid as key: no tool takes an outcome id, and a ULID column would
  // cost one more index on the busiest table.
  m.sql = R"SQL(
CREATE TABLE affective_outcomes (
  id          INTEGER PRIMARY KEY,
  at_ms       INTEGER NOT NULL,
  tool        TEXT    NOT NULL,
  agent_id    TEXT    NOT NULL,
  model       TEXT    NOT NULL DEFAULT '',
  project_id  TEXT    NOT NULL DEFAULT '',
  session_id  TEXT    NOT NULL DEFAULT '',
  outcome     TEXT    NOT NULL
              CHECK (outcome IN ('success','failure','partial','rejected','timeout')),
  latency_ms  REAL    CHECK (latency_ms IS NULL OR latency_ms >= 0),
  confidence  REAL    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  error_class TEXT    NOT NULL DEFAULT '',
  error       TEXT    NOT NULL DEFAULT '',
  source      TEXT    NOT NULL,
  source_id   TEXT
);
CREATE INDEX affective_outcomes_at ON affective_outcomes(at_ms);
CREATE INDEX affective_outcomes_failures ON affective_outcomes(tool, at_ms)
  WHERE outcome <> 'success';
CREATE UNIQUE INDEX affective_outcomes_source ON affective_outcomes(source_id)
  WHERE source_id IS NOT NULL;

CREATE TABLE affective_buckets (
  id             INTEGER PRIMARY KEY,
  tool           TEXT    NOT NULL,
  agent_id       TEXT    NOT NULL,
  model          TEXT    NOT NULL,
  project_id     TEXT    NOT NULL,
  day            INTEGER NOT NULL,
  n              INTEGER NOT NULL,
  success        INTEGER NOT NULL,
  failure        INTEGER NOT NULL,
  partial        INTEGER NOT NULL,
  rejected       INTEGER NOT NULL,
  timeout        INTEGER NOT NULL,
  offset_sum_ms  INTEGER NOT NULL,
  last_at_ms     INTEGER NOT NULL,
  latency_n      INTEGER NOT NULL,
  latency_sum_ms REAL    NOT NULL,
  confidence_n   INTEGER NOT NULL,
  confidence_sum REAL    NOT NULL,
  latency_bins   BLOB    NOT NULL,
  UNIQUE (tool, agent_id, model, project_id, day)
);
CREATE INDEX affective_buckets_day ON affective_buckets(day);

CREATE TABLE affective_totals (
  id             INTEGER PRIMARY KEY,
  tool           TEXT    NOT NULL,
  agent_id       TEXT    NOT NULL,
  model          TEXT    NOT NULL,
  project_id     TEXT    NOT NULL,
  n              INTEGER NOT NULL,
  success        INTEGER NOT NULL,
  failure        INTEGER NOT NULL,
  partial        INTEGER NOT NULL,
  rejected       INTEGER NOT NULL,
  timeout        INTEGER NOT NULL,
  last_at_ms     INTEGER NOT NULL,
  latency_n      INTEGER NOT NULL,
  latency_sum_ms REAL    NOT NULL,
  confidence_n   INTEGER NOT NULL,
  confidence_sum REAL    NOT NULL,
  latency_bins   BLOB    NOT NULL,
  half_life_ms   INTEGER NOT NULL,
  landmark_ms    INTEGER NOT NULL,
  decay_n        REAL    NOT NULL,
  decay_s        REAL    NOT NULL,
  UNIQUE (tool, agent_id, model, project_id)
);

CREATE TABLE affective_meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
)SQL";
  out.push_back(std::move(m));
  // Day buckets and totals are unique per project: a spelling whose row already exists
  // under the new key keeps its own row (UPDATE OR IGNORE) instead of being merged.
  out.push_back(sdk::ProjectKeysMigration(2,
                                          {{"affective_outcomes", "project_id", ""},
                                           {"affective_buckets", "project_id", ""},
                                           {"affective_totals", "project_id", ""}},
                                          projects));
  // v2 left a bucket or total under its old spelling when the new key already had one:
  // merge those into the new key's row (one bucket per project, scores over all counts).
  sdk::Migration merge;
  merge.version = 3;
  merge.description =
      "project keys: buckets and totals left under an old spelling merged into the current key";
  merge.apply = [projects](SQLite::Database& db) { MergeProjectSpellings(db, projects); };
  out.push_back(std::move(merge));
  out.push_back(sdk::RenameColumnsMigration(TimeColumnRenames(), "time columns named <event>_at (were *_ms)"));
  return out;
}

}  // namespace kioku::affective
