// Runtime: migrations, settings validation, tool registry and the Call path (schema
// rejection, failures, output-schema check, call events, cross-plugin calls).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "host_test_util.hpp"
#include "kioku/sdk/events.hpp"
#include "migrations.hpp"
#include "runtime.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::FixtureModule;
using testing::TempDir;

template <class Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// How many times each migration step body ran (across runtimes in one test).
std::atomic<int> g_migration_runs{0};

// An in-process plugin with two migrations, a settings schema and tools for every outcome.
class NotesPlugin final : public sdk::Plugin {
 public:
  explicit NotesPlugin(sdk::HostServices& host) : host_(host) {}

  static json SettingsSchema() {
    return json::parse(R"({"type":"object","properties":{"prefix":{"type":"string","maxLength":10}},
                           "additionalProperties":false})");
  }

  std::vector<sdk::Migration> Migrations() const override {
    return {{1, "notes table", "CREATE TABLE notes_items (id INTEGER PRIMARY KEY, text TEXT NOT NULL)", {}},
            {2, "count runs", "", [](SQLite::Database& db) {
               ++g_migration_runs;
               db.exec("CREATE TABLE notes_meta (k TEXT PRIMARY KEY, v TEXT)");
             }}};
  }

  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec add;
    add.name = "note_add";
    add.description = "Stores a note.";
    add.input_schema = json::parse(R"({"type":"object","properties":{"text":{"type":"string","maxLength":20}},
                                      "required":["text"],"additionalProperties":false})");
    add.output_schema = json::parse(R"({"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]})");
    r.AddTool(add, [this](const json& args, const sdk::CallContext&) {
      ++handler_runs;
      auto& db = host_.Db();
      SQLite::Statement ins(db, "INSERT INTO notes_items(text) VALUES(?)");
      ins.bind(1, host_.Settings().value("prefix", "") + args["text"].get<std::string>());
      ins.exec();
      return sdk::ToolResult::Ok("stored", {{"id", db.getLastInsertRowid()}});
    });

    sdk::ToolSpec fail;
    fail.name = "note_fail";
    fail.description = "Throws a ToolError.";
    r.AddTool(fail, [](const json&, const sdk::CallContext&) -> sdk::ToolResult {
      throw sdk::ToolError("no such note 01ABC; send an id from note_list");
    });

    sdk::ToolSpec crash;
    crash.name = "note_crash";
    crash.description = "Throws a std::exception.";
    r.AddTool(crash, [](const json&, const sdk::CallContext&) -> sdk::ToolResult {
      throw std::out_of_range("vector index 7");
    });

    sdk::ToolSpec bad_output;
    bad_output.name = "note_bad_output";
    bad_output.description = "Returns structured content that breaks its output schema.";
    bad_output.output_schema = json::parse(R"({"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]})");
    r.AddTool(bad_output, [](const json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok("oops", {{"id", "not-an-integer"}});
    });

    sdk::ToolSpec relay;
    relay.name = "note_relay";
    relay.description = "Calls another tool through HostServices::CallTool.";
    relay.input_schema = json::parse(R"({"type":"object","properties":{"tool":{"type":"string"},"args":{"type":"object"}},
                                        "required":["tool"]})");
    r.AddTool(relay, [this](const json& args, const sdk::CallContext& ctx) {
      auto inner = host_.CallTool(args["tool"].get<std::string>(), args.value("args", json::object()), ctx.caller);
      return sdk::ToolResult::Ok(inner.text, {{"inner_is_error", inner.is_error},
                                              {"has_tool", host_.HasTool(args["tool"].get<std::string>())}});
    });

    sdk::ToolSpec watch;
    watch.name = "note_watch";
    watch.description = "Reports whether the call was cancelled.";
    r.AddTool(watch, [](const json&, const sdk::CallContext& ctx) {
      return sdk::ToolResult::Ok(ctx.Cancelled() ? "cancelled" : "running");
    });

    r.AddCommand({"notes-dump", "Prints notes", "kioku notes-dump", [](auto&, auto&, auto&, auto&) { return 0; }});
  }

  void Stop() override { stopped = true; }

  std::atomic<int> handler_runs{0};
  std::atomic<bool> stopped{false};

 private:
  sdk::HostServices& host_;
};

