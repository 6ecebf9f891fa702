// MCP dispatcher: both protocol eras, JSON-RPC faults, pagination, tool calls, cancellation
// and caller identity. Results are checked against the MCP reference schemas where the
// shapes are cheap to check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <thread>

#include "gate_plugin.hpp"
#include "host_test_util.hpp"
#include "json_schema.hpp"
#include "kioku/sdk/events.hpp"
#include "kioku/sdk/text.hpp"
#include "mcp/dispatcher.hpp"
#include "runtime.hpp"

namespace kioku::host::mcp {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::FixtureModule;
using testing::Gate;
using testing::GatePlugin;
using testing::TempDir;

constexpr const char* kVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kCapsKey = "io.modelcontextprotocol/clientCapabilities";

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RuntimeOptions o;
    o.data_dir = dir_.path();
    o.clock = std::make_shared<sdk::ManualClock>(1'700'000'000'000);
    runtime_ = std::make_unique<Runtime>(o);
    runtime_->LoadPlugin("fixture", FixtureModule("fixture"));
    runtime_->AddPlugin("gate", [this](sdk::HostServices& h) { return std::make_unique<GatePlugin>(h, gate_); });
    runtime_->Start();
    runtime_->Events().Subscribe(sdk::kToolCalledTopic, [this](const sdk::Event& e) {
      std::lock_guard lock(mutex_);
      events_.push_back(sdk::ToolCallEvent::FromJson(e.payload));
    });
    DispatcherOptions d;
    d.server_name = "kioku";
    d.server_version = "9.9.9";
    d.instructions = "Use echo_say to repeat text.";
    d.json_text_block = true;  // the copy is off by default; these tests cover it on
    dispatcher_ = std::make_unique<Dispatcher>(*runtime_, d);
    session_.id = "sess-1";
  }

  json Request(const std::string& method, json params = json::object(), json id = 1) {
    json m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) m["params"] = std::move(params);
    return m;
  }
  static json Modern(json params = json::object()) {
    params["_meta"][kVersionKey] = kModernVersion;
    params["_meta"][kCapsKey] = json::object();
    return params;
  }
  json Send(const json& message) {
    auto r = dispatcher_->Handle(message, session_);
    EXPECT_TRUE(r.has_value()) << message.dump();
    return r.value_or(json());
  }
  json Call(const std::string& tool, json args, json id = 1) {
    return Send(Request("tools/call", {{"name", tool}, {"arguments", std::move(args)}}, std::move(id)));
  }
  static int Code(const json& response) { return response.at("error").at("code").get<int>(); }

  TempDir dir_;
  Gate gate_;
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<Dispatcher> dispatcher_;
  Session session_;
  std::mutex mutex_;
  std::vector<sdk::ToolCallEvent> events_;
};

// --- reference schemas ------------------------------------------------------------------

std::filesystem::path SchemaDir() {
  return std::filesystem::path(KIOKU_MCP_SCHEMA_DIR);
}

// A validator for one definition of an MCP reference schema: {"$ref": "#/$defs/<name>"}
// next to the file's $defs (valijson resolves the JSON pointer; draft 2020-12 keywords the
// MCP schema uses here are the draft-7 subset).
JsonSchema ReferenceSchema(const std::string& file, const std::string& name) {
  std::ifstream in(SchemaDir() / file);
  json doc = json::parse(in);
  return JsonSchema(json{{"$ref", "#/$defs/" + name}, {"$defs", doc.at("$defs")}});
}

TEST(ReferenceSchemaTest, RejectsWhatTheSpecRejects) {
  // Guards the schema checks below: the $ref into $defs must really validate.
  auto discover = ReferenceSchema("mcp-schema-2026-07-28.json", "DiscoverResult");
  auto v = discover.Validate({{"supportedVersions", {"2026-07-28"}}, {"capabilities", json::object()},
                              {"resultType", "complete"}, {"cacheScope", "shared"}});
  EXPECT_THAT(v, ::testing::Contains(HasSubstr("missing required field \"ttlMs\"")));
  EXPECT_THAT(v, ::testing::Contains(HasSubstr("cacheScope: expected one of \"private\", \"public\"")));
  auto call = ReferenceSchema("mcp-schema-2025-11-25.json", "CallToolResult");
  EXPECT_FALSE(call.Validate({{"content", {{{"type", "text"}}}}}).empty());  // text block without text
}

