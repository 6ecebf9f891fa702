// End-to-end tests of the HTTP transport: a real server on 127.0.0.1:0 with an in-test
// plugin, driven by a synchronous Beast client.

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "mcp/dispatcher.hpp"
#include "test_runtime.hpp"
#include "transport/http_router.hpp"
#include "transport/http_server.hpp"

namespace kioku::host {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using nlohmann::json;

// Lets a test hold a tool call inside its handler (no sleeps: promises only).
struct Gate {
  std::promise<void> entered;
  std::shared_future<void> release;
};
Gate* g_gate = nullptr;

class EchoPlugin : public sdk::Plugin {
 public:
  explicit EchoPlugin(sdk::HostServices& /*host*/) {}

  void Register(sdk::Registrar& registrar) override {
    sdk::ToolSpec say;
    say.name = "echo_say";
    say.title = "Echo";
    say.description = "Returns the text and who called.";
    say.input_schema = {{"type", "object"},
                        {"properties", {{"text", {{"type", "string"}, {"maxLength", 100000}}}}},
                        {"required", {"text"}},
                        {"additionalProperties", false}};
    say.annotations.read_only = true;
    registrar.AddTool(say, [](const json& args, const sdk::CallContext& ctx) {
      return sdk::ToolResult::Ok(args["text"].get<std::string>(),
                                 json{{"text", args["text"]},
                                      {"agent_id", ctx.caller.agent_id},
                                      {"session_id", ctx.caller.session_id},
                                      {"project_root", ctx.caller.project_root}});
    });

    sdk::ToolSpec fail;
    fail.name = "echo_fail";
    fail.description = "Always fails.";
    registrar.AddTool(fail, [](const json&, const sdk::CallContext&) -> sdk::ToolResult {
      throw sdk::ToolError("echo_fail always fails; call echo_say instead");
    });

    sdk::ToolSpec bytes;
    bytes.name = "echo_bytes";
    bytes.description = "Returns invalid UTF-8.";
    registrar.AddTool(bytes, [](const json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok(std::string("bad \xff\xfe bytes"));
    });

    sdk::ToolSpec wait;
    wait.name = "echo_wait";
    wait.description = "Blocks until the test releases it.";
    registrar.AddTool(wait, [](const json&, const sdk::CallContext&) {
      g_gate->entered.set_value();
      g_gate->release.wait();
      return sdk::ToolResult::Ok("released");
    });
  }
};

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

/// A keep-alive HTTP/1.1 client on one connection.
class Client {
 public:
  explicit Client(std::uint16_t port) : stream_(ioc_) {
    stream_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }
  /// Connects from `source` (any 127.0.0.0/8 address is this host on Linux), so a test can
  /// be several client addresses at once.
  Client(std::uint16_t port, const std::string& source) : stream_(ioc_) {
    stream_.socket().open(tcp::v4());
    stream_.socket().bind(tcp::endpoint(net::ip::make_address(source), 0));
    stream_.socket().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }

  Response Send(Request request) {
    if (request.find(http::field::host) == request.end()) request.set(http::field::host, "127.0.0.1");
    request.prepare_payload();
    http::write(stream_, request);
    return Read();
  }
  Response Read() {
    Response response;
    http::read(stream_, buffer_, response);
    return response;
  }
  /// Writes raw bytes (for malformed or partial requests).
  void WriteRaw(const std::string& bytes) { net::write(stream_.socket(), net::buffer(bytes)); }
  /// True when the server closed the connection (a read hits EOF).
  bool ServerClosed() {
    beast::error_code ec;
    Response response;
    http::read(stream_, buffer_, response, ec);
    return ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset;
  }

 private:
  net::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

Request Make(http::verb verb, const std::string& target, std::string body = "", const Headers& headers = {}) {
  Request request{verb, target, 11};
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  request.set(http::field::accept, "application/json, text/event-stream");
  for (const auto& [name, value] : headers) request.set(name, value);
  request.body() = std::move(body);
  return request;
}

json Rpc(const json& id, const std::string& method, json params = json::object()) {
  json m{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
  if (!id.is_null()) m["id"] = id;
  return m;
}

json ModernMeta(const std::string& version = mcp::kModernVersion) {
  return {{"io.modelcontextprotocol/protocolVersion", version},
          {"io.modelcontextprotocol/clientCapabilities", json::object()},
          {"io.modelcontextprotocol/clientInfo", {{"name", "test-client"}, {"version", "1"}}}};
}

json Body(const Response& response) { return json::parse(response.body()); }

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_.Add<EchoPlugin>("echo");
    rt_.Start();
    mcp::DispatcherOptions dispatcher_options;
    dispatcher_options.server_version = "test";
    dispatcher_ = std::make_unique<mcp::Dispatcher>(*rt_.runtime, dispatcher_options);
  }

  void StartServer(HttpServerOptions options = {}) {
    options.port = 0;
    options.base_caller.project_root = "/tmp/project";
    server_ = std::make_unique<HttpServer>(*rt_.runtime, *dispatcher_, options);
    server_->Start();
    ASSERT_NE(server_->Port(), 0);
  }

  Client Connect() { return Client(server_->Port()); }