// A second plugin registering after NotesPlugin (order and cross-plugin tests).
class PingPlugin final : public sdk::Plugin {
 public:
  explicit PingPlugin(sdk::HostServices&) {}
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec ping;
    ping.name = "ping_pong";
    ping.description = "Answers pong.";
    r.AddTool(ping, [](const json&, const sdk::CallContext& ctx) {
      return sdk::ToolResult::Ok("pong for " + ctx.caller.agent_id);
    });
  }
};

// A plugin whose Register is supplied by the test.
class LambdaPlugin final : public sdk::Plugin {
 public:
  LambdaPlugin(sdk::HostServices&, std::function<void(sdk::Registrar&)> reg) : reg_(std::move(reg)) {}
  void Register(sdk::Registrar& r) override { reg_(r); }

 private:
  std::function<void(sdk::Registrar&)> reg_;
};

class RuntimeTest : public ::testing::Test {
 protected:
  std::unique_ptr<Runtime> Make(bool with_ping = false, json notes_settings = json::object()) {
    RuntimeOptions o;
    o.data_dir = dir_.path();
    o.clock = clock_;
    auto rt = std::make_unique<Runtime>(o);
    rt->AddPlugin(
        "notes",
        [this](sdk::HostServices& host) {
          auto p = std::make_unique<NotesPlugin>(host);
          notes_ = p.get();
          return p;
        },
        std::move(notes_settings));
    if (with_ping) {
      rt->AddPlugin("ping", [](sdk::HostServices& host) { return std::make_unique<PingPlugin>(host); });
    }
    return rt;
  }

  static sdk::Caller Agent() {
    sdk::Caller c;
    c.agent_id = "agent-7";
    c.session_id = "session-1";
    c.project_id = "github.com/acme/app";
    return c;
  }

  // Subscribes to tool-call events of `rt` and collects them.
  std::vector<sdk::ToolCallEvent>& Capture(Runtime& rt) {
    rt.Events().Subscribe(sdk::kToolCalledTopic, [this](const sdk::Event& e) {
      std::lock_guard lock(mutex_);
      events_.push_back(sdk::ToolCallEvent::FromJson(e.payload));
    });
    return events_;
  }

  TempDir dir_;
  std::shared_ptr<sdk::ManualClock> clock_ = std::make_shared<sdk::ManualClock>(1'700'000'000'000);
  NotesPlugin* notes_ = nullptr;
  std::mutex mutex_;
  std::vector<sdk::ToolCallEvent> events_;
};

TEST_F(RuntimeTest, MigrationsRecordedAndNotRerun) {
  g_migration_runs = 0;
  {
    auto rt = Make();
    rt->Start();
    EXPECT_EQ(AppliedVersion(rt->Db(), "notes"), 2);
    EXPECT_EQ(g_migration_runs.load(), 1);
    auto& db = rt->Db();
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM sqlite_master WHERE name IN ('notes_items','notes_meta')").getInt(), 2);
    EXPECT_FALSE(rt->CallTool("note_add", {{"text", "kept"}}, Agent()).is_error);
  }
  auto again = Make();
  again->Start();
  EXPECT_EQ(g_migration_runs.load(), 1);
  EXPECT_EQ(AppliedVersion(again->Db(), "notes"), 2);
  EXPECT_EQ(again->Db().execAndGet("SELECT text FROM notes_items").getString(), "kept");
}

TEST_F(RuntimeTest, NewerDatabaseRefused) {
  {
    auto rt = Make();
    rt->Start();
    rt->Db().exec("UPDATE kioku_migrations SET version = 5 WHERE plugin = 'notes'");
  }
  auto rt = Make();
  auto e = ErrorOf([&] { rt->Start(); });
  EXPECT_THAT(e, HasSubstr("was written by a newer kioku: plugin 'notes' is at schema version 5 but this build "
                           "knows up to 2"));
  EXPECT_THAT(e, HasSubstr((dir_.path() / "kioku.db").string()));
}

TEST_F(RuntimeTest, FailedMigrationRollsBackThatStep) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  o.clock = clock_;
  Runtime rt(o);
  class Broken final : public sdk::Plugin {
   public:
    explicit Broken(sdk::HostServices&) {}
    std::vector<sdk::Migration> Migrations() const override {
      return {{1, "ok", "CREATE TABLE broken_a (x)", {}},
              {2, "half", "CREATE TABLE broken_b (x); CREATE TABLE broken_a (y);", {}}};
    }
    void Register(sdk::Registrar&) override {}
  };
  rt.AddPlugin("broken", [](sdk::HostServices& h) { return std::make_unique<Broken>(h); });
  EXPECT_THAT(ErrorOf([&] { rt.Start(); }), StartsWith("plugin 'broken': migration 2 (half) failed: "));
  EXPECT_EQ(AppliedVersion(rt.Db(), "broken"), 1);
  EXPECT_EQ(rt.Db().execAndGet("SELECT count(*) FROM sqlite_master WHERE name = 'broken_b'").getInt(), 0);
}