// --- legacy lifecycle --------------------------------------------------------------------

TEST_F(DispatcherTest, InitializeEchoesEachSupportedVersion) {
  for (const std::string version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    Session s;
    auto r = dispatcher_->Handle(
        Request("initialize", {{"protocolVersion", version}, {"capabilities", json::object()},
                               {"clientInfo", {{"name", "claude-code"}, {"version", "1"}}}}),
        s);
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)["result"]["protocolVersion"], version);
    EXPECT_EQ(s.protocol_version, version);
    EXPECT_EQ(s.client_name, "claude-code");
  }
}

TEST_F(DispatcherTest, InitializeUnknownVersionAnswersLatestLegacy) {
  auto r = Send(Request("initialize", {{"protocolVersion", "1999-01-01"}, {"capabilities", json::object()}}));
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-11-25");
  auto missing = Send(Request("initialize", json::object(), 2));
  EXPECT_EQ(missing["result"]["protocolVersion"], "2025-11-25");
  auto wrong_type = Send(Request("initialize", {{"protocolVersion", 20251125}}, 3));
  EXPECT_EQ(wrong_type["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(DispatcherTest, InitializeResultShape) {
  auto r = Send(Request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()},
                                       {"clientInfo", {{"name", "c"}, {"version", "1"}}}}));
  EXPECT_EQ(r["jsonrpc"], "2.0");
  EXPECT_EQ(r["id"], 1);
  const auto& result = r["result"];
  EXPECT_TRUE(result["capabilities"].contains("tools"));
  EXPECT_EQ(result["serverInfo"], json({{"name", "kioku"}, {"version", "9.9.9"}}));
  EXPECT_EQ(result["instructions"], "Use echo_say to repeat text.");
  EXPECT_FALSE(result.contains("resultType"));  // legacy results carry no modern fields
  auto v = ReferenceSchema("mcp-schema-2025-11-25.json", "InitializeResult").Validate(result);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
}

TEST_F(DispatcherTest, PingAnswersEmptyResult) {
  auto r = Send(Request("ping", nullptr, "p-1"));
  EXPECT_EQ(r, json({{"jsonrpc", "2.0"}, {"id", "p-1"}, {"result", json::object()}}));
}

TEST_F(DispatcherTest, NotificationsGetNoResponse) {
  EXPECT_FALSE(dispatcher_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, session_));
  EXPECT_FALSE(dispatcher_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/unknown"}}, session_));
  EXPECT_FALSE(dispatcher_->Handle(
      {{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 99}}}}, session_));
  EXPECT_FALSE(dispatcher_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", 5}}, session_));
}

TEST_F(DispatcherTest, ClientResponsesIgnored) {
  EXPECT_FALSE(dispatcher_->Handle({{"jsonrpc", "2.0"}, {"id", 4}, {"result", json::object()}}, session_));
  EXPECT_FALSE(dispatcher_->Handle({{"jsonrpc", "2.0"}, {"id", 4}, {"error", {{"code", 1}, {"message", "x"}}}},
                                   session_));
}

// --- JSON-RPC faults ---------------------------------------------------------------------

TEST_F(DispatcherTest, ArrayIsInvalidRequest) {
  auto r = Send(json::array({Request("ping")}));
  EXPECT_EQ(Code(r), kInvalidRequest);
  EXPECT_TRUE(r["id"].is_null());
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("batches are not supported"));
  EXPECT_EQ(Code(Send(json("ping"))), kInvalidRequest);
  EXPECT_EQ(Code(Send(json(42))), kInvalidRequest);
}

TEST_F(DispatcherTest, MissingOrWrongJsonrpcIsInvalidRequest) {
  auto r = Send({{"id", 3}, {"method", "ping"}});
  EXPECT_EQ(Code(r), kInvalidRequest);
  EXPECT_EQ(r["id"], 3);
  EXPECT_EQ(Code(Send({{"jsonrpc", "1.0"}, {"id", 3}, {"method", "ping"}})), kInvalidRequest);
  EXPECT_EQ(Code(Send({{"jsonrpc", 2.0}, {"id", 3}, {"method", "ping"}})), kInvalidRequest);
}

