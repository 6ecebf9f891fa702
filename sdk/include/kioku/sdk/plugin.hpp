#pragma once
/// @file plugin.hpp
/// The plugin contract. Lifecycle, driven by the host:
///   SettingsSchema() (static, through the manifest) → YAML section validated against it and
///   its defaults filled in → create(host) (HostServices::Settings() complete) →
///   Migrations() run (pending ones, a transaction each) → Register(registrar) → Start()
///   ... serve ...
///   Stop() → tools and subscriptions dropped → delete → module unloaded.

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "kioku/sdk/context.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/tool.hpp"
#include "kioku/sdk/visibility.hpp"

namespace SQLite {
class Database;  // SQLiteCpp/Database.h; migrations and handlers that use it include it
}

namespace kioku::sdk {

struct ExporterSpec;  // export.hpp

/// One schema step. Versions start at 1 and increase by 1; the host records the highest
/// applied version per plugin in `kioku_migrations` and runs the pending steps in order,
/// each inside one transaction (a failure rolls that step back and stops the start).
/// Tables a plugin creates are prefixed with its name (`semantic_memories`).
struct Migration {
  int version = 0;
  std::string description;
  /// Either SQL (may hold several statements) ...
  std::string sql;
  /// ... or code, for data moves SQL cannot express. Runs inside the transaction and touches
  /// only the database it is given: on a store without the plugin's tables the host runs the
  /// whole chain on a scratch database first and copies the resulting schema.
  std::function<void(SQLite::Database&)> apply;
  /// Runs the step with foreign key enforcement off, as SQLite's procedure for changing a
  /// table in ways ALTER TABLE cannot (https://sqlite.org/lang_altertable.html#otheralter):
  /// create the new table, copy, drop the old one, rename. With enforcement on, dropping a
  /// parent table deletes its rows first and ON DELETE CASCADE empties the child tables.
  /// The host checks `PRAGMA foreign_key_check` before committing (a violation rolls the
  /// step back and names the table) and turns enforcement on again after.
  bool foreign_keys_off = false;
};

/// A CLI subcommand a plugin contributes to `kioku` (e.g. `kioku ingest`, `kioku hook`).
/// `run` receives the arguments after the command name, `--name=value` split into `--name`
/// and `value` (before a bare `--`), and returns the process exit code.
/// A name of two words ("hook capture") adds a subcommand to a group that several plugins
/// share: `kioku hook capture ...` runs it with the arguments after "capture"; the host
/// prefers the two-word name over a one-word one ("hook"), which gets the other words.
/// It runs in-process with every enabled plugin loaded; it may call tools via HostServices.
struct CommandSpec {
  std::string name;     ///< e.g. "ingest"; must not clash with built-ins or other plugins.
  std::string summary;  ///< One line for `kioku --help`.
  std::string usage;    ///< Multi-line help for `kioku <name> --help`.
  std::function<int(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                    std::ostream& err)>
      run;
};

/// Collects what a plugin offers. Only valid during Plugin::Register.
class Registrar {
 public:
  virtual ~Registrar() = default;
  /// Adds a tool. Throws std::runtime_error on an invalid name or a duplicate (naming both
  /// plugins); the host treats that as a start-up failure.
  virtual void AddTool(ToolSpec spec, ToolHandler handler) = 0;
  virtual void AddCommand(CommandSpec command) = 0;
  /// Adds a context provider (context.hpp: contract, budget and priority scale). A plugin
  /// adds at most one. The default ignores it (hosts that assemble no context blocks).
  virtual void AddContextProvider(ContextProviderSpec provider) { (void)provider; }
  /// Adds this layer's part of `kioku export` / `kioku import` (export.hpp: envelope,
  /// import contract, the default table copier). A plugin adds at most one. The default
  /// ignores it (hosts that export nothing).
  virtual void AddExporter(const ExporterSpec& exporter) { (void)exporter; }
};

/// Base class of every memory layer. One instance per process; handlers may run
/// concurrently on several threads, so plugin state must be thread-safe (prefer keeping
/// state in the database).
class KIOKU_EXPORT Plugin {
 public:
  virtual ~Plugin() = default;

  /// JSON Schema of this plugin's YAML section, with a "default" on every leaf
  /// (settings.hpp: build it with sdk::Settings / sdk::Setting). Static: the host reads it
  /// through the manifest BEFORE constructing the plugin, validates the section and fills
  /// the defaults, so the constructor can read complete settings from
  /// HostServices::Settings(). A plugin with settings declares its own
  /// `static Json SettingsSchema()`, hiding this one, which accepts only an empty object (an
  /// unknown key fails start-up). Must not throw and must return the same value every time.
  static Json SettingsSchema() { return {{"type", "object"}, {"additionalProperties", false}}; }

  /// Two or three lines telling an agent when and how to use this layer's tools; the host
  /// joins them into the MCP `instructions` of initialize/server/discover. Empty = the host
  /// lists the layer's tool names instead.
  virtual std::string Instructions() const { return {}; }

  /// Ordered schema migrations (see Migration).
  virtual std::vector<Migration> Migrations() const { return {}; }

  /// Registers tools and CLI commands, and subscribes to events via HostServices::Events().
  virtual void Register(Registrar& registrar) = 0;

  /// Called once after every plugin registered; start background work here.
  virtual void Start() {}
  /// Called once before destruction; stop background work and join threads here.
  virtual void Stop() {}
};

}  // namespace kioku::sdk