  /// Legacy initialize; returns the session id.
  std::string Initialize(Client& client, const Headers& extra = {}) {
    auto response = client.Send(Make(http::verb::post, "/mcp",
                                     Rpc(1, "initialize",
                                         {{"protocolVersion", "2025-11-25"},
                                          {"capabilities", json::object()},
                                          {"clientInfo", {{"name", "legacy-client"}, {"version", "1"}}}})
                                         .dump(),
                                     extra));
    EXPECT_EQ(response.result_int(), 200) << response.body();
    EXPECT_EQ(Body(response)["result"]["protocolVersion"], "2025-11-25");
    return std::string(response["Mcp-Session-Id"]);
  }

  /// A modern POST with correct headers (override some through `headers`).
  Response PostModern(Client& client, const json& message, Headers headers) {
    return client.Send(Make(http::verb::post, "/mcp", message.dump(), headers));
  }

  static Headers ModernHeaders(const std::string& method, const std::string& name = "") {
    Headers h{{"MCP-Protocol-Version", mcp::kModernVersion}, {"Mcp-Method", method}};
    if (!name.empty()) h.emplace_back("Mcp-Name", name);
    return h;
  }

  static json ModernCall(const std::string& tool, json args) {
    return Rpc(7, "tools/call", {{"name", tool}, {"arguments", std::move(args)}, {"_meta", ModernMeta()}});
  }