TEST_F(RuntimeTest, MisnumberedMigrationsRefused) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime rt(o);
  class Gap final : public sdk::Plugin {
   public:
    explicit Gap(sdk::HostServices&) {}
    std::vector<sdk::Migration> Migrations() const override {
      return {{1, "a", "SELECT 1", {}}, {3, "c", "SELECT 1", {}}};
    }
    void Register(sdk::Registrar&) override {}
  };
  rt.AddPlugin("gap", [](sdk::HostServices& h) { return std::make_unique<Gap>(h); });
  EXPECT_EQ(ErrorOf([&] { rt.Start(); }),
            "plugin 'gap': migrations must be numbered 1..n in order; entry 1 has version 3");
}

TEST_F(RuntimeTest, SettingsValidatedAgainstSchema) {
  auto rt = Make(false, {{"prefx", "x"}});
  EXPECT_EQ(ErrorOf([&] { rt->Start(); }),
            "settings of plugin 'notes': (root): unknown field \"prefx\" (allowed: prefix)");
  auto rt2 = Make(false, {{"prefix", 12}});
  EXPECT_EQ(ErrorOf([&] { rt2->Start(); }),
            "settings of plugin 'notes': prefix: expected string (at most 10 characters), got number 12");
}

TEST_F(RuntimeTest, DefaultSettingsSchemaRefusesAnyKey) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime bare(o);
  bare.AddPlugin("ping", [](sdk::HostServices& h) { return std::make_unique<PingPlugin>(h); }, {{"x", 1}});
  EXPECT_THAT(ErrorOf([&] { bare.Start(); }), HasSubstr("settings of plugin 'ping': (root): unknown field \"x\""));
}

TEST_F(RuntimeTest, CheckedSettingsOnlyGetTheirDefaults) {
  // settings_checked (a one-shot process, the embedded default, a bundled plugin): no
  // schema compile or validation, but the defaults still reach the plugin.
  const json schema = json::parse(R"({"type":"object","properties":{
      "greeting":{"type":"string","default":"hi"},"limit":{"type":"integer","maximum":5}},
      "additionalProperties":false})");
  for (bool checked : {false, true}) {
    RuntimeOptions o;
    o.data_dir = dir_.path();
    Runtime rt(o);
    json seen;
    rt.AddPluginWithSchema(
        "conf",
        [&seen](sdk::HostServices& h) -> std::unique_ptr<sdk::Plugin> {
          seen = h.Settings();
          return std::make_unique<LambdaPlugin>(h, [](sdk::Registrar&) {});
        },
        {{"limit", 9}}, schema, checked);
    if (!checked) {
      EXPECT_THAT(ErrorOf([&] { rt.Start(); }), HasSubstr("limit: expected integer at most 5"));
      continue;
    }
    rt.Start();
    EXPECT_EQ(seen, json({{"greeting", "hi"}, {"limit", 9}}));
  }
}

TEST_F(RuntimeTest, SettingsReachThePlugin) {
  auto rt = Make(false, {{"prefix", "p:"}});
  rt->Start();
  ASSERT_FALSE(rt->CallTool("note_add", {{"text", "a"}}, Agent()).is_error);
  EXPECT_EQ(rt->Db().execAndGet("SELECT text FROM notes_items").getString(), "p:a");
}

TEST_F(RuntimeTest, SchemaRejectionIsErrorAndSkipsHandler) {
  auto rt = Make();
  rt->Start();
  auto& events = Capture(*rt);
  auto out = rt->Call("note_add", {{"text", 5}}, Agent());
  EXPECT_TRUE(out.result.is_error);
  EXPECT_EQ(out.outcome, "rejected");
  EXPECT_THAT(out.result.text, StartsWith("invalid arguments for note_add: text: expected string (at most 20 "
                                          "characters), got number 5"));
  EXPECT_EQ(notes_->handler_runs.load(), 0);
  EXPECT_EQ(rt->Db().execAndGet("SELECT count(*) FROM notes_items").getInt(), 0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].outcome, "rejected");
  EXPECT_THAT(events[0].error, HasSubstr("text: expected string"));
}

