#pragma once
/// @file export.hpp
/// Export and import of a layer's data (`kioku export`, `kioku import`, backups' sibling).
///
/// Mechanism. During Plugin::Register a layer calls `Registrar::AddExporter` once. The host
/// builds one versioned JSON envelope (host/src/data_export.hpp) whose `sections` object has
/// one member per enabled layer that added an exporter, keyed by the plugin name:
///
///   {"kioku_export": 1, "exported_at": "2026-12-01T18:00:00Z", "kioku_version": "0.1.0",
///    "sections": {"semantic": {"schema_version": 4, "tables": {...}}, ...}}
///
/// `schema_version` is the layer's applied migration version (the host fills it). What the
/// section holds besides it is the layer's business; by default (empty `export_section` /
/// `import_section`) it is every table of the layer copied row for row by
/// ExportLayerTables / ImportLayerTables below, which is full fidelity for any schema.
///
/// Import contract (the host keeps it for the envelope, a layer's functions for its rows):
///   - the whole file is imported in ONE write transaction on one connection; any throw
///     from any layer rolls everything back, and the message reaches the user;
///   - idempotent: a row whose identity already exists is skipped and counted, not updated;
///   - secret screening: every text value of every row is checked with sdk::FindSecret
///     and a finding refuses the file (naming table, column, row and the kind of secret);
///   - a section newer than the database (schema_version above the layer's applied
///     version) is refused before anything is written.
/// Thread-safety: the functions run on the calling thread with the connection given; they
/// must not call tools (HostServices::CallTool) or keep the connection.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kioku/sdk/column_renames.hpp"

namespace SQLite {
class Database;
}