  testing::TestRuntime rt_;
  std::unique_ptr<mcp::Dispatcher> dispatcher_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, LegacySessionLifecycle) {
  StartServer();
  Client client = Connect();
  const std::string session = Initialize(client);
  ASSERT_EQ(session.size(), 32u);
  EXPECT_EQ(session.find_first_not_of("0123456789abcdef"), std::string::npos);
  const Headers with_session{{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}};

  auto initialized = client.Send(
      Make(http::verb::post, "/mcp", Rpc(nullptr, "notifications/initialized").dump(), with_session));
  EXPECT_EQ(initialized.result_int(), 202);
  EXPECT_TRUE(initialized.body().empty());

  auto list = client.Send(Make(http::verb::post, "/mcp", Rpc(2, "tools/list").dump(), with_session));
  ASSERT_EQ(list.result_int(), 200);
  EXPECT_EQ(list[http::field::content_type], "application/json");
  std::vector<std::string> names;
  const json listed = Body(list);
  for (const auto& tool : listed["result"]["tools"]) names.push_back(tool["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"echo_say", "echo_fail", "echo_bytes", "echo_wait"}));

  auto call = client.Send(Make(http::verb::post, "/mcp",
                               Rpc(3, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", "hello"}}}}).dump(),
                               with_session));
  ASSERT_EQ(call.result_int(), 200);
  json result = Body(call)["result"];
  EXPECT_EQ(Body(call)["id"], 3);
  EXPECT_FALSE(result["isError"].get<bool>());
  EXPECT_EQ(result["content"][0]["text"], "hello");
  EXPECT_EQ(result["structuredContent"]["session_id"], session);
  EXPECT_EQ(result["structuredContent"]["agent_id"], "legacy-client");  // no token: clientInfo name
  EXPECT_EQ(result["structuredContent"]["project_root"], "/tmp/project");

  auto failed = client.Send(Make(http::verb::post, "/mcp", Rpc(4, "tools/call", {{"name", "echo_fail"}}).dump(),
                                 with_session));
  ASSERT_EQ(failed.result_int(), 200);
  EXPECT_TRUE(Body(failed)["result"]["isError"].get<bool>());
  EXPECT_NE(Body(failed)["result"]["content"][0]["text"].get<std::string>().find("call echo_say instead"),
            std::string::npos);

  auto unknown = client.Send(Make(http::verb::post, "/mcp", Rpc(5, "tools/call", {{"name", "no_such"}}).dump(),
                                  with_session));
  ASSERT_EQ(unknown.result_int(), 200);
  EXPECT_EQ(Body(unknown)["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(Body(unknown)["id"], 5);

  auto unknown_method = client.Send(Make(http::verb::post, "/mcp", Rpc(6, "nope/nope").dump(), with_session));
  EXPECT_EQ(unknown_method.result_int(), 200);
  EXPECT_EQ(Body(unknown_method)["error"]["code"], mcp::kMethodNotFound);

  auto end = client.Send(Make(http::verb::delete_, "/mcp", "", with_session));
  EXPECT_EQ(end.result_int(), 204);
  auto after = client.Send(Make(http::verb::post, "/mcp", Rpc(7, "tools/list").dump(), with_session));
  EXPECT_EQ(after.result_int(), 404);
  EXPECT_EQ(Body(after)["id"], 7);
  EXPECT_EQ(client.Send(Make(http::verb::delete_, "/mcp", "", with_session)).result_int(), 404);
}

TEST_F(HttpServerTest, LegacyRequestsNeedAKnownSessionAndASupportedVersion) {
  StartServer();
  Client client = Connect();
  auto missing = client.Send(Make(http::verb::post, "/mcp", Rpc(1, "tools/list").dump()));
  EXPECT_EQ(missing.result_int(), 400);
  EXPECT_NE(Body(missing)["error"]["message"].get<std::string>().find("Mcp-Session-Id"), std::string::npos);

  auto unknown = client.Send(
      Make(http::verb::post, "/mcp", Rpc(1, "tools/list").dump(), {{"Mcp-Session-Id", "0123456789abcdef"}}));
  EXPECT_EQ(unknown.result_int(), 404);

  const std::string session = Initialize(client);
  // Another supported legacy version than the negotiated one is accepted, as the official
  // SDKs accept it.
  auto other_version = client.Send(Make(http::verb::post, "/mcp", Rpc(2, "tools/list").dump(),
                                        {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-06-18"}}));
  EXPECT_EQ(other_version.result_int(), 200) << other_version.body();
  EXPECT_TRUE(Body(other_version).contains("result"));

  auto unsupported = client.Send(Make(http::verb::post, "/mcp", Rpc(3, "tools/list").dump(),
                                      {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "1999-01-01"}}));
  EXPECT_EQ(unsupported.result_int(), 400);
  EXPECT_EQ(Body(unsupported)["error"]["code"], mcp::kUnsupportedProtocolVersion);

  // Without the header the negotiated version is assumed.
  auto ok = client.Send(Make(http::verb::post, "/mcp", Rpc(4, "ping").dump(), {{"Mcp-Session-Id", session}}));
  EXPECT_EQ(ok.result_int(), 200);
  EXPECT_EQ(Body(ok)["result"], json::object());

  auto notification = client.Send(Make(http::verb::post, "/mcp", Rpc(nullptr, "notifications/initialized").dump()));
  EXPECT_EQ(notification.result_int(), 400);
  auto client_response = client.Send(
      Make(http::verb::post, "/mcp", json{{"jsonrpc", "2.0"}, {"id", 9}, {"result", json::object()}}.dump(),
           {{"Mcp-Session-Id", session}}));
  EXPECT_EQ(client_response.result_int(), 202);
  EXPECT_EQ(client.Send(Make(http::verb::delete_, "/mcp")).result_int(), 400);
}

TEST_F(HttpServerTest, IdleSessionsExpireOnTheRuntimeClock) {
  HttpServerOptions options;
  options.session_idle_ms = 60'000;
  StartServer(options);
  Client client = Connect();
  const std::string session = Initialize(client);
  rt_.clock->Advance(59'000);
  EXPECT_EQ(client.Send(Make(http::verb::post, "/mcp", Rpc(1, "ping").dump(), {{"Mcp-Session-Id", session}}))
                .result_int(),
            200);
  rt_.clock->Advance(59'000);  // idle time restarts at each use
  EXPECT_EQ(client.Send(Make(http::verb::post, "/mcp", Rpc(2, "ping").dump(), {{"Mcp-Session-Id", session}}))
                .result_int(),
            200);
  rt_.clock->Advance(60'001);
  EXPECT_EQ(client.Send(Make(http::verb::post, "/mcp", Rpc(3, "ping").dump(), {{"Mcp-Session-Id", session}}))
                .result_int(),
            404);
}

TEST_F(HttpServerTest, ModernRequestsAreStatelessWithMatchingHeaders) {
  StartServer();
  Client client = Connect();
  auto call = PostModern(client, ModernCall("echo_say", {{"text", "hi"}}), ModernHeaders("tools/call", "echo_say"));
  ASSERT_EQ(call.result_int(), 200) << call.body();
  json result = Body(call)["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["structuredContent"]["text"], "hi");
  EXPECT_EQ(result["structuredContent"]["session_id"], "");
  EXPECT_EQ(result["structuredContent"]["agent_id"], "test-client");
  EXPECT_FALSE(call.count("Mcp-Session-Id"));

  auto list = PostModern(client, Rpc(8, "tools/list", {{"_meta", ModernMeta()}}), ModernHeaders("tools/list"));
  ASSERT_EQ(list.result_int(), 200);
  EXPECT_EQ(Body(list)["result"]["tools"].size(), 4u);

  auto discover = PostModern(client, Rpc(9, "server/discover", {{"_meta", ModernMeta()}}),
                             ModernHeaders("server/discover"));
  ASSERT_EQ(discover.result_int(), 200);
  EXPECT_EQ(Body(discover)["result"]["supportedVersions"][0], mcp::kModernVersion);

  // Mcp-Name in the Base64 sentinel form ("echo_say").
  auto encoded = PostModern(client, ModernCall("echo_say", {{"text", "b64"}}),
                            ModernHeaders("tools/call", "=?base64?ZWNob19zYXk=?="));
  EXPECT_EQ(encoded.result_int(), 200) << encoded.body();

  auto failing = PostModern(client, ModernCall("echo_fail", json::object()), ModernHeaders("tools/call", "echo_fail"));
  EXPECT_EQ(failing.result_int(), 200);
  EXPECT_TRUE(Body(failing)["result"]["isError"].get<bool>());
}

TEST_F(HttpServerTest, ModernHeaderMismatchesAre400With32020) {
  StartServer();
  Client client = Connect();
  const json call = ModernCall("echo_say", {{"text", "x"}});
  const std::vector<std::pair<std::string, Headers>> cases = {
      {"missing version", {{"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo_say"}}},
      {"other version",
       {{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo_say"}}},
      {"missing method", {{"MCP-Protocol-Version", mcp::kModernVersion}, {"Mcp-Name", "echo_say"}}},
      {"other method", ModernHeaders("tools/list", "echo_say")},
      {"missing name", ModernHeaders("tools/call")},
      {"other name", ModernHeaders("tools/call", "echo_fail")},
      {"encoded other name", ModernHeaders("tools/call", "=?base64?ZWNob19mYWls?=")},
      {"bad base64", ModernHeaders("tools/call", "=?base64?***?=")},
      {"method case differs", ModernHeaders("Tools/Call", "echo_say")},
  };
  for (const auto& [label, headers] : cases) {
    auto response = PostModern(client, call, headers);
    EXPECT_EQ(response.result_int(), 400) << label;
    json body = Body(response);
    EXPECT_EQ(body["error"]["code"], mcp::kHeaderMismatch) << label;
    EXPECT_EQ(body["id"], 7) << label;
  }
  // The server keeps serving on the same connection.
  EXPECT_EQ(PostModern(client, call, ModernHeaders("tools/call", "echo_say")).result_int(), 200);
}

TEST_F(HttpServerTest, ModernProtocolErrorsUseSpecStatuses) {
  StartServer();
  Client client = Connect();
  json meta = ModernMeta("2099-01-01");
  auto unsupported = client.Send(Make(http::verb::post, "/mcp", Rpc(1, "tools/list", {{"_meta", meta}}).dump(),
                                      {{"MCP-Protocol-Version", "2099-01-01"}, {"Mcp-Method", "tools/list"}}));
  EXPECT_EQ(unsupported.result_int(), 400);
  EXPECT_EQ(Body(unsupported)["error"]["code"], mcp::kUnsupportedProtocolVersion);
  EXPECT_EQ(Body(unsupported)["error"]["data"]["supported"][0], mcp::kModernVersion);

  json no_caps = ModernMeta();
  no_caps.erase("io.modelcontextprotocol/clientCapabilities");
  auto missing = PostModern(client, Rpc(2, "tools/list", {{"_meta", no_caps}}), ModernHeaders("tools/list"));
  EXPECT_EQ(missing.result_int(), 400);
  EXPECT_EQ(Body(missing)["error"]["code"], mcp::kInvalidParams);

  auto no_method = PostModern(client, Rpc(3, "nope/nope", {{"_meta", ModernMeta()}}), ModernHeaders("nope/nope"));
  EXPECT_EQ(no_method.result_int(), 404);
  EXPECT_EQ(Body(no_method)["error"]["code"], mcp::kMethodNotFound);

  // A modern version header on a body without _meta.
  auto no_meta = PostModern(client, Rpc(4, "tools/list"), ModernHeaders("tools/list"));
  EXPECT_EQ(no_meta.result_int(), 400);
  EXPECT_EQ(Body(no_meta)["error"]["code"], mcp::kInvalidParams);

  // Modern notifications need no session.
  auto note = PostModern(client, Rpc(nullptr, "notifications/cancelled", {{"requestId", 1}}),
                         {{"MCP-Protocol-Version", mcp::kModernVersion}});
  EXPECT_EQ(note.result_int(), 202);
}

TEST_F(HttpServerTest, BadBodiesGetJsonRpcErrorsWithoutId) {
  StartServer();
  Client client = Connect();
  auto parse = client.Send(Make(http::verb::post, "/mcp", "{\"jsonrpc\": \"2.0\", "));
  EXPECT_EQ(parse.result_int(), 400);
  json body = Body(parse);
  EXPECT_EQ(body["error"]["code"], mcp::kParseError);
  ASSERT_TRUE(body.contains("id")) << body.dump();  // JSON-RPC 2.0 section 5: null
  EXPECT_TRUE(body["id"].is_null());
  // Either era: a modern header changes nothing about a body that is not JSON.
  auto modern_bad = client.Send(Make(http::verb::post, "/mcp", "{\"id\": 4, ", ModernHeaders("tools/call")));
  EXPECT_EQ(modern_bad.result_int(), 400);
  EXPECT_TRUE(Body(modern_bad).contains("id") && Body(modern_bad)["id"].is_null()) << modern_bad.body();

  auto batch = client.Send(Make(http::verb::post, "/mcp", "[]"));
  EXPECT_EQ(batch.result_int(), 400);
  EXPECT_EQ(Body(batch)["error"]["code"], mcp::kInvalidRequest);
  EXPECT_TRUE(Body(batch).contains("id") && Body(batch)["id"].is_null()) << batch.body();

  auto garbage = client.Send(Make(http::verb::post, "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1}"));
  EXPECT_EQ(garbage.result_int(), 400);

  auto text = Make(http::verb::post, "/mcp", "{}");
  text.set(http::field::content_type, "text/plain");
  EXPECT_EQ(client.Send(text).result_int(), 415);

  auto html = Make(http::verb::post, "/mcp", Rpc(1, "ping").dump());
  html.set(http::field::accept, "text/html");
  EXPECT_EQ(client.Send(html).result_int(), 406);
  auto sse_only_q0 = Make(http::verb::post, "/mcp", Rpc(1, "ping").dump());
  sse_only_q0.set(http::field::accept, "text/event-stream, application/json;q=0");
  EXPECT_EQ(client.Send(sse_only_q0).result_int(), 406);

  auto get = client.Send(Make(http::verb::get, "/mcp"));
  EXPECT_EQ(get.result_int(), 405);
  EXPECT_EQ(get[http::field::allow], "POST, DELETE");

  EXPECT_EQ(client.Send(Make(http::verb::get, "/nowhere")).result_int(), 404);
  // Still serving on the same connection after all of that.
  EXPECT_EQ(client.Send(Make(http::verb::get, "/healthz")).result_int(), 200);
}

TEST_F(HttpServerTest, InvalidUtf8FromAToolStillMakesValidJson) {
  StartServer();
  Client client = Connect();
  auto response = PostModern(client, ModernCall("echo_bytes", json::object()), ModernHeaders("tools/call", "echo_bytes"));
  ASSERT_EQ(response.result_int(), 200);
  EXPECT_EQ(Body(response)["result"]["content"][0]["text"], "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

TEST_F(HttpServerTest, OriginIsCheckedAgainstLoopbackAndTheAllowList) {
  HttpServerOptions options;
  options.allowed_origins = {"https://app.example"};
  StartServer(options);
  Client client = Connect();
  auto evil = client.Send(Make(http::verb::get, "/healthz", "", {{"Origin", "http://evil.example"}}));
  EXPECT_EQ(evil.result_int(), 403);
  EXPECT_TRUE(Body(evil).contains("id") && Body(evil)["id"].is_null()) << evil.body();
  EXPECT_EQ(client.Send(Make(http::verb::post, "/mcp", Rpc(1, "initialize").dump(),
                             {{"Origin", "http://localhost.evil.example:80"}}))
                .result_int(),
            403);
  EXPECT_EQ(client.Send(Make(http::verb::get, "/healthz", "", {{"Origin", "null"}})).result_int(), 403);

  auto local = client.Send(Make(http::verb::get, "/healthz", "", {{"Origin", "http://localhost:5173"}}));
  EXPECT_EQ(local.result_int(), 200);
  EXPECT_EQ(local[http::field::access_control_allow_origin], "http://localhost:5173");
  EXPECT_EQ(client.Send(Make(http::verb::get, "/v1/tools", "", {{"Origin", "http://127.0.0.1"}})).result_int(), 200);
  EXPECT_EQ(client.Send(Make(http::verb::get, "/v1/tools", "", {{"Origin", "https://app.example"}})).result_int(),
            200);

  auto preflight = client.Send(Make(http::verb::options, "/mcp", "", {{"Origin", "https://app.example"}}));
  EXPECT_EQ(preflight.result_int(), 204);
  EXPECT_NE(std::string(preflight[http::field::access_control_allow_headers]).find("Mcp-Session-Id"),
            std::string::npos);
}

TEST_F(HttpServerTest, BearerTokensAuthenticateAndNameTheAgent) {
  HttpServerOptions options;
  options.tokens = {{"token-aaaaaaaaaaaaaaaa", "agent-a"}, {"token-bbbbbbbbbbbbbbbb", "agent-b"}};
  StartServer(options);
  Client client = Connect();
  const json call = ModernCall("echo_say", {{"text", "who"}});

  auto none = PostModern(client, call, ModernHeaders("tools/call", "echo_say"));
  EXPECT_EQ(none.result_int(), 401);
  EXPECT_EQ(none[http::field::www_authenticate], "Bearer realm=\"kioku\"");

  Headers wrong = ModernHeaders("tools/call", "echo_say");
  wrong.emplace_back("Authorization", "Bearer token-aaaaaaaaaaaaaaab");
  auto bad = PostModern(client, call, wrong);
  EXPECT_EQ(bad.result_int(), 401);
  EXPECT_NE(std::string(bad[http::field::www_authenticate]).find("invalid_token"), std::string::npos);

  Headers good = ModernHeaders("tools/call", "echo_say");
  good.emplace_back("Authorization", "bearer token-aaaaaaaaaaaaaaaa");
  auto ok = PostModern(client, call, good);
  ASSERT_EQ(ok.result_int(), 200);
  // The token's agent wins over the self-reported clientInfo name.
  EXPECT_EQ(Body(ok)["result"]["structuredContent"]["agent_id"], "agent-a");

  EXPECT_EQ(client.Send(Make(http::verb::get, "/healthz")).result_int(), 200);  // no token needed
  EXPECT_EQ(client.Send(Make(http::verb::get, "/v1/tools")).result_int(), 401);
  auto api = client.Send(Make(http::verb::post, "/v1/tools/echo_say", json{{"text", "api"}}.dump(),
                              {{"Authorization", "Bearer token-bbbbbbbbbbbbbbbb"}}));
  ASSERT_EQ(api.result_int(), 200);
  EXPECT_EQ(Body(api)["structuredContent"]["agent_id"], "agent-b");

  // A legacy session belongs to the agent that opened it.
  const std::string session = Initialize(client, {{"Authorization", "Bearer token-aaaaaaaaaaaaaaaa"}});
  auto stolen = client.Send(Make(http::verb::post, "/mcp", Rpc(2, "ping").dump(),
                                 {{"Mcp-Session-Id", session}, {"Authorization", "Bearer token-bbbbbbbbbbbbbbbb"}}));
  EXPECT_EQ(stolen.result_int(), 404);
  auto own = client.Send(Make(http::verb::post, "/mcp",
                              Rpc(3, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", "s"}}}}).dump(),
                              {{"Mcp-Session-Id", session}, {"Authorization", "Bearer token-aaaaaaaaaaaaaaaa"}}));
  ASSERT_EQ(own.result_int(), 200);
  EXPECT_EQ(Body(own)["result"]["structuredContent"]["agent_id"], "agent-a");
}

TEST_F(HttpServerTest, BodyAndHeaderLimits) {
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  options.max_header_bytes = 2048;
  StartServer(options);
  {
    Client client = Connect();
    // The declared length alone is refused before the body is read.
    client.WriteRaw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n");
    auto response = client.Read();
    EXPECT_EQ(response.result_int(), 413);
    EXPECT_TRUE(client.ServerClosed());
  }
  {
    Client client = Connect();
    auto response = client.Send(Make(http::verb::post, "/v1/tools/echo_say", std::string(1025, ' ')));
    EXPECT_EQ(response.result_int(), 413);
  }
  {
    Client client = Connect();
    auto response = client.Send(Make(http::verb::get, "/healthz", "", {{"X-Filler", std::string(4096, 'a')}}));
    EXPECT_EQ(response.result_int(), 431);
  }
  {
    Client client = Connect();
    client.WriteRaw("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Line\r\n\r\n");
    EXPECT_EQ(client.Read().result_int(), 400);
  }
  Client client = Connect();
  auto fits = client.Send(Make(http::verb::post, "/v1/tools/echo_say", json{{"text", std::string(900, 'x')}}.dump()));
  EXPECT_EQ(fits.result_int(), 200);
}

// DNS rebinding: a page on rebind.evil.example whose name now resolves to 127.0.0.1 sends
// simple requests without Origin; only its Host header gives it away.
TEST_F(HttpServerTest, LoopbackBindRefusesAForeignHostHeader) {
  HttpServerOptions options;
  options.allowed_hosts = {"kioku.internal"};
  StartServer(options);
  Client client = Connect();
  const std::string args = json{{"text", "hi"}}.dump();
  auto api = client.Send(Make(http::verb::post, "/v1/tools/echo_say", args, {{"Host", "rebind.evil.example"}}));
  EXPECT_EQ(api.result_int(), 403);
  EXPECT_NE(Body(api)["error"].get<std::string>().find("allowed_hosts"), std::string::npos) << api.body();
  Client second = Connect();
  auto rpc = second.Send(Make(http::verb::post, "/mcp", Rpc(1, "initialize", {{"protocolVersion", "2025-11-25"}}).dump(),
                              {{"Host", "rebind.evil.example:7077"}}));
  EXPECT_EQ(rpc.result_int(), 403);
  EXPECT_EQ(Body(rpc)["error"]["code"], mcp::kInvalidRequest);
  Client third = Connect();
  auto list = third.Send(Make(http::verb::get, "/v1/tools", "", {{"Host", "evil.example"}}));
  EXPECT_EQ(list.result_int(), 403);
  for (const char* host : {"localhost:7077", "127.0.0.1", "[::1]:9", "LOCALHOST", "kioku.internal:80"}) {
    Client ok = Connect();
    auto r = ok.Send(Make(http::verb::post, "/v1/tools/echo_say", args, {{"Host", host}}));
    EXPECT_EQ(r.result_int(), 200) << host << ": " << r.body();
  }
}

// A client that writes the whole oversized body before reading (Node fetch, Python) must
// read the 413, not EPIPE or a reset; on /mcp it is a JSON-RPC error body.
TEST_F(HttpServerTest, OversizedBodyIsAnswered413AfterTheClientSentIt) {
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  StartServer(options);
  for (const char* target : {"/mcp", "/v1/tools/echo_say"}) {
    Client client = Connect();
    const std::string body(4 * 1024 * 1024, ' ');  // far beyond the socket buffers
    client.WriteRaw(std::string("POST ") + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
    ASSERT_NO_THROW(client.WriteRaw(body)) << target;  // before: the server had closed, EPIPE/reset
    auto response = client.Read();
    EXPECT_EQ(response.result_int(), 413) << target;
    const json answer = Body(response);
    if (std::string(target) == "/mcp") {
      EXPECT_EQ(answer["jsonrpc"], "2.0");
      EXPECT_EQ(answer["error"]["code"], mcp::kInvalidRequest);
      EXPECT_NE(answer["error"]["message"].get<std::string>().find("1024"), std::string::npos);
    } else {
      EXPECT_TRUE(answer.contains("error"));
    }
  }
}

TEST_F(HttpServerTest, ModernPingIsRemovedLikeInitialize) {
  StartServer();
  Client client = Connect();
  auto r = PostModern(client, Rpc(3, "ping", {{"_meta", ModernMeta()}}), ModernHeaders("ping"));
  EXPECT_EQ(r.result_int(), 404) << r.body();
  EXPECT_EQ(Body(r)["error"]["code"], mcp::kMethodNotFound);
  EXPECT_EQ(Body(r)["id"], 3);
}

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  StartServer();
  Client client = Connect();
  const std::string session = Initialize(client);
  for (int i = 0; i < 20; ++i) {
    auto response = client.Send(Make(http::verb::post, "/mcp",
                                     Rpc(i, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", std::to_string(i)}}}})
                                         .dump(),
                                     {{"Mcp-Session-Id", session}}));
    ASSERT_EQ(response.result_int(), 200);
    EXPECT_TRUE(response.keep_alive());
    EXPECT_EQ(Body(response)["result"]["content"][0]["text"], std::to_string(i));
  }
  auto close = Make(http::verb::get, "/healthz");
  close.keep_alive(false);
  auto last = client.Send(close);
  EXPECT_EQ(last.result_int(), 200);
  EXPECT_FALSE(last.keep_alive());
  EXPECT_TRUE(client.ServerClosed());
}

TEST_F(HttpServerTest, HealthAndPlainJsonApi) {
  StartServer();
  Client client = Connect();
  auto health = client.Send(Make(http::verb::get, "/healthz"));
  ASSERT_EQ(health.result_int(), 200);
  EXPECT_EQ(Body(health), (json{{"status", "ok"}, {"tools", 4}}));

  auto tools = client.Send(Make(http::verb::get, "/v1/tools"));
  ASSERT_EQ(tools.result_int(), 200);
  json list = Body(tools)["tools"];
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0]["name"], "echo_say");
  EXPECT_EQ(list[0]["inputSchema"]["required"][0], "text");
  EXPECT_TRUE(list[0]["annotations"]["readOnlyHint"].get<bool>());

  auto call = client.Send(Make(http::verb::post, "/v1/tools/echo_say", json{{"text", "plain"}}.dump()));
  ASSERT_EQ(call.result_int(), 200);
  json result = Body(call);
  EXPECT_FALSE(result["isError"].get<bool>());
  EXPECT_EQ(result["structuredContent"]["text"], "plain");
  EXPECT_EQ(result["content"][0]["text"], "plain");

  auto failed = client.Send(Make(http::verb::post, "/v1/tools/echo_fail", ""));
  ASSERT_EQ(failed.result_int(), 200);
  EXPECT_TRUE(Body(failed)["isError"].get<bool>());

  auto invalid = client.Send(Make(http::verb::post, "/v1/tools/echo_say", json{{"txt", 1}}.dump()));
  ASSERT_EQ(invalid.result_int(), 200);
  EXPECT_TRUE(Body(invalid)["isError"].get<bool>());

  auto unknown = client.Send(Make(http::verb::post, "/v1/tools/no_such", "{}"));
  EXPECT_EQ(unknown.result_int(), 404);
  EXPECT_NE(Body(unknown)["error"].get<std::string>().find("no_such"), std::string::npos);

  auto bad = client.Send(Make(http::verb::post, "/v1/tools/echo_say", "{not json"));
  EXPECT_EQ(bad.result_int(), 400);
  EXPECT_EQ(client.Send(Make(http::verb::post, "/v1/tools/echo_say", "[1]")).result_int(), 400);
  EXPECT_EQ(client.Send(Make(http::verb::get, "/v1/tools/echo_say")).result_int(), 405);
}

TEST_F(HttpServerTest, SlowToolsDoNotBlockOtherRequestsAndStopDrainsThem) {
  Gate gate;
  std::promise<void> release;
  gate.release = release.get_future().share();
  g_gate = &gate;
  StartServer();

  auto slow = std::async(std::launch::async, [port = server_->Port()] {
    Client client(port);
    return client.Send(Make(http::verb::post, "/v1/tools/echo_wait", "{}"));
  });
  gate.entered.get_future().wait();  // the call is running on a worker

  Client other = Connect();  // the I/O thread still answers
  EXPECT_EQ(other.Send(Make(http::verb::get, "/healthz")).result_int(), 200);

  auto stopped = std::async(std::launch::async, [this] { server_->Stop(); });
  EXPECT_TRUE(other.ServerClosed());  // idle keep-alive connections are closed at once
  release.set_value();
  auto response = slow.get();  // the in-flight call still gets its answer
  EXPECT_EQ(response.result_int(), 200);
  EXPECT_EQ(json::parse(response.body())["content"][0]["text"], "released");
  EXPECT_FALSE(response.keep_alive());
  stopped.get();
  g_gate = nullptr;

  net::io_context ioc;
  tcp::socket socket(ioc);
  beast::error_code ec;
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server_->Port()), ec);
  EXPECT_TRUE(ec);  // no longer listening
}

// Issue 9: sockets that connect and send nothing, or half a header, must not lock other
// clients out. Over the per-address limit a connection is answered 503 at once, while
// another address is served.
TEST_F(HttpServerTest, HalfOpenConnectionsFromOneAddressDoNotLockOutOthers) {
  HttpServerOptions options;
  options.max_connections = 16;
  options.max_connections_per_ip = 4;
  StartServer(options);
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<Client>(server_->Port(), "127.0.0.2"));
    if (i % 2 == 1) idle.back()->WriteRaw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty");
  }
  Client over(server_->Port(), "127.0.0.2");
  auto refused = over.Send(Make(http::verb::get, "/healthz"));
  EXPECT_EQ(refused.result_int(), 503);
  EXPECT_EQ(refused[http::field::retry_after], "1");
  EXPECT_NE(Body(refused)["error"].get<std::string>().find("max_connections_per_ip"), std::string::npos)
      << refused.body();
  EXPECT_TRUE(over.ServerClosed());
  // Another client address is still served, on a kept-alive connection.
  Client other = Connect();
  for (int i = 0; i < 3; ++i) {
    auto ok = other.Send(Make(http::verb::post, "/v1/tools/echo_say", json{{"text", "hi"}}.dump()));
    EXPECT_EQ(ok.result_int(), 200) << ok.body();
  }
}

// The global limit answers 503 too, and silent or trickling clients are cut off at the
// header timeout, after which their slots serve others again.
TEST_F(HttpServerTest, GlobalLimitAnswers503AndTheHeaderTimeoutFreesSlots) {
  HttpServerOptions options;
  options.max_connections = 4;
  options.max_connections_per_ip = 4;
  options.header_timeout_ms = 200;
  options.read_timeout_ms = 60'000;  // the header deadline, not this, must drop them
  StartServer(options);
  std::vector<std::unique_ptr<Client>> idle;
  for (const char* source : {"127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}) {
    idle.push_back(std::make_unique<Client>(server_->Port(), source));
  }
  idle[1]->WriteRaw("GET /healthz HTTP/1.1\r\nHo");  // half a header
  Client over = Connect();
  auto refused = over.Send(Make(http::verb::get, "/healthz"));
  EXPECT_EQ(refused.result_int(), 503);
  EXPECT_NE(Body(refused)["error"].get<std::string>().find("server.http.max_connections"), std::string::npos)
      << refused.body();
  for (auto& client : idle) EXPECT_TRUE(client->ServerClosed());  // each read ends at the deadline
  idle.clear();
  // The server forgets a closed connection just after the client sees the close: allow it
  // a few attempts (each a real request, no waiting in between).
  unsigned status = 0;
  for (int attempt = 0; attempt < 200 && status != 200; ++attempt) {
    Client again = Connect();
    status = again.Send(Make(http::verb::get, "/healthz")).result_int();
  }
  EXPECT_EQ(status, 200u);
}

TEST_F(HttpServerTest, DuplicateSingletonHeadersAre400NamingTheHeader) {
  StartServer();
  const std::string message = Rpc(1, "tools/list").dump();
  const std::string raw_tail = "Content-Type: application/json\r\nContent-Length: " + std::to_string(message.size()) +
                               "\r\n\r\n" + message;
  struct Case {
    const char* target;
    std::string headers;
    const char* named;
  };
  const std::vector<Case> cases{
      {"/mcp", "Host: 127.0.0.1\r\nHost: rebind.evil.example\r\n", "Host"},
      {"/v1/tools/echo_say", "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n", "Host"},
      {"/mcp", "Host: 127.0.0.1\r\nOrigin: http://localhost\r\nOrigin: http://evil.example\r\n", "Origin"},
      {"/mcp", "Host: 127.0.0.1\r\nMcp-Session-Id: a\r\nMcp-Session-Id: b\r\n", "Mcp-Session-Id"},
      {"/mcp", "Host: 127.0.0.1\r\nMCP-Protocol-Version: 2025-11-25\r\nMCP-Protocol-Version: 2025-06-18\r\n",
       "MCP-Protocol-Version"},
  };
  for (const auto& c : cases) {
    Client client = Connect();
    client.WriteRaw(std::string("POST ") + c.target + " HTTP/1.1\r\n" + c.headers + raw_tail);
    auto response = client.Read();
    EXPECT_EQ(response.result_int(), 400) << c.named << ": " << response.body();
    const json body = Body(response);
    const std::string said = body["error"].is_object() ? body["error"]["message"].get<std::string>()
                                                       : body["error"].get<std::string>();
    EXPECT_NE(said.find(std::string("the ") + c.named + " header was sent 2 times"), std::string::npos)
        << response.body();
    if (std::string(c.target) == "/mcp") {
      EXPECT_EQ(body["error"]["code"], mcp::kInvalidRequest);
    }
  }
}

TEST_F(HttpServerTest, NonLoopbackBindWithoutTokensIsRefused) {
  HttpServerOptions options;
  options.address = "0.0.0.0";
  options.port = 0;
  HttpServer server(*rt_.runtime, *dispatcher_, options);
  try {
    server.Start();
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("without bearer tokens"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0.0.0.0"), std::string::npos) << e.what();
  }
  options.tokens = {{"token-aaaaaaaaaaaaaaaa", "agent-a"}};
  HttpServer allowed(*rt_.runtime, *dispatcher_, options);
  EXPECT_NO_THROW(allowed.Start());
  allowed.Stop();
}

TEST(HttpListenAddressTest, ParsesAddressAndPort) {
  HttpServerOptions options;
  ParseListenAddress("0.0.0.0:8080", options);
  EXPECT_EQ(options.address, "0.0.0.0");
  EXPECT_EQ(options.port, 8080);
  ParseListenAddress("[::1]:9000", options);
  EXPECT_EQ(options.address, "::1");
  EXPECT_EQ(options.port, 9000);
  ParseListenAddress(":7000", options);
  EXPECT_EQ(options.address, "::1");
  EXPECT_EQ(options.port, 7000);
  ParseListenAddress("7001", options);
  EXPECT_EQ(options.port, 7001);
  for (const char* bad : {"", "host:80", "1.2.3.4:", "1.2.3.4:99999", "::1:80", "1.2.3.4:8x"}) {
    EXPECT_THROW(ParseListenAddress(bad, options), std::runtime_error) << bad;
  }
}

TEST(HttpHeaderValueTest, DecodesTheBase64Sentinel) {
  EXPECT_EQ(DecodeHeaderValue("plain_name"), "plain_name");
  EXPECT_EQ(DecodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, \xE4\xB8\x96\xE7\x95\x8C");
  EXPECT_EQ(DecodeHeaderValue("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), "=?base64?literal?=");
  EXPECT_EQ(DecodeHeaderValue("=?BASE64?eA==?="), "=?BASE64?eA==?=");  // markers are case-sensitive
  EXPECT_FALSE(DecodeHeaderValue("=?base64?a*b=?="));
  EXPECT_FALSE(DecodeHeaderValue("=?base64?a===?="));
}

}  // namespace
}  // namespace kioku::host