TEST_F(RuntimeTest, NullArgumentsAreAnEmptyObject) {
  auto rt = Make();
  rt->Start();
  auto out = rt->Call("note_add", nullptr, Agent());
  EXPECT_EQ(out.outcome, "rejected");
  EXPECT_THAT(out.result.text, HasSubstr("(root): missing required field \"text\""));
  EXPECT_FALSE(rt->Call("note_watch", nullptr, Agent()).result.is_error);
}

TEST_F(RuntimeTest, ToolErrorIsFailureWithItsMessage) {
  auto rt = Make();
  rt->Start();
  auto out = rt->Call("note_fail", json::object(), Agent());
  EXPECT_TRUE(out.result.is_error);
  EXPECT_EQ(out.outcome, "failure");
  EXPECT_EQ(out.result.text, "no such note 01ABC; send an id from note_list");
}

TEST_F(RuntimeTest, OtherExceptionIsInternalError) {
  auto rt = Make();
  rt->Start();
  auto out = rt->Call("note_crash", json::object(), Agent());
  EXPECT_TRUE(out.result.is_error);
  EXPECT_EQ(out.outcome, "failure");
  EXPECT_EQ(out.result.text, "internal error in note_crash: vector index 7");
}

TEST_F(RuntimeTest, SuccessPublishesEvent) {
  auto rt = Make();
  rt->Start();
  auto& events = Capture(*rt);
  auto out = rt->Call("note_add", {{"text", "hello"}}, Agent());
  EXPECT_FALSE(out.result.is_error);
  EXPECT_EQ(out.outcome, "success");
  EXPECT_EQ(out.result.structured["id"], 1);
  EXPECT_GE(out.latency_ms, 0.0);
  ASSERT_EQ(events.size(), 1u);
  const auto& e = events[0];
  EXPECT_EQ(e.tool, "note_add");
  EXPECT_EQ(e.plugin, "notes");
  EXPECT_EQ(e.agent_id, "agent-7");
  EXPECT_EQ(e.session_id, "session-1");
  EXPECT_EQ(e.project_id, "github.com/acme/app");
  EXPECT_EQ(e.outcome, "success");
  EXPECT_DOUBLE_EQ(e.latency_ms, out.latency_ms);
  EXPECT_EQ(e.error, "");
  EXPECT_EQ(e.at_ms, 1'700'000'000'000);
}

TEST_F(RuntimeTest, FailureEventCarriesErrorText) {
  auto rt = Make();
  rt->Start();
  auto& events = Capture(*rt);
  rt->Call("note_fail", json::object(), Agent());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].outcome, "failure");
  EXPECT_EQ(events[0].error, "no such note 01ABC; send an id from note_list");
}

TEST_F(RuntimeTest, OutputSchemaViolationBecomesError) {
  auto rt = Make();
  rt->Start();
  auto out = rt->Call("note_bad_output", json::object(), Agent());
  EXPECT_TRUE(out.result.is_error);
  EXPECT_EQ(out.outcome, "failure");
  EXPECT_EQ(out.result.text, "internal error in note_bad_output: result did not match the declared outputSchema");
}

TEST_F(RuntimeTest, UnknownToolThrows) {
  auto rt = Make();
  rt->Start();
  auto& events = Capture(*rt);
  EXPECT_THROW(rt->Call("note_nope", json::object(), Agent()), UnknownToolError);
  try {
    rt->CallTool("note_nope", json::object());
  } catch (const UnknownToolError& e) {
    EXPECT_STREQ(e.what(), "unknown tool 'note_nope'");
  }
  EXPECT_TRUE(events.empty());
}

TEST_F(RuntimeTest, CancelledCallIsTimeout) {
  auto rt = Make();
  rt->Start();
  std::atomic<bool> cancelled{true};
  auto out = rt->Call("note_watch", json::object(), Agent(), &cancelled);
  EXPECT_EQ(out.result.text, "cancelled");
  EXPECT_EQ(out.outcome, "timeout");
  std::atomic<bool> running{false};
  EXPECT_EQ(rt->Call("note_watch", json::object(), Agent(), &running).outcome, "success");
}

TEST_F(RuntimeTest, HostCallToolOfMissingToolIsErrorResult) {
  auto rt = Make();
  rt->Start();
  auto r = rt->CallTool("note_relay", {{"tool", "memory_recall"}}, Agent());
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(r.structured["inner_is_error"], true);
  EXPECT_EQ(r.structured["has_tool"], false);
  EXPECT_EQ(r.text, "tool 'memory_recall' is not available (its layer is not enabled)");
}