TEST_F(DispatcherTest, BadIdTypeIsInvalidRequestWithNullId) {
  for (const json& id : {json(1.5), json(true), json::object(), json::array()}) {
    auto r = Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}});
    EXPECT_EQ(Code(r), kInvalidRequest) << id.dump();
    EXPECT_TRUE(r["id"].is_null()) << id.dump();
  }
}

TEST_F(DispatcherTest, MethodMustBeAString) {
  auto r = Send({{"jsonrpc", "2.0"}, {"id", 8}, {"method", 12}});
  EXPECT_EQ(Code(r), kInvalidRequest);
  EXPECT_EQ(r["id"], 8);
  auto missing = Send({{"jsonrpc", "2.0"}, {"id", 9}});
  EXPECT_EQ(Code(missing), kInvalidRequest);
  EXPECT_EQ(missing["id"], 9);
}

TEST_F(DispatcherTest, UnknownMethodIsMethodNotFound) {
  auto r = Send(Request("resources/list", json::object(), 5));
  EXPECT_EQ(Code(r), kMethodNotFound);
  EXPECT_EQ(r["id"], 5);
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("resources/list"));
}

TEST_F(DispatcherTest, ParamsMustBeAnObject) {
  EXPECT_EQ(Code(Send(Request("tools/list", json::array()))), kInvalidParams);
  EXPECT_EQ(Code(Send(Request("tools/call", "echo_say"))), kInvalidParams);
}

