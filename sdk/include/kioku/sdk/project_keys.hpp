#pragma once
/// @file project_keys.hpp
/// Moving rows stored under an old spelling of a project to its current key
/// (CanonicalProjectKey, project_identity.hpp). Plugins list their project columns in a
/// migration built by ProjectKeysMigration.

#include <string>
#include <string_view>
#include <vector>


#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/project_identity.hpp"

namespace SQLite {
class Database;
}

namespace kioku::sdk {

/// One column holding a project key, and optionally a column of paths relative to that
/// project's root (they gain the subfolder prefix when "<repo>//apps/api" becomes "<repo>").
struct ProjectColumn {
  std::string table;
  std::string column;
  std::string path_column;  ///< "" = none.
};

/// For each distinct value of `col.table`.`col.column`, computes CanonicalProjectKey and,
/// when it differs, rewrites the rows to it (`UPDATE OR IGNORE`: a row whose unique key
/// already exists under the new spelling stays under the old one rather than being
/// destroyed). Non-empty paths in `path_column` gain the part of the old subfolder the new
/// key no longer names ("<repo>//apps/api" + "src/x" → "<repo>" + "apps/api/src/x").
/// Identifiers come from plugin code, never user input. Runs inside the caller's
/// transaction; throws SQLite::Exception on database errors. Returns the rows moved.
int RewriteProjectKeys(SQLite::Database& db, const ProjectColumn& col, const ProjectOptions& options);

/// A Migration (code, run once like any other) applying RewriteProjectKeys to every column.
/// `options` is copied (pass HostServices::Projects()).
Migration ProjectKeysMigration(int version, std::vector<ProjectColumn> columns, ProjectOptions options);

}  // namespace kioku::sdk