// The inner call reaches the other plugin with the caller; only the client's call is a
// tool.called event (the plugin's call was not the agent's choice of tool).
TEST_F(RuntimeTest, HostCallToolReachesOtherPluginWithCallerAndNoEventOfItsOwn) {
  auto rt = Make(true);
  rt->Start();
  auto& events = Capture(*rt);
  auto r = rt->CallTool("note_relay", {{"tool", "ping_pong"}}, Agent());
  EXPECT_EQ(r.text, "pong for agent-7");
  EXPECT_EQ(r.structured["has_tool"], true);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].tool, "note_relay");
  EXPECT_EQ(events[0].agent_id, "agent-7");
}

TEST_F(RuntimeTest, HostCallToolValidatesArguments) {
  auto rt = Make();
  rt->Start();
  auto r = rt->CallTool("note_relay", {{"tool", "note_add"}, {"args", {{"text", std::string(50, 'x')}}}}, Agent());
  EXPECT_EQ(r.structured["inner_is_error"], true);
  EXPECT_THAT(r.text, HasSubstr("text: too long (50 characters; at most 20)"));
}

// A plugin with one core and one full-profile tool, for server.tools selection.
void RegisterProfiledTools(sdk::Registrar& r) {
  sdk::ToolSpec core;
  core.name = "item_core";
  sdk::ToolSpec rare;
  rare.name = "item_rare";
  rare.profile = sdk::ToolProfile::kFull;
  auto ok = [](const json&, const sdk::CallContext&) { return sdk::ToolResult::Ok("ok"); };
  r.AddTool(core, ok);
  r.AddTool(rare, ok);
}

std::vector<std::string> ListedNames(const Runtime& rt) {
  std::vector<std::string> names;
  for (const auto* t : rt.Tools()) names.push_back(t->spec.name);
  return names;
}

TEST_F(RuntimeTest, ToolSelectionListsTheProfileAndStillRunsUnlistedTools) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  o.tools.profile = sdk::ToolProfile::kCore;
  Runtime rt(o);
  rt.AddPlugin("items", [](sdk::HostServices& h) { return std::make_unique<LambdaPlugin>(h, RegisterProfiledTools); });
  rt.Start();
  EXPECT_THAT(ListedNames(rt), ElementsAre("item_core"));
  EXPECT_EQ(rt.FindTool("item_rare"), nullptr);
  EXPECT_EQ(rt.AllTools().size(), 2u);
  EXPECT_EQ(rt.CallTool("item_rare", json::object()).text, "ok");  // plugins and `kioku call` still reach it
  EXPECT_THAT(rt.UnlistedToolHint("item_rare"), HasSubstr("server.tools.include"));
  EXPECT_THAT(rt.UnlistedToolHint("item_rare"), HasSubstr("kioku call item_rare"));
  EXPECT_EQ(rt.UnlistedToolHint("item_core"), "");  // listed
  EXPECT_EQ(rt.UnlistedToolHint("no_such_tool"), "");
}

TEST_F(RuntimeTest, ToolSelectionIncludeAndExcludeByName) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  o.tools = {sdk::ToolProfile::kCore, {"item_rare"}, {"item_core"}};
  Runtime rt(o);
  rt.AddPlugin("items", [](sdk::HostServices& h) { return std::make_unique<LambdaPlugin>(h, RegisterProfiledTools); });
  rt.Start();
  EXPECT_THAT(ListedNames(rt), ElementsAre("item_rare"));
}

TEST_F(RuntimeTest, ToolSelectionRefusesAnUnknownName) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  o.tools.exclude = {"item_typo"};
  Runtime rt(o);
  rt.AddPlugin("items", [](sdk::HostServices& h) { return std::make_unique<LambdaPlugin>(h, RegisterProfiledTools); });
  EXPECT_EQ(ErrorOf([&] { rt.Start(); }),
            "server.tools.exclude: unknown tool 'item_typo' (no enabled plugin registers it); known tools: "
            "item_core, item_rare");
}