TEST_F(DispatcherTest, HandleTextParseErrors) {
  auto r = json::parse(dispatcher_->HandleText("{\"jsonrpc\": \"2.0\", ", session_));
  EXPECT_EQ(Code(r), kParseError);
  EXPECT_TRUE(r["id"].is_null());
  auto utf8 = dispatcher_->HandleText("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\"}", session_);
  EXPECT_TRUE(sdk::IsValidUtf8(utf8));
  EXPECT_EQ(Code(json::parse(utf8)), kParseError);
  EXPECT_EQ(dispatcher_->HandleText(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", session_), "");
  EXPECT_EQ(json::parse(dispatcher_->HandleText(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", session_))["result"],
            json::object());
}

TEST_F(DispatcherTest, DeepNestingIsParseErrorNotACrash) {
  const std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_say","arguments":{"text":)" +
                           std::string(1'000'000, '[') + std::string(1'000'000, ']') + "}}}";
  auto r = json::parse(dispatcher_->HandleText(deep, session_));
  EXPECT_EQ(Code(r), kParseError);
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("nesting deeper than"));
  // Brackets inside strings do not count.
  auto in_string = json::parse(dispatcher_->HandleText(
      Request("tools/call", {{"name", "echo_say"}, {"arguments", {{"text", std::string(500, '[')}}}}).dump(), session_));
  EXPECT_EQ(in_string["result"]["structuredContent"]["echo"], std::string(500, '['));
  // Moderate nesting is fine and reaches the schema check.
  json nested = "x";
  for (int i = 0; i < 40; ++i) nested = json::array({nested});
  auto moderate = json::parse(dispatcher_->HandleText(
      Request("tools/call", {{"name", "echo_say"}, {"arguments", {{"text", nested}}}}).dump(), session_));
  EXPECT_EQ(moderate["result"]["isError"], true);
}

TEST_F(DispatcherTest, NumberOutOfRangeIsParseError) {
  auto r = json::parse(dispatcher_->HandleText(R"({"jsonrpc":"2.0","id":1e400,"method":"ping"})", session_));
  EXPECT_EQ(Code(r), kParseError);
}

// --- tools/list --------------------------------------------------------------------------

std::vector<std::string> Names(const json& list_result) {
  std::vector<std::string> names;
  for (const auto& t : list_result["tools"]) names.push_back(t["name"]);
  return names;
}

TEST_F(DispatcherTest, ToolsListDeterministic) {
  auto a = Send(Request("tools/list"));
  auto b = Send(Request("tools/list"));
  EXPECT_EQ(a, b);
  EXPECT_THAT(Names(a["result"]), ElementsAre("echo_say", "echo_fail", "echo_bytes", "echo_wait", "gate_wait"));
  EXPECT_FALSE(a["result"].contains("nextCursor"));
  EXPECT_FALSE(a["result"].contains("ttlMs"));
  const auto& say = a["result"]["tools"][0];
  EXPECT_EQ(say["title"], "Echo");
  EXPECT_EQ(say["inputSchema"]["required"], json::array({"text"}));
  EXPECT_TRUE(say.contains("outputSchema"));
  EXPECT_EQ(say["annotations"]["idempotentHint"], true);
  EXPECT_EQ(say["annotations"]["openWorldHint"], false);
  EXPECT_FALSE(a["result"]["tools"][1].contains("outputSchema"));
  auto v = ReferenceSchema("mcp-schema-2025-11-25.json", "ListToolsResult").Validate(a["result"]);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
}

TEST_F(DispatcherTest, ToolsListCursorPagination) {
  DispatcherOptions o = dispatcher_->Options();
  o.page_size = 2;
  Dispatcher paged(*runtime_, o);
  std::vector<std::string> all;
  json cursor = nullptr;
  int pages = 0;
  do {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    auto r = paged.Handle(Request("tools/list", params), session_);
    ASSERT_TRUE(r && r->contains("result")) << r->dump();
    for (const auto& n : Names((*r)["result"])) all.push_back(n);
    EXPECT_LE((*r)["result"]["tools"].size(), 2u);
    cursor = (*r)["result"].value("nextCursor", json());
    ++pages;
  } while (!cursor.is_null() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(all, ElementsAre("echo_say", "echo_fail", "echo_bytes", "echo_wait", "gate_wait"));
}

TEST_F(DispatcherTest, InvalidCursorIsInvalidParams) {
  for (const json& cursor : {json("garbage"), json("t:99"), json("t:"), json("t:-1"), json(5), json("t:99999999999999")}) {
    auto r = Send(Request("tools/list", {{"cursor", cursor}}));
    ASSERT_TRUE(r.contains("error")) << cursor.dump();
    EXPECT_EQ(Code(r), kInvalidParams) << cursor.dump();
  }
  EXPECT_TRUE(Send(Request("tools/list", {{"cursor", nullptr}})).contains("result"));
}

// --- tools/call --------------------------------------------------------------------------

TEST_F(DispatcherTest, CallSuccessHasStructuredContentAndJsonTextBlock) {
  auto r = Call("echo_say", {{"text", "hi"}});
  const auto& result = r["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["echo"], "hi");
  ASSERT_EQ(result["content"].size(), 2u);
  EXPECT_EQ(result["content"][0], json({{"type", "text"}, {"text", "hi"}}));
  EXPECT_EQ(json::parse(result["content"][1]["text"].get<std::string>()), result["structuredContent"]);
  auto v = ReferenceSchema("mcp-schema-2025-11-25.json", "CallToolResult").Validate(result);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
}

TEST_F(DispatcherTest, CallWithoutJsonTextBlockByDefault) {
  DispatcherOptions o;
  EXPECT_FALSE(o.json_text_block);
  Dispatcher d(*runtime_, o);
  auto r = d.Handle(Request("tools/call", {{"name", "echo_say"}, {"arguments", {{"text", "hi"}}}}), session_);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["result"]["content"].size(), 1u);
  EXPECT_TRUE((*r)["result"].contains("structuredContent"));
}

TEST_F(DispatcherTest, CallToolErrorIsIsErrorResult) {
  auto r = Call("echo_fail", json::object());
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["content"][0]["text"], "echo_fail always fails; send nothing");
  EXPECT_FALSE(r["result"].contains("structuredContent"));
}

TEST_F(DispatcherTest, CallSchemaViolationIsIsErrorNamingTheField) {
  auto r = Call("echo_say", {{"text", 5}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_THAT(r["result"]["content"][0]["text"].get<std::string>(),
              HasSubstr("text: expected string (at most 1000 characters), got number 5"));
  auto missing = Call("echo_say", json::object());
  EXPECT_THAT(missing["result"]["content"][0]["text"].get<std::string>(),
              HasSubstr("(root): missing required field \"text\""));
}

TEST_F(DispatcherTest, CallWithoutArgumentsUsesEmptyObject) {
  EXPECT_EQ(Send(Request("tools/call", {{"name", "echo_bytes"}}))["result"]["isError"], false);
  EXPECT_EQ(Send(Request("tools/call", {{"name", "echo_bytes"}, {"arguments", nullptr}}))["result"]["isError"], false);
}

TEST_F(DispatcherTest, CallUnknownToolIsInvalidParams) {
  auto r = Call("memory_nope", json::object(), 12);
  EXPECT_EQ(Code(r), kInvalidParams);
  EXPECT_EQ(r["id"], 12);
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("memory_nope"));
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("tools/list shows the available tools"));
  std::lock_guard lock(mutex_);
  EXPECT_TRUE(events_.empty());
}

TEST(DispatcherSelectionTest, CallOfAnUnlistedToolSaysHowToEnableIt) {
  TempDir dir;
  RuntimeOptions o;
  o.data_dir = dir.path();
  o.tools.exclude = {"echo_say"};
  Runtime runtime(o);
  runtime.LoadPlugin("fixture", FixtureModule("fixture"));
  runtime.Start();
  Dispatcher dispatcher(runtime, {});
  Session session;
  json call{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "echo_say"}}}};
  auto r = dispatcher.Handle(call, session);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["error"]["code"], kInvalidParams);
  const std::string message = (*r)["error"]["message"];
  EXPECT_THAT(message, StartsWith("Unknown tool: echo_say; echo_say is registered but not enabled"));
  EXPECT_THAT(message, HasSubstr("server.tools.include"));
}

