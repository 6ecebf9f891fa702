#pragma once
/// @file runtime.hpp
/// The host's core: owns the database location, the plugins (loaded modules or in-process
/// instances), the tool registry, the event bus and the clock, and executes tool calls with
/// argument validation and call events. Transports and the CLI sit on top of it; plugin unit
/// tests use it directly with in-process plugins (no dlopen).

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <type_traits>

#include <nlohmann/json.hpp>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/export.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/tool.hpp"
#include "tool_selection.hpp"

namespace kioku::host {

/// Builds a plugin instance in-process (tests, static builds).
using PluginFactory = std::function<std::unique_ptr<sdk::Plugin>(sdk::HostServices&)>;

/// What Runtime::Start does. kDescribe lets plugins register (so their tools and commands
/// can be listed, e.g. by `kioku --help`) without touching the database: no migrations and
/// no Plugin::Start (nor, later, Plugin::Stop).
enum class StartMode { kServe, kDescribe };

struct RuntimeOptions {
  std::filesystem::path data_dir;  ///< Created 0700 if missing.
  std::filesystem::path db_path;   ///< Default: data_dir / "kioku.db".
  std::shared_ptr<sdk::Clock> clock;  ///< Default: SystemClock.
  int busy_timeout_ms = 5000;
  /// Default tool-call deadline in ms (0 = none); exceeded calls are reported as timeout.
  int call_timeout_ms = 30'000;
  /// Byte cap of one tool result's content (text + structuredContent JSON), handed to tools
  /// as CallContext::result_budget_bytes; 0 = none. Config `server.max_result_bytes`.
  std::size_t max_result_bytes = 48 * 1024;
  /// Batching of HostServices::DeferWrite (see deferred_writes.hpp).
  std::size_t deferred_max_writes = 256;
  std::int64_t deferred_max_age_ms = 1000;
  /// Which tools clients see (config `server.tools`); checked by Start().
  ToolSelection tools;
  /// Identity settings (config `identity:`) handed to plugins via HostServices::Projects.
  sdk::ProjectOptions projects;
  /// A process that makes one call or runs one command and exits (`kioku call`, `kioku
  /// context`, plugin commands such as `kioku hook capture`): each tool's JSON Schemas are
  /// compiled when it is first called instead of at Start (a malformed schema then fails
  /// that call, naming the tool), Stop() writes the deferred writes on the calling thread's
  /// connection (no second connection to open), and connections close without a WAL
  /// checkpoint while the WAL holds at most 1 MiB (it stays for the next process; a server
  /// checkpoints as it runs and when it exits). Start-up cost, not behaviour: results are
  /// the same.
  bool one_shot = false;
  /// The embedding provider (config `providers.embedding`) handed to plugins through
  /// HostServices::GetEmbedder; null = none (text search only).
  std::shared_ptr<sdk::Embedder> embedder;
  /// The chat model (config `providers.chat`) handed to plugins through
  /// HostServices::GetChatModel; null = none (model-assisted tools refuse).
  std::shared_ptr<sdk::ChatModel> chat;
};

/// A registered tool as the dispatcher sees it.
struct RegisteredTool {
  sdk::ToolSpec spec;
  sdk::ToolHandler handler;
  std::string plugin;  ///< Owning plugin, or kHostToolOwner for the host's own tools.
  bool listed = true;  ///< Selected by RuntimeOptions::tools (clients see it).
  /// The tool reads every project's data (e.g. `data_export`): the dispatcher refuses it to
  /// a connection limited to some projects (an HTTP token's `projects`).
  bool every_project = false;
};

/// RegisteredTool::plugin of the tools the host registers itself (Runtime::AddHostTool).
inline constexpr const char* kHostToolOwner = "host";

/// Outcome of Runtime::Call with the event classification.
struct CallOutcome {
  sdk::ToolResult result;
  std::string outcome;  ///< "success" | "failure" | "rejected" | "timeout"
  double latency_ms = 0;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// Adds an in-process plugin. Must be called before Start(). `make` returns a
  /// std::unique_ptr<P>; the settings schema is P's static SettingsSchema() (what
  /// KIOKU_PLUGIN exports for a module).
  template <class F>
  void AddPlugin(std::string name, F make, nlohmann::json settings = nlohmann::json::object()) {
    using P = typename std::invoke_result_t<F&, sdk::HostServices&>::element_type;
    AddPluginWithSchema(std::move(name), PluginFactory(std::move(make)), std::move(settings),
                        P::SettingsSchema());
  }
  /// Same, with the settings schema given explicitly. `settings_checked`: the settings are
  /// known to satisfy this schema, so Start only fills their defaults, without compiling the
  /// schema (valijson; ~3.5 M instructions for the five bundled plugins, a tenth of a cold
  /// `kioku call`). The CLI says so for a one-shot process on the embedded default config
  /// and a plugin from the install's own plugin directory: every server start (and the e2e
  /// suite) validates that pairing.
  void AddPluginWithSchema(std::string name, PluginFactory factory, nlohmann::json settings,
                           nlohmann::json settings_schema, bool settings_checked = false);
  /// Loads `kioku-<name>.so` from `module_path` (manifest checked first). Before Start().
  void LoadPlugin(std::string name, const std::filesystem::path& module_path,
                  nlohmann::json settings = nlohmann::json::object(), bool settings_checked = false);