TEST_F(RuntimeTest, ToolsInPluginThenRegistrationOrder) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime rt(o);
  rt.AddPlugin("ping", [](sdk::HostServices& h) { return std::make_unique<PingPlugin>(h); });
  rt.AddPlugin("notes", [](sdk::HostServices& h) { return std::make_unique<NotesPlugin>(h); });
  rt.Start();
  std::vector<std::string> names;
  for (const auto* t : rt.Tools()) names.push_back(t->spec.name);
  EXPECT_THAT(names, ElementsAre("ping_pong", "note_add", "note_fail", "note_crash", "note_bad_output", "note_relay",
                                 "note_watch"));
  ASSERT_NE(rt.FindTool("note_add"), nullptr);
  EXPECT_EQ(rt.FindTool("note_add")->plugin, "notes");
  EXPECT_EQ(rt.FindTool("nope"), nullptr);
  ASSERT_EQ(rt.Commands().size(), 1u);
  EXPECT_EQ(rt.Commands()[0].name, "notes-dump");
  EXPECT_EQ(rt.Plugins()[0], std::make_pair(std::string("ping"), std::string("builtin")));
}

TEST_F(RuntimeTest, InvalidToolNameRefused) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  for (const std::string& bad : std::vector<std::string>{"Memory_Recall", "memory.recall", "9tools", std::string(49, 'a')}) {
    Runtime rt(o);
    rt.AddPlugin("lam", [bad](sdk::HostServices& h) {
      return std::make_unique<LambdaPlugin>(h, [bad](sdk::Registrar& r) {
        sdk::ToolSpec s;
        s.name = bad;
        r.AddTool(s, [](const json&, const sdk::CallContext&) { return sdk::ToolResult::Ok(""); });
      });
    });
    EXPECT_THAT(ErrorOf([&] { rt.Start(); }), StartsWith("tool name '" + bad + "' is invalid")) << bad;
  }
}

TEST_F(RuntimeTest, MalformedToolSchemaRefusedNamingToolAndPlugin) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime rt(o);
  rt.AddPlugin("lam", [](sdk::HostServices& h) {
    return std::make_unique<LambdaPlugin>(h, [](sdk::Registrar& r) {
      sdk::ToolSpec s;
      s.name = "lam_bad";
      s.input_schema = {{"type", "object"}, {"properties", {{"x", {{"type", 7}}}}}};
      r.AddTool(s, [](const json&, const sdk::CallContext&) { return sdk::ToolResult::Ok(""); });
    });
  });
  EXPECT_THAT(ErrorOf([&] { rt.Start(); }), StartsWith("tool 'lam_bad' of plugin 'lam': invalid JSON Schema"));
}

TEST_F(RuntimeTest, OneShotCompilesASchemaWhenItsToolIsFirstCalled) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  o.one_shot = true;
  Runtime rt(o);
  rt.AddPlugin("lam", [](sdk::HostServices& h) {
    return std::make_unique<LambdaPlugin>(h, [](sdk::Registrar& r) {
      sdk::ToolSpec bad;
      bad.name = "lam_bad";
      bad.input_schema = {{"type", "object"}, {"properties", {{"x", {{"type", 7}}}}}};
      r.AddTool(bad, [](const json&, const sdk::CallContext&) { return sdk::ToolResult::Ok(""); });
      sdk::ToolSpec good;
      good.name = "lam_good";
      good.input_schema = {{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}};
      r.AddTool(good, [](const json&, const sdk::CallContext&) { return sdk::ToolResult::Ok("ok"); });
    });
  });
  EXPECT_NO_THROW(rt.Start());  // nothing compiled yet
  const auto bad = rt.CallTool("lam_bad", json::object());
  EXPECT_TRUE(bad.is_error);
  EXPECT_THAT(bad.text, HasSubstr("tool 'lam_bad' of plugin 'lam': invalid JSON Schema"));
  EXPECT_TRUE(rt.CallTool("lam_bad", json::object()).is_error);  // every call, not only the first
  EXPECT_EQ(rt.CallTool("lam_good", json{{"x", 1}}).text, "ok");
  EXPECT_THAT(rt.CallTool("lam_good", json{{"x", "one"}}).text, HasSubstr("invalid arguments for lam_good"));
}

