#pragma once
/// @file migrations.hpp
/// Per-plugin schema versions in one table, `kioku_migrations(plugin, version, applied_at)`.

#include <stdexcept>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/plugin.hpp"

namespace kioku::host {

/// Thrown when start-up needed the write lock (a migration is pending) and another process
/// held it past the busy timeout. Its message names the database and says it is a lock.
class DatabaseLockedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads the recorded version first and takes no write lock when nothing is pending.
/// Applies the pending migrations of `plugin` in order, each in its own BEGIN IMMEDIATE
/// transaction that also records the new version. A plugin with nothing applied yet gets
/// the chain's result instead: the chain runs on a private in-memory database and, when it
/// leaves only empty tables there, its CREATE statements run here in one transaction (same
/// schema, without re-parsing the whole store's schema for every renamed column). So a
/// migration's `apply` must touch nothing but the database it is given. Throws std::runtime_error when the list
/// is not numbered 1..n, when a step fails (naming plugin, version and the SQLite error),
/// or when the database records a newer version than this build knows (refusing to touch
/// a database written by a newer kioku); DatabaseLockedError when the write lock was not
/// granted within the busy timeout.
void RunMigrations(SQLite::Database& db, const std::string& plugin,
                   const std::vector<sdk::Migration>& migrations);

/// The version recorded for `plugin` (0 when none).
int AppliedVersion(SQLite::Database& db, const std::string& plugin);

}  // namespace kioku::host
