#pragma once
/// @file column_renames.hpp
/// Renaming columns of a layer's tables without losing data or old export files. One list
/// serves both sides: RenameColumnsMigration turns it into a migration, and
/// ExporterSpec::renamed_columns (export.hpp) lets `kioku import` read a section written
/// before that migration ran.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kioku/sdk/plugin.hpp"

namespace kioku::sdk {

/// One column renamed: `table`.`from` is called `to` from then on.
struct RenamedColumn {
  std::string table;
  std::string from;
  std::string to;
};

/// The columns migration `version` renames.
struct ColumnRenames {
  int version = 0;
  std::vector<RenamedColumn> columns;
};

/// A Migration numbered renames.version running `ALTER TABLE "t" RENAME COLUMN "a" TO "b"`
/// for each column. SQLite (3.25.0 and later; Debian 12 ships 3.40) rewrites the indexes,
/// triggers and views that name the column in the same statement
/// (https://sqlite.org/lang_altertable.html#altertabrencol). Identifiers come from plugin
/// code, never user input.
Migration RenameColumnsMigration(const ColumnRenames& renames, std::string description);

/// Brings a section in ExportLayerTables' shape ({"tables": {"<t>": {"columns": [...]}}})
/// written at `schema_version` up to the current names: every rename whose version is
/// above schema_version is applied to the `columns` list of its table, in version order.
/// Tables or columns the section lacks are left alone (ImportLayerTables names them).
void UpgradeSectionColumns(nlohmann::json& section, std::int64_t schema_version,
                           const std::vector<ColumnRenames>& renames);

}  // namespace kioku::sdk