TEST_F(DispatcherTest, CallArgumentsNotAnObjectIsInvalidParams) {
  EXPECT_EQ(Code(Call("echo_say", json::array({"hi"}))), kInvalidParams);
  EXPECT_EQ(Code(Call("echo_say", "hi")), kInvalidParams);
}

TEST_F(DispatcherTest, CallMissingNameIsInvalidParams) {
  EXPECT_EQ(Code(Send(Request("tools/call", {{"arguments", json::object()}}))), kInvalidParams);
  EXPECT_EQ(Code(Send(Request("tools/call", {{"name", 7}}))), kInvalidParams);
}

TEST_F(DispatcherTest, InvalidUtf8InToolOutputIsReplaced) {
  auto r = Call("echo_bytes", json::object());
  std::string line;
  ASSERT_NO_THROW(line = sdk::DumpJson(r));
  EXPECT_TRUE(sdk::IsValidUtf8(line));
  EXPECT_THAT(line, HasSubstr("bad \xef\xbf\xbd"));
  auto text = dispatcher_->HandleText(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo_bytes"}})",
                                      session_);
  EXPECT_TRUE(sdk::IsValidUtf8(text));
}

TEST_F(DispatcherTest, CallPublishesEventWithSessionAndAgent) {
  session_.base_caller.agent_id = "agent-x";
  Call("echo_say", {{"text", "a"}});
  std::lock_guard lock(mutex_);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].tool, "echo_say");
  EXPECT_EQ(events_[0].plugin, "fixture");
  EXPECT_EQ(events_[0].agent_id, "agent-x");
  EXPECT_EQ(events_[0].session_id, "sess-1");
  EXPECT_EQ(events_[0].outcome, "success");
}

// --- agent identity ----------------------------------------------------------------------

std::string AgentOf(const json& call_response) {
  return call_response["result"]["structuredContent"]["agent_id"];
}

TEST_F(DispatcherTest, AgentIdFromBaseCallerWinsOverClientInfo) {
  session_.base_caller.agent_id = "token-agent";
  Send(Request("initialize", {{"protocolVersion", "2025-11-25"}, {"clientInfo", {{"name", "claude-code"}}}}));
  EXPECT_EQ(AgentOf(Call("echo_say", {{"text", "a"}})), "token-agent");
}