namespace kioku::sdk {

/// Highest envelope version this build writes and reads (`kioku_export`).
inline constexpr int kExportFormatVersion = 1;

/// What an import did to one layer.
struct ImportCounts {
  std::int64_t inserted = 0;  ///< rows written
  std::int64_t skipped = 0;   ///< rows whose identity already existed (left as they were)
};

/// What `kioku import --from NAME FILE` hands a layer's foreign format.
struct ForeignImportRequest {
  std::string file;          ///< As the user named it (for messages).
  std::string text;          ///< The whole file, valid UTF-8 (the host checks), at most 32 MiB.
  std::string agent_id;      ///< Who imports (stored as the memories' author).
  std::string project_id;    ///< The project items belong to (sdk::ProjectIdentity of the
                             ///< working folder, or `--project`); "" = none known.
  std::string project_root;  ///< Its folder here; "" when given as a key.
};

/// What a foreign import did.
struct ForeignImportResult {
  /// Per kind of item ("memories", "entities", "relations"): written / already there.
  std::map<std::string, ImportCounts> counts;
  /// Short lines for the user (e.g. "line 12: already known as 01JX… (pending)"); the
  /// host prints the first 20 and counts the rest.
  std::vector<std::string> notes;
};

/// A format from another tool that a layer reads (`kioku import --from NAME FILE`).
/// Contract as for import_section: runs inside the host's open write transaction, may run
/// again on SQLITE_BUSY (keep effects in the database), is idempotent (a second import of
/// the same file writes nothing), screens every text it stores with sdk::FindSecret, and
/// throws std::runtime_error naming the line (1-based) and what to fix — for a secret the
/// line and the rule, never the secret — to refuse the whole file.
struct ForeignFormat {
  std::string name;     ///< `--from` value, e.g. "claude-md".
  std::string summary;  ///< One line for `kioku import --help`.
  /// True when `text` (of a file named `file`) is in this format: used by `--from auto`.
  std::function<bool(const std::string& file, const std::string& text)> detect;
  std::function<ForeignImportResult(SQLite::Database& db, const ForeignImportRequest& request)> import;
};

/// A layer's contribution to export/import. Every field is optional.
struct ExporterSpec {
  /// Set by the host to the plugin name (what the layer claims is ignored).
  std::string name;
  /// Returns the section body (a JSON object; the host adds `schema_version`).
  /// Empty: ExportLayerTables(db, name).
  std::function<nlohmann::json(SQLite::Database& db)> export_section;
  /// Writes `section` (as export_section produced it, possibly by an older schema version
  /// `section["schema_version"]`) inside the host's open transaction; throws
  /// std::runtime_error with a message naming what is wrong to refuse the whole file.
  /// Empty: ImportLayerTables(db, name, section).
  std::function<ImportCounts(SQLite::Database& db, const nlohmann::json& section)> import_section;
  /// Runs after this layer's rows are in (same transaction): rebuild what the layer keeps
  /// in code rather than in tables or triggers (e.g. a standalone FTS5 index).
  /// External-content FTS5 tables are rebuilt by ImportLayerTables already.
  std::function<void(SQLite::Database& db)> after_import;
  /// Counts a person wants in `kioku doctor` (e.g. {"memories": {"active": 12}, ...}); a
  /// flat or one-level-nested object of integers. Read only; may throw (doctor says so).
  std::function<nlohmann::json(SQLite::Database& db)> doctor_counts;
  /// Columns the layer's migrations renamed (the lists its RenameColumnsMigration calls
  /// use): before import_section runs, the host applies UpgradeSectionColumns with the
  /// section's schema_version, so a file written before a rename still imports.
  std::vector<ColumnRenames> renamed_columns;
  /// Formats of other tools this layer imports (`kioku import --from NAME`).
  std::vector<ForeignFormat> foreign_formats;
};

/// Every ordinary table named `<layer>_*` (not virtual tables, not FTS5 shadow tables), in
/// foreign-key order (parents first), as
///   {"tables": {"<table>": {"columns": [...], "rows": [[v, ...], ...]}}}
/// A rowid table without an INTEGER PRIMARY KEY also gets its `rowid` as the first column
/// (external-content FTS5 indexes refer to it). Values: integers, reals, text as JSON;
/// NULL as null; a BLOB as {"hex": "<lower-case hex>"}. Rows in primary-key order, so two
/// exports of equal databases are equal byte for byte.
nlohmann::json ExportLayerTables(SQLite::Database& db, const std::string& layer);

/// Writes a section made by ExportLayerTables into the open transaction of `db`:
///   - a table unknown to this database, or a column it lacks, refuses the file;
///   - identity: a row is skipped when a row with equal values exists for its primary key
///     or for any UNIQUE index whose columns are all non-NULL in the row; for a table whose
///     only key is an INTEGER PRIMARY KEY (a surrogate, e.g. `seq`), when a row equal in
///     every other column exists;
///   - a surrogate key is kept when free, else SQLite assigns a new one; foreign keys that
///     point at a remapped surrogate are rewritten (PRAGMA foreign_key_list);
///   - foreign keys are checked at COMMIT (PRAGMA defer_foreign_keys), so row order inside
///     a table does not matter;
///   - external-content FTS5 tables over a table that received rows are rebuilt
///     (`INSERT INTO fts(fts) VALUES('rebuild')`, SQLite FTS5 docs §4.4.2).
/// Throws std::runtime_error naming the table, row and column at fault.
ImportCounts ImportLayerTables(SQLite::Database& db, const std::string& layer,
                               const nlohmann::json& section);

/// Screens one text value of an imported file, as ImportLayerTables screens every text it
/// stores: throws std::runtime_error "<where>: holds a NUL character …" or "<where>: looks
/// like a secret (<kind>) …" (FindSecret). `where` names the table, row and column. For
/// layers that store a file's text another way (e.g. as keys of an interning table).
void ScreenImportedText(std::string_view text, const std::string& where);

/// How a layer knows a row of one table is here already when no key of the table says so
/// (e.g. a computed id): given the file's column names and one row (foreign keys already
/// rewritten), the surrogate of the row in the database, or nullopt. Asked before the keys.
using RowIdentity = std::function<std::optional<std::int64_t>(const std::vector<std::string>& columns,
                                                              const nlohmann::json& row)>;

/// ImportLayerTables with `identities` by table name: a row one of them finds is skipped and
/// counted, and foreign keys naming it point at the row found.
ImportCounts ImportLayerTables(SQLite::Database& db, const std::string& layer, const nlohmann::json& section,
                               const std::map<std::string, RowIdentity>& identities);

}  // namespace kioku::sdk