  /// Adds a tool of the host itself (one no layer owns, e.g. `data_export`, which spans
  /// every layer). Before Start(); registered by Start() after every plugin's tools (a
  /// plugin tool of the same name fails the start as a duplicate), under the owner
  /// kHostToolOwner, and selected by RuntimeOptions::tools like any other.
  void AddHostTool(sdk::ToolSpec spec, sdk::ToolHandler handler, bool every_project = false);

  /// Validates every plugin's settings and fills their defaults (before any plugin is
  /// constructed), then per plugin: creates it, runs pending migrations, registers
  /// tools/commands; then starts them all.
  /// Throws std::runtime_error with a one-line message on any failure.
  void Start(StartMode mode = StartMode::kServe);
  /// Stops plugins (reverse order) and drops tools/subscriptions. Idempotent.
  void Stop();
  /// For the end of a process: writes the deferred writes and stops the plugins (as Stop()),
  /// but keeps tools and registrations, and says whether the process may now end without
  /// destroying this Runtime (std::_Exit): true only for a one-shot runtime whose
  /// connections would close without a WAL checkpoint (ConnectionPool::
  /// ClosesWithoutCheckpoint), so a close would do nothing the next process needs. What was
  /// committed is in the WAL either way. Stop() or the destructor still tears down as usual.
  bool StopForExit();

  /// Executes a tool: lookup, schema validation, handler, output-schema check, call event.
  /// Unknown tool → throws UnknownToolError (a protocol fault for the dispatcher).
  CallOutcome Call(std::string_view tool, const nlohmann::json& args, const sdk::Caller& caller,
                   const std::atomic<bool>* cancelled = nullptr);
  /// Blocks until every HostServices::DeferWrite queued so far is written (tests, CLI).
  void FlushDeferredWrites();
  /// Convenience for tests and the CLI: Call(...).result.
  sdk::ToolResult CallTool(std::string_view tool, const nlohmann::json& args,
                           const sdk::Caller& caller = {});

  /// Listed tools (RuntimeOptions::tools) in deterministic order: plugin order in the
  /// config, then registration order. Transports show and accept only these.
  std::vector<const RegisteredTool*> Tools() const;
  /// Every registered tool, listed or not, in the same order.
  std::vector<const RegisteredTool*> AllTools() const;
  /// A listed tool by name, else nullptr. Call() runs unlisted tools too.
  const RegisteredTool* FindTool(std::string_view name) const;
  /// For a client asking for a tool FindTool() does not return: "" when no plugin registered
  /// `name`, else how to enable it (the deployment's `server.tools` left it unlisted).
  std::string UnlistedToolHint(std::string_view name) const;
  const std::vector<sdk::CommandSpec>& Commands() const;
  /// Context providers (sdk/context.hpp), in plugin order.
  const std::vector<sdk::ContextProviderSpec>& ContextProviders() const;
  /// Exporters (sdk/export.hpp), in plugin order, each named after its plugin.
  const std::vector<sdk::ExporterSpec>& Exporters() const;

  const sdk::Clock& Clock() const;
  sdk::EventBus& Events();
  /// A connection for the calling thread (same settings plugins get).
  SQLite::Database& Db();
  const RuntimeOptions& Options() const;
  /// The plugin's Instructions() text ("" when unknown or empty).
  std::string PluginInstructions(const std::string& plugin) const;
  /// Names of the loaded plugins, in order, with versions.
  std::vector<std::pair<std::string, std::string>> Plugins() const;

  struct Impl;  // public so the host's own service/registrar classes can reach it

 private:
  void SelectTools();  // applies RuntimeOptions::tools after every plugin registered
  void StopPlugins();  // Stop() without dropping the registrations
  std::unique_ptr<Impl> impl_;
};

/// Thrown by Runtime::Call for a tool name that is not registered.
class UnknownToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kioku::host
