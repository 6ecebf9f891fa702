#include "migrations.hpp"

#include <stdexcept>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include "kioku/sdk/db.hpp"

namespace kioku::host {
namespace {

void EnsureTable(SQLite::Database& db) {
  db.exec(
      "CREATE TABLE IF NOT EXISTS kioku_migrations ("
      " plugin TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER NOT NULL)");
}

bool IsBusy(const SQLite::Exception& e) {
  const int primary = e.getErrorCode() & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

DatabaseLockedError LockedError(SQLite::Database& db, const std::string& plugin, const std::string& what) {
  return DatabaseLockedError("database " + db.getFilename() + " is locked: another process held its write lock " +
                             "past the busy timeout while plugin '" + plugin + "' " + what +
                             "; retry when that process has finished (or stop it)");
}

}  // namespace

int AppliedVersion(SQLite::Database& db, const std::string& plugin) {
  // A read: in WAL mode it never waits for a writer, so a start-up with nothing to migrate
  // does not queue behind another process's write transaction.
  SQLite::Statement exists(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kioku_migrations'");
  if (!exists.executeStep()) return 0;
  SQLite::Statement q(db, "SELECT version FROM kioku_migrations WHERE plugin = ?");
  q.bind(1, plugin);
  return q.executeStep() ? q.getColumn(0).getInt() : 0;
}

void RunMigrations(SQLite::Database& db, const std::string& plugin,
                   const std::vector<sdk::Migration>& migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i + 1)) {
      throw std::runtime_error("plugin '" + plugin + "': migrations must be numbered 1..n in order; entry " +
                               std::to_string(i) + " has version " + std::to_string(migrations[i].version));
    }
  }
  const int known = static_cast<int>(migrations.size());
  const int applied = AppliedVersion(db, plugin);
  if (applied > known) {
    throw std::runtime_error("database " + db.getFilename() + " was written by a newer kioku: plugin '" + plugin +
                             "' is at schema version " + std::to_string(applied) + " but this build knows up to " +
                             std::to_string(known) + "; upgrade kioku or point KIOKU_HOME elsewhere");
  }
  if (applied == known) return;  // nothing pending: no write lock taken
  try {
    sdk::WithWriteTransaction(db, [&] { EnsureTable(db); });
  } catch (const SQLite::Exception& e) {
    if (IsBusy(e)) throw LockedError(db, plugin, "waited to record its schema version");
    throw;
  }
  for (int v = applied + 1; v <= known; ++v) {
    const auto& m = migrations[v - 1];
    try {
      sdk::WithWriteTransaction(db, [&] {
        // Re-check inside the write lock: another process may have migrated meanwhile.
        if (AppliedVersion(db, plugin) >= v) return;
        if (!m.sql.empty()) db.exec(m.sql);
        if (m.apply) m.apply(db);
        SQLite::Statement up(db,
                             "INSERT INTO kioku_migrations(plugin, version, applied_at) VALUES(?, ?, "
                             "CAST(strftime('%s','now') AS INTEGER) * 1000) "
                             "ON CONFLICT(plugin) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at");
        up.bind(1, plugin);
        up.bind(2, v);
        up.exec();
      });
    } catch (const SQLite::Exception& e) {
      if (IsBusy(e)) throw LockedError(db, plugin, "waited to run migration " + std::to_string(v));
      throw std::runtime_error("plugin '" + plugin + "': migration " + std::to_string(v) + " (" + m.description +
                               ") failed: " + e.what());
    } catch (const std::exception& e) {
      throw std::runtime_error("plugin '" + plugin + "': migration " + std::to_string(v) + " (" + m.description +
                               ") failed: " + e.what());
    }
  }
}

}  // namespace kioku::host