TEST_F(DispatcherTest, ClientInfoFillsEmptyAgentId) {
  Send(Request("initialize", {{"protocolVersion", "2025-11-25"}, {"clientInfo", {{"name", "claude-code"}}}}));
  EXPECT_EQ(AgentOf(Call("echo_say", {{"text", "a"}})), "claude-code");
}

TEST_F(DispatcherTest, AgentIdUnknownWithoutAnySource) {
  EXPECT_EQ(AgentOf(Call("echo_say", {{"text", "a"}})), "unknown");
}

TEST_F(DispatcherTest, ModernClientInfoFillsEmptyAgentId) {
  auto params = Modern({{"name", "echo_say"}, {"arguments", {{"text", "a"}}}});
  params["_meta"]["io.modelcontextprotocol/clientInfo"] = {{"name", "codex"}, {"version", "1"}};
  EXPECT_EQ(AgentOf(Send(Request("tools/call", params))), "codex");
  session_.base_caller.agent_id = "env-agent";
  EXPECT_EQ(AgentOf(Send(Request("tools/call", params))), "env-agent");
}

// --- modern era (2026-07-28) -------------------------------------------------------------

TEST_F(DispatcherTest, DiscoverFields) {
  auto r = Send(Request("server/discover", Modern()));
  const auto& result = r["result"];
  EXPECT_THAT(result["supportedVersions"].get<std::vector<std::string>>(),
              ElementsAre("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"));
  EXPECT_TRUE(result["capabilities"].contains("tools"));
  EXPECT_EQ(result["instructions"], "Use echo_say to repeat text.");
  EXPECT_EQ(result["ttlMs"], 300000);
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/serverInfo"], json({{"name", "kioku"}, {"version", "9.9.9"}}));
  auto v = ReferenceSchema("mcp-schema-2026-07-28.json", "DiscoverResult").Validate(result);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
  auto response = ReferenceSchema("mcp-schema-2026-07-28.json", "DiscoverResultResponse").Validate(r);
  EXPECT_TRUE(response.empty()) << JoinViolations(response);
}

TEST_F(DispatcherTest, ModernToolsListIsCacheable) {
  auto r = Send(Request("tools/list", Modern()));
  const auto& result = r["result"];
  EXPECT_EQ(result["ttlMs"], 300000);
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["tools"].size(), 5u);
  auto v = ReferenceSchema("mcp-schema-2026-07-28.json", "ListToolsResult").Validate(result);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
}

TEST_F(DispatcherTest, ModernToolsCallHasResultType) {
  auto r = Send(Request("tools/call", Modern({{"name", "echo_say"}, {"arguments", {{"text", "m"}}}})));
  EXPECT_EQ(r["result"]["resultType"], "complete");
  EXPECT_EQ(r["result"]["structuredContent"]["echo"], "m");
  auto v = ReferenceSchema("mcp-schema-2026-07-28.json", "CallToolResult").Validate(r["result"]);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
  auto error = Send(Request("tools/call", Modern({{"name", "echo_fail"}})));
  EXPECT_EQ(error["result"]["isError"], true);
  EXPECT_EQ(error["result"]["resultType"], "complete");
}

TEST_F(DispatcherTest, ModernPingIsMethodNotFound) {
  auto r = Send(Request("ping", Modern()));
  EXPECT_EQ(Code(r), kMethodNotFound);  // 2026-07-28 removed ping
}

TEST_F(DispatcherTest, UnsupportedVersionIs32022WithSupportedList) {
  auto params = Modern();
  params["_meta"][kVersionKey] = "2099-01-01";
  auto r = Send(Request("tools/list", params, 17));
  EXPECT_EQ(Code(r), kUnsupportedProtocolVersion);
  EXPECT_EQ(r["id"], 17);
  EXPECT_EQ(r["error"]["data"]["requested"], "2099-01-01");
  EXPECT_THAT(r["error"]["data"]["supported"].get<std::vector<std::string>>(), ::testing::Contains("2026-07-28"));
  auto v = ReferenceSchema("mcp-schema-2026-07-28.json", "UnsupportedProtocolVersionError").Validate(r);
  EXPECT_TRUE(v.empty()) << JoinViolations(v);
}

