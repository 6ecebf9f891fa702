#include "migrations.hpp"

#include <optional>
#include <set>
#include <stdexcept>

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"

namespace kioku::host {
namespace {

void EnsureTable(SQLite::Database& db) {
  db.exec(
      "CREATE TABLE IF NOT EXISTS kioku_migrations ("
      " plugin TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER NOT NULL)");
}

DatabaseLockedError LockedError(SQLite::Database& db, const std::string& plugin, const std::string& what) {
  return DatabaseLockedError("database " + db.getFilename() + " is locked: another process held its write lock " +
                             "past the busy timeout while plugin '" + plugin + "' " + what +
                             "; retry when that process has finished (or stop it)");
}

void RecordVersion(SQLite::Database& db, const std::string& plugin, int version) {
  SQLite::Statement up(db,
                       "INSERT INTO kioku_migrations(plugin, version, applied_at) VALUES(?, ?, "
                       "CAST(strftime('%s','now') AS INTEGER) * 1000) "
                       "ON CONFLICT(plugin) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at");
  up.bind(1, plugin);
  up.bind(2, version);
  up.exec();
}

// The schema a plugin's whole migration chain leaves, built on a private in-memory database:
// its CREATE statements in creation order (sqlite_schema rowid order; the tables FTS5 and
// other virtual tables make for themselves and automatic indexes are left out, as creating
// their owner makes them, and sqlite_sequence, which SQLite makes), then the statements that
// give its FTS5 tables the settings the chain left ('usermerge', 'rank', …: rows of the
// <table>_config shadow table beside 'version'). nullopt when a step fails there or leaves a
// row in any table (virtual tables and AUTOINCREMENT counters included) or ANALYZE
// statistics, so the chain must run on the real database: only a chain that creates empty
// tables can be replaced by its result.
std::optional<std::vector<std::string>> ChainResult(const std::vector<sdk::Migration>& migrations) {
  try {
    SQLite::Database scratch(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    scratch.exec("BEGIN");
    for (const sdk::Migration& m : migrations) {
      sdk::ApplyMigrationStep(scratch, m);
    }
    std::set<std::string> made_by_owner;
    std::vector<std::string> settings;
    SQLite::Statement tables(scratch, "SELECT name, type FROM pragma_table_list WHERE schema = 'main'");
    while (tables.executeStep()) {
      const std::string name = tables.getColumn(0).getString(), type = tables.getColumn(1).getString();
      if (type == "shadow") made_by_owner.insert(name);
      if (type == "view" || name == "sqlite_schema" || name == "sqlite_temp_schema") continue;
      // ANALYZE's statistics are data the DDL would not carry.
      if (name.rfind("sqlite_stat", 0) == 0) return std::nullopt;
      // An FTS5 table's settings ('rank', 'automerge', …) live in its <name>_config shadow
      // table beside the 'version' row that creating the table writes: replayed through the
      // table after the DDL. Rows inserted into an FTS5 table (or any virtual table) are
      // read through the table itself.
      const bool fts_config = type == "shadow" && name.size() > 7 && name.ends_with("_config");
      if (type == "shadow" && !fts_config) continue;
      if (fts_config) {
        const std::string owner = "\"" + name.substr(0, name.size() - 7) + "\"";
        SQLite::Statement kv(scratch, "SELECT quote(k), quote(v) FROM \"" + name + "\" WHERE k <> 'version'");
        while (kv.executeStep()) {
          settings.push_back("INSERT INTO " + owner + "(" + owner + ", rank) VALUES (" + kv.getColumn(0).getString() +
                             ", " + kv.getColumn(1).getString() + ")");
        }
        continue;
      }
      // An AUTOINCREMENT counter at 0 is no counter: SQLite writes one at every INSERT into
      // such a table, even one of no rows (a table rebuilt by INSERT … SELECT from an empty
      // one), and the next row gets seq 1 either way.
      SQLite::Statement any(scratch, "SELECT 1 FROM \"" + name + "\"" +
                                         (name == "sqlite_sequence" ? " WHERE seq <> 0" : "") + " LIMIT 1");
      if (any.executeStep()) return std::nullopt;  // AUTOINCREMENT counters (sqlite_sequence) too
    }
    std::vector<std::string> ddl;
    SQLite::Statement schema(scratch, "SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid");
    while (schema.executeStep()) {
      const std::string name = schema.getColumn(0).getString();
      // sqlite_sequence is made by the first AUTOINCREMENT table, and cannot be created.
      if (made_by_owner.count(name) || name.rfind("sqlite_", 0) == 0) continue;
      ddl.push_back(schema.getColumn(1).getString());
    }
    ddl.insert(ddl.end(), settings.begin(), settings.end());
    return ddl;
  } catch (const std::exception&) {
    return std::nullopt;
  }
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
    if (sdk::IsBusyError(e)) throw LockedError(db, plugin, "waited to record its schema version");
    throw;
  }
  // A store without this plugin's tables gets the chain's result in one transaction: each
  // ALTER TABLE … RENAME COLUMN re-parses the whole schema (~18 ms with every layer's tables),
  // which made a first start take 0.6 s; on a scratch database holding only this plugin's
  // tables it costs little.
  if (applied == 0 && known > 0) {
    if (const std::optional<std::vector<std::string>> ddl = ChainResult(migrations)) {
      bool done = false;
      try {
        bool created = false;
        sdk::WithWriteTransaction(db, [&] {
          created = false;
          if (AppliedVersion(db, plugin) != 0) return;  // another process migrated meanwhile
          for (const std::string& statement : *ddl) db.exec(statement);
          RecordVersion(db, plugin, known);
          created = true;
        });
        done = created;  // only once COMMIT succeeded
      } catch (const SQLite::Exception& e) {
        if (sdk::IsBusyError(e)) throw LockedError(db, plugin, "waited to create its tables");
        // Rolled back: the steps below say which one fails on this database.
      }
      if (done) return;
    }
  }
  for (int v = applied + 1; v <= known; ++v) {
    const auto& m = migrations[v - 1];
    try {
      const sdk::MigrationForeignKeys foreign_keys(db, m);
      sdk::WithWriteTransaction(db, [&] {
        // Re-check inside the write lock: another process may have migrated meanwhile.
        if (AppliedVersion(db, plugin) >= v) return;
        sdk::ApplyMigrationStep(db, m);
        RecordVersion(db, plugin, v);
      });
    } catch (const SQLite::Exception& e) {
      if (sdk::IsBusyError(e)) throw LockedError(db, plugin, "waited to run migration " + std::to_string(v));
      throw std::runtime_error("plugin '" + plugin + "': migration " + std::to_string(v) + " (" + m.description +
                               ") failed: " + e.what());
    } catch (const std::exception& e) {
      throw std::runtime_error("plugin '" + plugin + "': migration " + std::to_string(v) + " (" + m.description +
                               ") failed: " + e.what());
    }
  }
}

}  // namespace kioku::host