// sdk::ToolSpec::schemas: a one-shot process builds the schemas of the tool it calls only;
// a server builds them all when the plugin registers; every reader sees them built.
TEST_F(RuntimeTest, SchemasHookRunsWhenFirstNeededAndOnlyOnce) {
  for (const bool one_shot : {true, false}) {
    SCOPED_TRACE(one_shot ? "one-shot" : "server");
    TempDir dir;
    RuntimeOptions o;
    o.data_dir = dir.path();
    o.one_shot = one_shot;
    Runtime rt(o);
    auto built = std::make_shared<std::vector<std::string>>();
    rt.AddPlugin("lam", [built](sdk::HostServices& h) {
      return std::make_unique<LambdaPlugin>(h, [built](sdk::Registrar& r) {
        for (const char* name : {"lam_a", "lam_b"}) {
          sdk::ToolSpec s;
          s.name = name;
          s.schemas = [built, name = std::string(name)](sdk::ToolSpec& spec) {
            built->push_back(name);
            spec.input_schema = {{"type", "object"},
                                 {"properties", {{"n", {{"type", "integer"}}}}},
                                 {"required", {"n"}},
                                 {"additionalProperties", false}};
            spec.output_schema = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};
          };
          r.AddTool(s, [](const json& args, const sdk::CallContext&) {
            return sdk::ToolResult::Ok("ok", json{{"n", args.at("n")}});
          });
        }
      });
    });
    rt.Start();
    EXPECT_EQ(built->size(), one_shot ? 0u : 2u);
    EXPECT_THAT(rt.CallTool("lam_a", json::object()).text, HasSubstr("invalid arguments for lam_a"));
    EXPECT_EQ(rt.CallTool("lam_a", json{{"n", 3}}).text, "ok");
    const std::vector<std::string> expected =
        one_shot ? std::vector<std::string>{"lam_a"} : std::vector<std::string>{"lam_a", "lam_b"};
    EXPECT_EQ(*built, expected);
    const RegisteredTool* b = rt.FindTool("lam_b");  // a reader of the spec sees it built
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->spec.input_schema.at("required"), json::array({"n"}));
    EXPECT_FALSE(b->spec.output_schema.is_null());
    for (const auto* t : rt.Tools()) EXPECT_FALSE(t->spec.schemas) << t->spec.name;
    EXPECT_EQ(built->size(), 2u);
  }
}

TEST_F(RuntimeTest, SchemasHookThatThrowsNamesTheTool) {
  const auto make = [](Runtime& rt) {
    rt.AddPlugin("lam", [](sdk::HostServices& h) {
      return std::make_unique<LambdaPlugin>(h, [](sdk::Registrar& r) {
        sdk::ToolSpec s;
        s.name = "lam_broken";
        s.schemas = [](sdk::ToolSpec&) { throw std::runtime_error("no such kind list"); };
        r.AddTool(s, [](const json&, const sdk::CallContext&) { return sdk::ToolResult::Ok(""); });
      });
    });
  };
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime server(o);
  make(server);
  EXPECT_EQ(ErrorOf([&] { server.Start(); }),
            "tool 'lam_broken' of plugin 'lam': building its schemas threw: no such kind list");
  TempDir other;
  o.data_dir = other.path();
  o.one_shot = true;
  Runtime one_shot(o);
  make(one_shot);
  EXPECT_NO_THROW(one_shot.Start());
  const auto r = one_shot.CallTool("lam_broken", json::object());
  EXPECT_TRUE(r.is_error);
  EXPECT_THAT(r.text, HasSubstr("tool 'lam_broken' of plugin 'lam': building its schemas threw: no such kind list"));
}

TEST_F(RuntimeTest, DuplicateCommandRefused) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime rt(o);
  auto reg = [](sdk::Registrar& r) { r.AddCommand({"same", "", "", [](auto&, auto&, auto&, auto&) { return 0; }}); };
  rt.AddPlugin("a", [reg](sdk::HostServices& h) { return std::make_unique<LambdaPlugin>(h, reg); });
  rt.AddPlugin("b", [reg](sdk::HostServices& h) { return std::make_unique<LambdaPlugin>(h, reg); });
  EXPECT_EQ(ErrorOf([&] { rt.Start(); }), "duplicate command 'same' from plugin 'b'");
}

TEST_F(RuntimeTest, PluginAddedTwiceRefused) {
  auto rt = Make();
  EXPECT_EQ(ErrorOf([&] { rt->AddPlugin("notes", [](sdk::HostServices& h) { return std::make_unique<PingPlugin>(h); }); }),
            "plugin 'notes' added twice");
}

TEST_F(RuntimeTest, StopStopsPluginsAndDropsTools) {
  auto rt = Make();
  rt->Start();
  rt->Stop();
  EXPECT_TRUE(notes_->stopped.load());
  EXPECT_TRUE(rt->Tools().empty());
  EXPECT_THROW(rt->Call("note_add", {{"text", "x"}}, Agent()), UnknownToolError);
  rt->Stop();  // idempotent
}