TEST_F(DispatcherTest, LegacyVersionInModernMetaIsUnsupported) {
  auto params = Modern();
  params["_meta"][kVersionKey] = "2025-11-25";
  EXPECT_EQ(Code(Send(Request("server/discover", params))), kUnsupportedProtocolVersion);
}

TEST_F(DispatcherTest, MissingClientCapabilitiesIsInvalidParams) {
  json params{{"_meta", {{kVersionKey, kModernVersion}}}};
  auto r = Send(Request("tools/list", params));
  EXPECT_EQ(Code(r), kInvalidParams);
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr(kCapsKey));
  params["_meta"][kCapsKey] = "none";
  EXPECT_EQ(Code(Send(Request("tools/list", params))), kInvalidParams);
}

TEST_F(DispatcherTest, NonStringVersionIsInvalidParams) {
  json params{{"_meta", {{kVersionKey, 20260728}, {kCapsKey, json::object()}}}};
  EXPECT_EQ(Code(Send(Request("tools/list", params))), kInvalidParams);
}

TEST_F(DispatcherTest, InitializeWithModernMetaRefused) {
  auto r = Send(Request("initialize", Modern({{"protocolVersion", "2026-07-28"}})));
  ASSERT_TRUE(r.contains("error"));
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("server/discover"));
  EXPECT_TRUE(session_.protocol_version.empty());
}

TEST_F(DispatcherTest, ModernErrorsCarryNoResultFields) {
  auto r = Send(Request("nope/nope", Modern()));
  EXPECT_EQ(Code(r), kMethodNotFound);
  EXPECT_FALSE(r.contains("result"));
}

// --- cancellation ------------------------------------------------------------------------

TEST_F(DispatcherTest, CancelledCallReturnsNoResponseAndHandlerSeesIt) {
  auto started = gate_.started.get_future();
  auto pending = std::async(std::launch::async, [&] { return dispatcher_->Handle(Request("tools/call", {{"name", "gate_wait"}}, 42), session_); });
  started.wait();  // the handler is running
  EXPECT_FALSE(dispatcher_->Handle(
      {{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 42}, {"reason", "user"}}}},
      session_));
  EXPECT_EQ(pending.get(), std::nullopt);
  EXPECT_TRUE(gate_.saw_cancel.load());
  std::lock_guard lock(mutex_);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].outcome, "timeout");
}

// Shutdown stops a running call, which is still answered with what it returned: a write
// that ran to the end is stored, and a client still reading learns so instead of retrying it.
TEST_F(DispatcherTest, CancelAllStopsRunningCallsWhichAreStillAnswered) {
  auto started = gate_.started.get_future();
  auto pending = std::async(std::launch::async, [&] {
    return dispatcher_->Handle(Request("tools/call", {{"name", "gate_wait"}}, 43), session_);
  });
  started.wait();
  dispatcher_->CancelAll();
  const auto answer = pending.get();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ((*answer)["id"], 43);
  EXPECT_EQ((*answer)["result"]["content"][0]["text"], "cancelled");
  EXPECT_TRUE(gate_.saw_cancel.load());
}

TEST_F(DispatcherTest, CancelOfFixtureEchoWait) {
  auto pending = std::async(std::launch::async, [&] {
    return dispatcher_->Handle(Request("tools/call", {{"name", "echo_wait"}, {"arguments", {{"ms", 10000}}}}, "w-1"),
                               session_);
  });
  // The call may not be registered yet when the first cancel arrives; keep cancelling until
  // it returns (each cancel is a no-op or idempotent).
  const json cancel{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "w-1"}}}};
  while (pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    dispatcher_->Handle(cancel, session_);
    std::this_thread::yield();
  }
  EXPECT_EQ(pending.get(), std::nullopt);
}

TEST_F(DispatcherTest, CancelOfOtherSessionOrIdDoesNotApply) {
  Session other;
  other.id = "sess-2";
  // A cancellation for id 5 in another session, and for id 6 here, leave call 5 here alone.
  dispatcher_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}}, other);
  dispatcher_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 6}}}},
                      session_);
  auto r = Call("echo_say", {{"text", "still here"}}, 5);
  EXPECT_EQ(r["result"]["structuredContent"]["echo"], "still here");
}

}  // namespace
}  // namespace kioku::host::mcp
