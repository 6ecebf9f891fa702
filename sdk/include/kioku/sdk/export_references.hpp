#pragma once
/// @file export_references.hpp
/// References between rows that SQL foreign keys do not cover (a text id, a nullable
/// "superseded_by"), checked when a section of a kioku export is imported (export.hpp).
///
/// A layer's `import_section` calls CheckTextReferences (before or after ImportLayerTables
/// in the same transaction: rows already written count as "in this database"): a value
/// that names no row, neither in the file nor already in the database, refuses the whole
/// file (the host rolls the transaction back), naming the table, the 1-based row of the
/// file and the field — a file edited by hand or cut short must not leave history rows
/// about no memory or a successor that does not exist.

#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

namespace kioku::sdk {

/// Rows a reference may name: `table.column` equal to the value, and, when `where_column`
/// is set, `where_column = where_value` too (e.g. the "purged" history row a purged memory
/// leaves behind: its id stays referenced by its history and successors).
struct ReferenceTarget {
  std::string table;         ///< e.g. "semantic_memories"
  std::string column;        ///< e.g. "id"; should be UNIQUE or indexed (one lookup per value)
  std::string where_column;  ///< "" = every row
  std::string where_value;
};

/// `table.column` holds the key of a row of one of `targets` (any one suffices).
/// NULL and "" mean "no reference" and are never checked.
struct TextReference {
  std::string table;   ///< e.g. "semantic_memory_history"
  std::string column;  ///< e.g. "memory_id"
  std::vector<ReferenceTarget> targets;
};

/// Checks every reference of `refs` in `section` (the shape ExportLayerTables writes:
/// {"tables": {"<t>": {"columns": [...], "rows": [[...], ...]}}}) against the rows of
/// its targets in the section and in `db`. A table or column missing from the section is
/// skipped (ImportLayerTables judges the shape). Throws std::runtime_error
///   "table <t> row <n> field <c>: <value> names no <target table>.<column> [or …] in the
///    file or this database"
/// at the first dangling value. Reads only; runs in the caller's transaction.
void CheckTextReferences(SQLite::Database& db, const nlohmann::json& section, const std::vector<TextReference>& refs);

}  // namespace kioku::sdk