TEST_F(RuntimeTest, FixtureModuleThroughLoadPlugin) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  o.clock = clock_;
  Runtime rt(o);
  rt.LoadPlugin("fixture", FixtureModule("fixture"), {{"greeting", "hey "}});
  rt.Start();
  EXPECT_EQ(AppliedVersion(rt.Db(), "fixture"), 1);
  auto r = rt.CallTool("echo_say", {{"text", "ab"}, {"times", 2}}, Agent());
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured, json({{"echo", "hey abab"}, {"agent_id", "agent-7"}, {"stored", 1}}));
  EXPECT_EQ(rt.CallTool("echo_say", {{"text", "x"}, {"times", 6}}, Agent()).text,
            "invalid arguments for echo_say: times: expected integer between 1 and 5, got 6. See the tool's "
            "inputSchema (tools/list) for the expected shape.");
}

// A tool that calls itself through HostServices::CallTool.
class LoopPlugin final : public sdk::Plugin {
 public:
  explicit LoopPlugin(sdk::HostServices& host) : host_(host) {}
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec loop;
    loop.name = "loop_call";
    loop.description = "Calls itself.";
    r.AddTool(loop, [this](const json&, const sdk::CallContext& ctx) {
      ++runs;
      auto inner = host_.CallTool("loop_call", json::object(), ctx.caller);
      return inner.is_error ? sdk::ToolResult::Error(inner.text) : inner;
    });
  }
  static inline std::atomic<int> runs{0};

 private:
  sdk::HostServices& host_;
};

TEST_F(RuntimeTest, CallCycleThroughHostIsCutOff) {
  RuntimeOptions o;
  o.data_dir = dir_.path();
  Runtime rt(o);
  rt.AddPlugin("loop", [](sdk::HostServices& h) { return std::make_unique<LoopPlugin>(h); });
  rt.Start();
  auto& events = Capture(rt);
  LoopPlugin::runs = 0;
  auto r = rt.CallTool("loop_call", json::object());
  EXPECT_TRUE(r.is_error);
  EXPECT_THAT(r.text, HasSubstr("tool calls nested deeper than 8 levels"));
  EXPECT_EQ(LoopPlugin::runs.load(), 9);
  // Only the client's call is an event: the eight the plugin made are not the agent's.
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].tool, "loop_call");
  EXPECT_EQ(events[0].outcome, "failure");
  // The depth unwinds: a second call gets just as far.
  LoopPlugin::runs = 0;
  rt.CallTool("loop_call", json::object());
  EXPECT_EQ(LoopPlugin::runs.load(), 9);
}

TEST_F(RuntimeTest, ThrowingSubscriberDoesNotAffectTheCall) {
  auto rt = Make(true);
  rt->Start();
  rt->Events().Subscribe(sdk::kToolCalledTopic, [](const sdk::Event&) { throw std::runtime_error("subscriber bug"); });
  auto& events = Capture(*rt);
  auto r = rt->CallTool("ping_pong", json::object(), Agent());
  EXPECT_EQ(r.text, "pong for agent-7");
  EXPECT_EQ(events.size(), 1u);  // later subscribers still run
}

TEST_F(RuntimeTest, SubscriberMayCallToolsAndSubscribe) {
  auto rt = Make(true);
  rt->Start();
  std::vector<std::string> seen;
  Runtime* raw = rt.get();
  rt->Events().Subscribe("*", [&seen, raw](const sdk::Event& e) {
    auto tool = e.payload.value("tool", std::string());
    seen.push_back(tool);
    if (tool == "note_watch") {
      raw->CallTool("ping_pong", json::object());  // publishes again from inside a handler
      raw->Events().Subscribe("other", [](const sdk::Event&) {});
    }
  });
  rt->CallTool("note_watch", json::object(), Agent());
  EXPECT_THAT(seen, ElementsAre("note_watch", "ping_pong"));
}

TEST(RuntimeOptionsTest, DataDirCreatedPrivate) {
  TempDir dir;
  RuntimeOptions o;
  o.data_dir = dir.path() / "nested" / "home";
  Runtime rt(o);
  EXPECT_TRUE(std::filesystem::is_directory(o.data_dir));
  auto perms = std::filesystem::status(o.data_dir).permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all, std::filesystem::perms::owner_all);
  EXPECT_EQ(rt.Options().db_path, o.data_dir / "kioku.db");
}

TEST(RuntimeOptionsTest, MissingDataDirRefused) {
  EXPECT_THROW(Runtime(RuntimeOptions{}), std::runtime_error);
}

}  // namespace
}  // namespace kioku::host
