#include "runtime.hpp"

#include "kioku/sdk/embed_worker.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <sys/stat.h>
#include <unordered_map>

#include "argument_text.hpp"
#include "connection_pool.hpp"
#include "database_use_lock.hpp"
#include "deferred_writes.hpp"
#include "event_bus.hpp"
#include "json_schema.hpp"
#include "logging.hpp"
#include "migrations.hpp"
#include "plugin_loader.hpp"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/settings.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::host {
namespace {

constexpr std::size_t kMaxToolNameLength = 48;
constexpr int kMaxNestedCalls = 8;  // HostServices::CallTool depth per thread
// HostServices::CallTool frames on this thread: a call a plugin makes (workspace_status
// asking plan_status, ingest filing memory_suggest) is not the agent's choice of tool, so it
// publishes no tool.called (the affective layer would rank it, the working layer count it
// as the agent's sign of life).
thread_local int plugin_calls = 0;
// RuntimeOptions::one_shot: the WAL a one-shot process leaves unchecked (ConnectionPool),
// the size every connection cuts the WAL back to when it restarts.
constexpr std::uintmax_t kOneShotWalBytes = sdk::kWalSizeLimitBytes;

// ^[a-z][a-z0-9_]*$ by hand: a std::regex costs more to build than the rest of a start-up.
bool IsToolName(const std::string& name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

void CheckToolName(const std::string& name) {
  if (name.size() > kMaxToolNameLength || !IsToolName(name)) {
    throw std::runtime_error("tool name '" + name +
                             "' is invalid: use snake_case matching ^[a-z][a-z0-9_]*$, at most 48 characters");
  }
}

// Counts Runtime::Call frames on this thread, so cleanup runs only when the outermost call
// ends (a nested CallTool must not disturb the statements of the call that made it).
thread_local int active_calls = 0;
struct CallFrame {
  CallFrame() { ++active_calls; }
  ~CallFrame() { --active_calls; }
  bool Outermost() const { return active_calls == 1; }
};

// A connection goes back to its thread clean after every tool call: a statement a plugin
// stepped but never reset keeps a read transaction open (stale snapshot for later reads,
// SQLITE_BUSY_SNAPSHOT for later writes), and a transaction left open would block every
// writer. Both are plugin bugs; this is the safety net, and it says so in the log.
void ReturnConnectionClean(SQLite::Database& db, sdk::Logger& log, const std::string& tool) {
  sqlite3* handle = db.getHandle();
  for (sqlite3_stmt* stmt = sqlite3_next_stmt(handle, nullptr); stmt; stmt = sqlite3_next_stmt(handle, stmt)) {
    if (sqlite3_stmt_busy(stmt)) sqlite3_reset(stmt);
  }
  if (!sqlite3_get_autocommit(handle)) {
    log.Error("tool '" + tool + "' left a transaction open; rolled back");
    sqlite3_exec(handle, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

// The host's safety net under CallContext::result_budget_bytes: tools fit themselves, but
// one that does not must still not flood the client. Text is cut at a UTF-8 boundary; a
// structuredContent that alone is over the cap cannot be cut without breaking its schema,
// so the result becomes an error saying how to ask for less, and for a tool that writes,
// that what it did is kept (sending the call again would do it twice).
void FitResult(sdk::ToolResult& result, std::size_t cap, const std::string& tool, bool read_only, sdk::Logger& log) {
  if (cap == 0) return;
  // The bound first: a result it places under the cap is not serialized twice (here and
  // for the response).
  if (result.text.size() + (result.structured.is_null() ? 0 : sdk::DumpedSizeBound(result.structured)) <= cap) return;
  const std::size_t structured = result.structured.is_null() ? 0 : sdk::DumpJson(result.structured).size();
  if (result.text.size() + structured <= cap) return;
  log.Warn("tool '" + tool + "' returned " + std::to_string(result.text.size() + structured) +
           " bytes, over server.max_result_bytes " + std::to_string(cap));
  if (structured > cap * 3 / 4) {
    const std::string over = "result of " + tool + " was " + std::to_string(result.text.size() + structured) +
                             " bytes, over this server's cap of " + std::to_string(cap) + " bytes (server.max_result_bytes)";
    result = sdk::ToolResult::Error(
        read_only ? over + "; ask for less: a smaller limit, the cursor of a previous page, or a narrower query"
                  : tool + " finished and what it did is kept, but its " + over +
                        "; do not send it again: read what it did with a read tool, and next time send less at once");
    return;
  }
  const std::string note = "\n… [cut: result over " + std::to_string(cap) + " bytes]";
  result.text = sdk::TruncateUtf8(result.text, cap - structured, note);
}

}  // namespace

struct ToolEntry {
  RegisteredTool tool;
  std::unique_ptr<JsonSchema> input;
  std::unique_ptr<JsonSchema> output;
  // RuntimeOptions::one_shot: compiled on first call (valijson's schema parse is most of
  // a one-shot start-up otherwise). A compile error is kept and reported by every call.
  std::once_flag compiled;
  std::string compile_error;
  // sdk::ToolSpec::schemas, run once (EnsureSchemas); an exception's message is kept.
  std::once_flag schemas_built;
  std::string schemas_error;

  /// Fills the spec's schemas from its sdk::ToolSpec::schemas hook, once. Every reader of
  /// tool.spec's schemas goes through this (Compile, Runtime::Tools/AllTools/FindTool).
  void EnsureSchemas() {
    std::call_once(schemas_built, [this] {
      if (!tool.spec.schemas) return;
      const auto build = std::move(tool.spec.schemas);
      tool.spec.schemas = nullptr;
      try {
        build(tool.spec);
      } catch (const std::exception& e) {
        schemas_error = std::string("building its schemas threw: ") + e.what();
      }
    });
  }

  void Compile(const std::string& plugin) {
    try {
      EnsureSchemas();
      if (!schemas_error.empty()) throw std::runtime_error(schemas_error);
      input = std::make_unique<JsonSchema>(tool.spec.input_schema);
      if (!tool.spec.output_schema.is_null()) output = std::make_unique<JsonSchema>(tool.spec.output_schema);
    } catch (const std::exception& e) {
      throw std::runtime_error("tool '" + tool.spec.name + "' of plugin '" + plugin + "': " + e.what());
    }
  }
  /// False (and compile_error set) when a lazily compiled schema is malformed.
  bool EnsureCompiled() {
    std::call_once(compiled, [this] {
      if (input) return;
      try {
        Compile(tool.plugin);
      } catch (const std::exception& e) {
        compile_error = e.what();
      }
    });
    return compile_error.empty();
  }
};

class ServicesImpl;

struct PluginEntry {
  // Declaration order is destruction order reversed: the instance dies before the library.
  LoadedModule module;
  std::string name;
  std::string version;
  nlohmann::json settings;
  nlohmann::json settings_schema;
  bool settings_checked = false;  // Runtime::AddPluginWithSchema
  PluginFactory factory;
  std::unique_ptr<ServicesImpl> services;
  std::unique_ptr<sdk::Plugin> plugin;
};

struct Runtime::Impl {
  RuntimeOptions options;
  // Before the pool: released after every connection closed (database_use_lock.hpp).
  std::unique_ptr<DatabaseUseLock> use_lock;
  std::unique_ptr<sdk::Logger> log = MakeLogger("host");
  std::unique_ptr<ConnectionPool> pool;
  std::unique_ptr<DeferredWrites> deferred;  // after pool: its thread uses the pool
  EventBusImpl bus{*log};
  std::vector<std::unique_ptr<PluginEntry>> plugins;
  std::vector<std::unique_ptr<ToolEntry>> tools;
  std::unordered_map<std::string, ToolEntry*> by_name;
  std::vector<sdk::CommandSpec> commands;
  std::vector<sdk::ContextProviderSpec> context_providers;
  std::vector<sdk::ExporterSpec> exporters;
  std::vector<RegisteredTool> host_tools;  // AddHostTool, registered by Start()
  bool started = false;
  bool stopped = false;
  bool serving = false;  ///< Started in StartMode::kServe (plugins were started).
};

class ServicesImpl final : public sdk::HostServices {
 public:
  ServicesImpl(Runtime& runtime, Runtime::Impl& impl, PluginEntry& entry)
      : runtime_(runtime), impl_(impl), entry_(entry), log_(MakeLogger(entry.name)) {}
  std::string_view PluginName() const override { return entry_.name; }
  SQLite::Database& Db() override { return impl_.pool->ForThisThread(); }
  const sdk::Clock& GetClock() const override { return *impl_.options.clock; }
  sdk::Logger& Log() override { return *log_; }
  const nlohmann::json& Settings() const override { return entry_.settings; }
  sdk::EventBus& Events() override { return impl_.bus; }
  sdk::ToolResult CallTool(std::string_view name, const nlohmann::json& args,
                           const sdk::Caller& caller) override {
    if (!HasTool(name)) {
      return sdk::ToolResult::Error("tool '" + std::string(name) + "' is not available (its layer is not enabled)");
    }
    // Plugin-to-plugin calls run on the caller's thread; a cycle (A calls B calls A ...)
    // would otherwise recurse until the stack overflows.
    if (plugin_calls >= kMaxNestedCalls) {
      return sdk::ToolResult::Error("tool '" + std::string(name) + "' not called: tool calls nested deeper than " +
                                    std::to_string(kMaxNestedCalls) + " levels (a plugin calls itself in a cycle)");
    }
    ++plugin_calls;
    struct Unwind {
      ~Unwind() { --plugin_calls; }
    } unwind;
    return runtime_.Call(name, args, caller).result;
  }
  bool HasTool(std::string_view name) const override {
    return impl_.by_name.count(std::string(name)) > 0;
  }
  std::filesystem::path DataDir() const override { return impl_.options.data_dir; }
  void DeferWrite(std::function<void(SQLite::Database&)> write) override { impl_.deferred->Add(std::move(write)); }
  const sdk::ProjectOptions& Projects() const override { return impl_.options.projects; }
  sdk::Embedder* GetEmbedder() override { return impl_.options.embedder.get(); }
  sdk::ChatModel* GetChatModel() override { return impl_.options.chat.get(); }

 private:
  Runtime& runtime_;
  Runtime::Impl& impl_;
  PluginEntry& entry_;
  std::unique_ptr<sdk::Logger> log_;
};

namespace {

class RegistrarImpl final : public sdk::Registrar {
 public:
  RegistrarImpl(Runtime::Impl& impl, const std::string& plugin) : impl_(impl), plugin_(plugin) {}
  void AddTool(sdk::ToolSpec spec, sdk::ToolHandler handler) override {
    CheckToolName(spec.name);
    if (auto it = impl_.by_name.find(spec.name); it != impl_.by_name.end()) {
      throw std::runtime_error("duplicate tool '" + spec.name + "': registered by plugin '" +
                               it->second->tool.plugin + "' and again by plugin '" + plugin_ + "'");
    }
    if (!handler) throw std::runtime_error("tool '" + spec.name + "' of plugin '" + plugin_ + "' has no handler");
    auto entry = std::make_unique<ToolEntry>();
    entry->tool = RegisteredTool{std::move(spec), std::move(handler), plugin_};
    if (!impl_.options.one_shot) entry->Compile(plugin_);
    impl_.by_name[entry->tool.spec.name] = entry.get();
    impl_.tools.push_back(std::move(entry));
  }
  void AddCommand(sdk::CommandSpec command) override {
    for (const auto& c : impl_.commands) {
      if (c.name == command.name && command.name != sdk::kEmbedCommandName) {
        throw std::runtime_error("duplicate command '" + command.name + "' from plugin '" + plugin_ + "'");
      }
    }
    impl_.commands.push_back(std::move(command));
  }
  void AddContextProvider(sdk::ContextProviderSpec provider) override {
    if (!provider.provide) throw std::runtime_error("context provider of plugin '" + plugin_ + "' has no function");
    for (const auto& p : impl_.context_providers) {
      if (p.name == plugin_) throw std::runtime_error("plugin '" + plugin_ + "' added a second context provider");
    }
    provider.name = plugin_;  // logs name the plugin that owns it, whatever it claimed
    impl_.context_providers.push_back(std::move(provider));
  }
  void AddExporter(const sdk::ExporterSpec& exporter) override {
    for (const auto& e : impl_.exporters) {
      if (e.name == plugin_) throw std::runtime_error("plugin '" + plugin_ + "' added a second exporter");
    }
    impl_.exporters.push_back(exporter);
    impl_.exporters.back().name = plugin_;  // sections are keyed by the owning plugin
  }

 private:
  Runtime::Impl& impl_;
  const std::string& plugin_;
};

// A shared use lock for the life of a serving runtime (database_use_lock.hpp).
std::unique_ptr<DatabaseUseLock> AcquireUseLock(const std::filesystem::path& db_path) {
  auto lock = DatabaseUseLock::TryAcquire(db_path, DatabaseUseLock::Mode::kShared);
  if (!lock) {
    throw DatabaseLockedError("database " + db_path.string() + " is being restored (`kioku backup restore` holds " +
                              DatabaseUseLock::LockPath(db_path).string() + "); start again when it has finished");
  }
  return lock;
}

// Validates the YAML section, then fills the schema's defaults and validates the result
// (a default that breaks its own schema is the plugin's bug, worded as such). Settings
// known to be valid (PluginEntry::settings_checked) only get their defaults.
void CompleteSettings(PluginEntry& entry) {
  if (entry.settings_checked) {
    entry.settings = sdk::ApplySettingsDefaults(entry.settings_schema, entry.settings);
    return;
  }
  std::unique_ptr<JsonSchema> schema;
  try {
    schema = std::make_unique<JsonSchema>(entry.settings_schema);
  } catch (const std::exception& e) {
    throw std::runtime_error("settings schema of plugin '" + entry.name + "' is invalid: " + e.what());
  }
  if (auto v = schema->Validate(entry.settings); !v.empty()) {
    throw std::runtime_error("settings of plugin '" + entry.name + "': " + JoinViolations(v));
  }
  entry.settings = sdk::ApplySettingsDefaults(entry.settings_schema, entry.settings);
  if (auto v = schema->Validate(entry.settings); !v.empty()) {
    throw std::runtime_error("settings defaults of plugin '" + entry.name + "' break its schema: " +
                             JoinViolations(v));
  }
}

}  // namespace

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<Impl>()) {
  if (!options.clock) options.clock = std::make_shared<sdk::SystemClock>();
  if (options.data_dir.empty()) throw std::runtime_error("runtime: data directory not set");
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    throw std::runtime_error("cannot create data directory " + options.data_dir.string() + ": " + ec.message());
  }
  ::chmod(options.data_dir.c_str(), 0700);
  if (options.db_path.empty()) options.db_path = options.data_dir / "kioku.db";
  impl_->options = std::move(options);
  impl_->pool = std::make_unique<ConnectionPool>(impl_->options.db_path, impl_->options.busy_timeout_ms);
  if (impl_->options.one_shot) impl_->pool->SetCheckpointOnCloseAbove(kOneShotWalBytes);
  DeferredWriteOptions deferred;
  deferred.max_writes = impl_->options.deferred_max_writes;
  deferred.max_age_ms = impl_->options.deferred_max_age_ms;
  impl_->deferred = std::make_unique<DeferredWrites>(*impl_->pool, *impl_->options.clock, *impl_->log, deferred);
}

Runtime::~Runtime() {
  Stop();
  impl_->deferred->Stop();  // also when Start() never ran
  impl_->plugins.clear();  // instances first (reverse order of members), then libraries
}

void Runtime::AddPluginWithSchema(std::string name, PluginFactory factory, nlohmann::json settings,
                                  nlohmann::json settings_schema, bool settings_checked) {
  if (impl_->started) throw std::logic_error("AddPlugin after Start");
  for (const auto& p : impl_->plugins) {
    if (p->name == name) throw std::runtime_error("plugin '" + name + "' added twice");
  }
  auto entry = std::make_unique<PluginEntry>();
  entry->name = std::move(name);
  entry->version = "builtin";
  entry->settings = settings.is_null() ? nlohmann::json::object() : std::move(settings);
  entry->settings_schema = std::move(settings_schema);
  entry->settings_checked = settings_checked;
  entry->factory = std::move(factory);
  impl_->plugins.push_back(std::move(entry));
}

void Runtime::AddHostTool(sdk::ToolSpec spec, sdk::ToolHandler handler, bool every_project) {
  if (impl_->started) throw std::logic_error("AddHostTool after Start");
  RegisteredTool tool{std::move(spec), std::move(handler), kHostToolOwner};
  tool.every_project = every_project;
  impl_->host_tools.push_back(std::move(tool));
}

void Runtime::LoadPlugin(std::string name, const std::filesystem::path& module_path, nlohmann::json settings,
                         bool settings_checked) {
  auto module = LoadModule(module_path, name);
  const std::string version = module.manifest->version ? module.manifest->version : "";
  auto create = module.create;
  nlohmann::json settings_schema;
  try {
    settings_schema = module.manifest->settings_schema();
  } catch (const std::exception& e) {
    throw std::runtime_error("plugin '" + name + "' threw in SettingsSchema: " + e.what());
  }
  AddPluginWithSchema(
      name, [create](sdk::HostServices& host) { return std::unique_ptr<sdk::Plugin>(create(host)); },
      std::move(settings), std::move(settings_schema), settings_checked);
  impl_->plugins.back()->module = std::move(module);
  impl_->plugins.back()->version = version;
}

void Runtime::Start(StartMode mode) {
  if (impl_->started) return;
  impl_->started = true;
  impl_->serving = mode == StartMode::kServe;
  // Every section is checked before any plugin exists, so a typo in one plugin's section
  // never leaves another half-started, and each constructor sees complete settings.
  for (auto& entry : impl_->plugins) CompleteSettings(*entry);
  if (impl_->serving) impl_->use_lock = AcquireUseLock(impl_->options.db_path);
  for (auto& entry : impl_->plugins) {
    entry->services = std::make_unique<ServicesImpl>(*this, *impl_, *entry);
    try {
      entry->plugin = entry->factory(*entry->services);
    } catch (const std::exception& e) {
      throw std::runtime_error("plugin '" + entry->name + "' threw on create: " + e.what());
    }
    if (!entry->plugin) throw std::runtime_error("plugin '" + entry->name + "' returned no instance on create");
    if (impl_->serving) RunMigrations(impl_->pool->ForThisThread(), entry->name, entry->plugin->Migrations());
    RegistrarImpl registrar(*impl_, entry->name);
    entry->plugin->Register(registrar);
  }
  static const std::string host_owner = kHostToolOwner;
  RegistrarImpl host_registrar(*impl_, host_owner);
  for (auto& tool : impl_->host_tools) {
    const std::string name = tool.spec.name;
    host_registrar.AddTool(std::move(tool.spec), std::move(tool.handler));
    impl_->by_name[name]->tool.every_project = tool.every_project;
  }
  impl_->host_tools.clear();
  SelectTools();
  if (impl_->serving) {
    for (auto& entry : impl_->plugins) entry->plugin->Start();
  }
}

void Runtime::SelectTools() {
  const ToolSelection& selection = impl_->options.tools;
  auto check = [&](const std::vector<std::string>& names, const char* key) {
    for (const auto& name : names) {
      if (impl_->by_name.count(name)) continue;
      std::string known;
      for (const auto& t : impl_->tools) known += (known.empty() ? "" : ", ") + t->tool.spec.name;
      throw std::runtime_error(std::string("server.tools.") + key + ": unknown tool '" + name +
                               "' (no enabled plugin registers it); known tools: " + known);
    }
  };
  check(selection.include, "include");
  check(selection.exclude, "exclude");
  auto named = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (auto& t : impl_->tools) {
    const auto& spec = t->tool.spec;
    bool in_profile = selection.profile == sdk::ToolProfile::kFull || spec.profile == sdk::ToolProfile::kCore;
    t->tool.listed = (in_profile || named(selection.include, spec.name)) && !named(selection.exclude, spec.name);
  }
}

void Runtime::Stop() {
  StopPlugins();
  impl_->bus.Clear();
  impl_->by_name.clear();
  impl_->tools.clear();
  impl_->commands.clear();
  impl_->context_providers.clear();
  impl_->exporters.clear();  // their std::functions come from the libraries
}

bool Runtime::StopForExit() {
  StopPlugins();
  return impl_->options.one_shot && impl_->pool->ClosesWithoutCheckpoint();
}

void Runtime::StopPlugins() {
  if (!impl_->started || impl_->stopped) return;
  impl_->stopped = true;
  // While every plugin still runs. A one-shot process writes them on this thread's
  // connection, already open, instead of opening the writer thread's (a schema parse).
  if (impl_->options.one_shot) impl_->deferred->FlushHere();
  impl_->deferred->Flush();
  for (auto it = impl_->plugins.rbegin(); it != impl_->plugins.rend(); ++it) {
    if (!(*it)->plugin || !impl_->serving) continue;
    try {
      (*it)->plugin->Stop();
    } catch (const std::exception& e) {
      impl_->log->Warn("plugin '" + (*it)->name + "' threw on stop: " + e.what());
    }
  }
  impl_->deferred->Stop();  // what the plugins' Stop deferred; writes from a library die here
}

CallOutcome Runtime::Call(std::string_view name, const nlohmann::json& args, const sdk::Caller& caller,
                          const std::atomic<bool>* cancelled) {
  auto it = impl_->by_name.find(std::string(name));
  if (it == impl_->by_name.end()) throw UnknownToolError("unknown tool '" + std::string(name) + "'");
  ToolEntry& entry = *it->second;
  const auto started = std::chrono::steady_clock::now();

  sdk::CallContext ctx;
  ctx.caller = caller;
  ctx.cancelled = cancelled;
  ctx.result_budget_bytes = impl_->options.max_result_bytes;
  if (impl_->options.call_timeout_ms > 0) {
    ctx.deadline = started + std::chrono::milliseconds(impl_->options.call_timeout_ms);
  }

  CallFrame call_frame;
  CallOutcome out;
  static const nlohmann::json kNoArguments = nlohmann::json::object();
  const nlohmann::json& effective = args.is_null() ? kNoArguments : args;  // two lvalues: no copy of args
  std::vector<std::string> violations;
  // NULs first (argument_text.hpp): no layer ever sees text a C API would cut short.
  const auto nul = FindNulCharacter(effective);
  if (nul) {
    // A read stores nothing, so it says what to send instead (a write: that nothing was stored).
    out.result = sdk::ToolResult::Error(
        "invalid arguments for " + entry.tool.spec.name + ": " + *nul +
        (entry.tool.spec.annotations.read_only
             ? "; kioku holds no NUL characters, so none can match: send the text without it"
             : "; kioku stores no NUL characters: remove it and send again; nothing was stored"));
    out.outcome = "rejected";
  } else if (!entry.EnsureCompiled()) {
    impl_->log->Error(entry.compile_error);
    out.result = sdk::ToolResult::Error("internal error in " + entry.tool.spec.name + ": " + entry.compile_error);
    out.outcome = "failure";
  } else if (violations = entry.input->Validate(effective); !violations.empty()) {
    out.result = sdk::ToolResult::Error("invalid arguments for " + entry.tool.spec.name + ": " +
                                        JoinViolations(violations) +
                                        ". See the tool's inputSchema (tools/list) for the expected shape.");
    out.outcome = "rejected";
  } else {
    try {
      out.result = entry.tool.handler(effective, ctx);
      out.outcome = out.result.is_error ? "failure" : "success";
    } catch (const sdk::ToolError& e) {
      out.result = sdk::ToolResult::Error(e.what());
      out.outcome = "failure";
    } catch (const SQLite::Exception& e) {
      if (sdk::IsBusyError(e)) {
        // A write that waited past its busy budget: the transaction rolled back whole.
        out.result = sdk::ToolResult::Error(
            "database busy: another write (of this process or another) held the write lock longer than " +
            std::to_string(impl_->options.busy_timeout_ms) + " ms; nothing was changed, retry");
      } else {
        impl_->log->Error("tool '" + entry.tool.spec.name + "' failed: " + e.what());
        out.result = sdk::ToolResult::Error("internal error in " + entry.tool.spec.name + ": " + e.what());
      }
      out.outcome = "failure";
    } catch (const std::exception& e) {
      impl_->log->Error("tool '" + entry.tool.spec.name + "' failed: " + e.what());
      out.result = sdk::ToolResult::Error("internal error in " + entry.tool.spec.name + ": " + e.what());
      out.outcome = "failure";
    }
    if (!out.result.is_error && entry.output) {
      auto bad = entry.output->Validate(out.result.structured);
      if (!bad.empty()) {
        impl_->log->Error("tool '" + entry.tool.spec.name + "' returned structuredContent not matching its outputSchema: " +
                          JoinViolations(bad));
        out.result = sdk::ToolResult::Error("internal error in " + entry.tool.spec.name +
                                            ": result did not match the declared outputSchema");
        out.outcome = "failure";
      }
    }
    if (ctx.Cancelled() || ctx.Expired()) out.outcome = "timeout";
  }
  FitResult(out.result, impl_->options.max_result_bytes, entry.tool.spec.name, entry.tool.spec.annotations.read_only,
            *impl_->log);
  out.latency_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (call_frame.Outermost()) ReturnConnectionClean(impl_->pool->ForThisThread(), *impl_->log, entry.tool.spec.name);

  if (plugin_calls > 0) return out;  // a plugin's call, not the agent's (see plugin_calls)
  sdk::ToolCallEvent event;
  event.tool = entry.tool.spec.name;
  event.plugin = entry.tool.plugin;
  event.agent_id = caller.agent_id;
  event.session_id = caller.session_id;
  event.project_id = caller.project_id;
  event.outcome = out.outcome;
  event.latency_ms = out.latency_ms;
  if (out.result.is_error) event.error = sdk::TruncateUtf8(out.result.text, 500);
  event.at_ms = impl_->options.clock->NowMs();
  event.read_only = entry.tool.spec.annotations.read_only;
  impl_->bus.Publish(sdk::Event{sdk::kToolCalledTopic, event.ToJson()});
  return out;
}

void Runtime::FlushDeferredWrites() { impl_->deferred->Flush(); }

sdk::ToolResult Runtime::CallTool(std::string_view tool, const nlohmann::json& args, const sdk::Caller& caller) {
  return Call(tool, args, caller).result;
}

std::vector<const RegisteredTool*> Runtime::Tools() const {
  std::vector<const RegisteredTool*> out;
  for (const auto& t : impl_->tools) {
    if (!t->tool.listed) continue;
    t->EnsureSchemas();
    out.push_back(&t->tool);
  }
  return out;
}

std::vector<const RegisteredTool*> Runtime::AllTools() const {
  std::vector<const RegisteredTool*> out;
  for (const auto& t : impl_->tools) {
    t->EnsureSchemas();
    out.push_back(&t->tool);
  }
  return out;
}

const RegisteredTool* Runtime::FindTool(std::string_view name) const {
  auto it = impl_->by_name.find(std::string(name));
  if (it == impl_->by_name.end() || !it->second->tool.listed) return nullptr;
  it->second->EnsureSchemas();
  return &it->second->tool;
}

std::string Runtime::UnlistedToolHint(std::string_view name) const {
  auto it = impl_->by_name.find(std::string(name));
  if (it == impl_->by_name.end() || it->second->tool.listed) return {};
  return std::string(name) + " is registered but not enabled on this server: add it to server.tools.include "
         "in the config (or set server.tools.profile: full), or run it from a shell with `kioku call " +
         std::string(name) + "`";
}

const std::vector<sdk::CommandSpec>& Runtime::Commands() const { return impl_->commands; }
const std::vector<sdk::ExporterSpec>& Runtime::Exporters() const { return impl_->exporters; }

const std::vector<sdk::ContextProviderSpec>& Runtime::ContextProviders() const {
  return impl_->context_providers;
}
const sdk::Clock& Runtime::Clock() const { return *impl_->options.clock; }
sdk::EventBus& Runtime::Events() { return impl_->bus; }
SQLite::Database& Runtime::Db() { return impl_->pool->ForThisThread(); }
const RuntimeOptions& Runtime::Options() const { return impl_->options; }

std::string Runtime::PluginInstructions(const std::string& plugin) const {
  for (const auto& p : impl_->plugins) {
    if (p->name == plugin && p->plugin) return p->plugin->Instructions();
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> Runtime::Plugins() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : impl_->plugins) out.emplace_back(p->name, p->version);
  return out;
}

}  // namespace kioku::host
