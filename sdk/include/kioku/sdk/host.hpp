#pragma once
/// @file host.hpp
/// Services the host hands to each plugin at creation (SQLite `sqlite3ext.h` pattern: the
/// plugin calls through this interface and never links against host symbols).

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kioku/sdk/chat.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/embedding.hpp"
#include "kioku/sdk/events.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/tool.hpp"

namespace SQLite {
class Database;  // SQLiteCpp/Database.h, included where Db() is used
}

namespace kioku::sdk {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

/// Logger writing to stderr (never stdout, which belongs to the stdio transport).
/// Thread-safe. Messages are single lines; the host prefixes time, level and plugin name.
class Logger {
 public:
  virtual ~Logger() = default;
  virtual void Log(LogLevel level, std::string_view message) = 0;
  void Debug(std::string_view m) { Log(LogLevel::kDebug, m); }
  void Info(std::string_view m) { Log(LogLevel::kInfo, m); }
  void Warn(std::string_view m) { Log(LogLevel::kWarn, m); }
  void Error(std::string_view m) { Log(LogLevel::kError, m); }
};

/// Host services for one plugin. The object outlives the plugin. All methods thread-safe.
class HostServices {
 public:
  virtual ~HostServices() = default;

  /// This plugin's name (its config key).
  virtual std::string_view PluginName() const = 0;

  /// The calling thread's connection to the deployment's database: WAL, foreign_keys=ON,
  /// busy_timeout set, opened on first use per thread and reused. Never share it across
  /// threads. Use `WithWriteTransaction` (db.hpp) for writes.
  virtual SQLite::Database& Db() = 0;

  /// The clock every time in this plugin must come from (injectable in tests).
  virtual const Clock& GetClock() const = 0;

  virtual Logger& Log() = 0;

  /// This plugin's section of the YAML config, converted to JSON, validated against the
  /// plugin class's `SettingsSchema()` and completed with its defaults
  /// (ApplySettingsDefaults, settings.hpp) — already when the constructor runs. Keys the
  /// schema declares without a default are absent unless the YAML sets them.
  virtual const nlohmann::json& Settings() const = 0;

  virtual EventBus& Events() = 0;

  /// Calls another plugin's tool through the host (arguments validated, event published).
  /// Returns an isError result (never throws) when the tool does not exist — check
  /// `HasTool` first to skip work for a disabled layer.
  virtual ToolResult CallTool(std::string_view name, const nlohmann::json& args,
                              const Caller& caller) = 0;

  /// True when a tool of that name is registered (its layer is enabled).
  virtual bool HasTool(std::string_view name) const = 0;

  /// The deployment's data directory (KIOKU_HOME, default ~/.kioku), mode 0700.
  virtual std::filesystem::path DataDir() const = 0;

  /// A write that must not run on the request thread (recall counters, automatic outcome
  /// capture: ARCHITECTURE.md "Reads do not write on the request path"). Runs later on
  /// the host's background writer thread, given that thread's connection, batched with
  /// other deferred writes in one `BEGIN IMMEDIATE` transaction (SQLITE_BUSY retried; the
  /// whole batch may be re-run, so `write` must keep its effects in the database).
  /// A batch is flushed when it holds `deferred_max_writes` writes, when its oldest write
  /// is `deferred_max_age_ms` old by the host clock, and at Runtime::Stop (after every
  /// plugin's Stop), so a clean shutdown (SIGTERM, end of stdin) loses nothing; kill -9
  /// loses at most the unflushed batch. A batch that still fails is logged and dropped.
  /// Never blocks on the database; thread-safe. `write` must not throw for expected data
  /// (a throw drops its whole batch, logged). The host destroys `write` before the
  /// plugin's library is unloaded.
  virtual void DeferWrite(std::function<void(SQLite::Database&)> write) = 0;
  /// The deployment's identity settings (config `identity:`): pass them to
  /// sdk::ResolveProject / ProjectOfRecord / CanonicalProjectKey so every layer names a
  /// folder's project as the host does.
  /// The default (test hosts) is no configured packages.
  virtual const ProjectOptions& Projects() const {
    static const ProjectOptions kNone;
    return kNone;
  }
  /// The deployment's embedder (config `providers.embedding`, embedding.hpp), or nullptr
  /// when none is configured (text search only). Owned by the host; outlives the plugin.
  /// Since ABI 3.
  virtual Embedder* GetEmbedder() { return nullptr; }
  /// The deployment's chat model (config `providers.chat`, chat.hpp), or nullptr when none
  /// is configured (model-assisted tools refuse, naming the config key). Owned by the
  /// host; outlives the plugin. Since ABI 4.
  virtual ChatModel* GetChatModel() { return nullptr; }
};

}  // namespace kioku::sdk
