#include "transport/http_router.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "mcp/dispatcher.hpp"
#include "runtime.hpp"
#include "transport/http_push.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;

using mcp::kMetaVersion;
constexpr const char* kJson = "application/json";
// Headers a request may carry at most once (lower-case name, name as shown in answers). The
// MCP-Protocol-Version / Mcp-Method / Mcp-Name checks of each era say the same themselves.
constexpr std::array<std::pair<const char*, const char*>, 6> kSingletonHeaders{{{"host", "Host"},
                                                                              {"origin", "Origin"},
                                                                              {"authorization", "Authorization"},
                                                                              {"content-type", "Content-Type"},
                                                                              {"mcp-session-id", "Mcp-Session-Id"},
                                                                              {"kioku-project", "Kioku-Project"}}};
constexpr const char* kCorsHeaders =
    "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, "
    "Last-Event-ID, Kioku-Project";

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Tool output may hold invalid UTF-8: sdk::DumpJson replaces it instead of throwing.
HttpResponse JsonResponse(unsigned status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.content_type = kJson;
  r.body = sdk::DumpJson(body);
  return r;
}

// JSON-RPC errors of the HTTP exchange itself carry "id": null; those about a request echo its
// id when it is a valid one (string or integer).
json RpcError(int code, std::string message, json data = nullptr) {
  return mcp::Dispatcher::ErrorResponse(nullptr, code, std::move(message), std::move(data));
}

json RpcError(const json& id, int code, std::string message, json data = nullptr) {
  const bool valid = id.is_string() || id.is_number_integer();
  return mcp::Dispatcher::ErrorResponse(valid ? id : json(nullptr), code, std::move(message), std::move(data));
}

HttpResponse ApiError(unsigned status, std::string message) {
  return JsonResponse(status, json{{"error", std::move(message)}});
}

HttpResponse Empty(unsigned status) {
  HttpResponse r;
  r.status = status;
  return r;
}

HttpRoute Now(HttpResponse response) { return HttpRoute{std::move(response), {}, {}}; }

int ErrorCode(const json& response) {
  auto error = response.find("error");
  if (error == response.end() || !error->is_object()) return 0;
  return error->value("code", 0);
}

// Legacy: a JSON-RPC error about a request the server understood is a normal 200 reply;
// a message that is not valid JSON-RPC at all is a 400 (as the TypeScript SDK server does).
unsigned LegacyStatus(const json& response) {
  const int code = ErrorCode(response);
  if (code == mcp::kProjectForbidden) return 403;
  return (code == mcp::kParseError || code == mcp::kInvalidRequest) ? 400 : 200;
}

// Modern: streamable-http.mdx "Protocol Version Header" and basic_index.mdx "Per-request
// protocol fields" fix 400 for -32020/-32021/-32022/-32602 and 404 for -32601.
unsigned ModernStatus(const json& response) {
  switch (ErrorCode(response)) {
    case 0: return 200;
    case mcp::kMethodNotFound: return 404;
    case mcp::kInternalError: return 500;
    case mcp::kProjectForbidden: return 403;
    case mcp::kParseError:
    case mcp::kInvalidRequest:
    case mcp::kInvalidParams:
    case mcp::kHeaderMismatch:
    case mcp::kMissingClientCapability:
    case mcp::kUnsupportedProtocolVersion: return 400;
    default: return 200;
  }
}

std::string_view PathOf(std::string_view target) {
  return target.substr(0, std::min(target.find('?'), target.find('#')));
}

// Media type of a Content-Type / Accept element, lower-case, parameters dropped.
std::string MediaType(std::string_view value) {
  return Lower(Trim(value.substr(0, value.find(';'))));
}

bool IsJsonContentType(const std::string* content_type) {
  if (content_type == nullptr) return true;  // curl -d without -H; nothing else to assume
  const std::string type = MediaType(*content_type);
  return type == kJson || (type.size() > 5 && type.ends_with("+json"));
}

// The q parameter of one Accept element (RFC 9110 12.4.2); 1 when absent.
double QualityOf(std::string_view item) {
  std::size_t semicolon = item.find(';');
  while (semicolon != std::string_view::npos) {
    item.remove_prefix(semicolon + 1);
    semicolon = item.find(';');
    const std::string param = Lower(Trim(item.substr(0, semicolon)));
    if (param.starts_with("q=")) return std::strtod(param.c_str() + 2, nullptr);
  }
  return 1;
}

// 2025-11-25/2026-07-28: clients list application/json and text/event-stream. We only send
// application/json, so refuse (406) an Accept that excludes it; no Accept means anything.
bool AcceptsMedia(const std::string* accept, std::initializer_list<std::string_view> types) {
  std::string_view rest = *accept;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::string type = MediaType(item);
    if (std::find(types.begin(), types.end(), type) == types.end()) continue;
    if (QualityOf(item) <= 0) continue;  // "q=0": explicitly not acceptable
    return true;
  }
  return false;
}

// A legacy tools/call is answered as an SSE stream only to a client that lists
// text/event-stream (http_push.hpp); no Accept gets plain JSON.
bool AcceptsEventStream(const std::string* accept) {
  return accept != nullptr && AcceptsMedia(accept, {"text/event-stream", "text/*", "*/*"});
}

bool AcceptsJson(const std::string* accept) {
  return accept == nullptr || AcceptsMedia(accept, {kJson, "application/*", "*/*"});
}

// RFC 9110 field-value characters: visible ASCII, space and tab.
bool HeaderSafe(std::string_view value) {
  return std::all_of(value.begin(), value.end(),
                     [](unsigned char c) { return c == '\t' || (c >= 0x20 && c <= 0x7E); });
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Length leaks, content does not; tokens are long random strings.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The message's params._meta (mcp::RequestMeta), for a message that may lack params.
const json* ParamsMeta(const json& message) {
  auto params = message.find("params");
  return params == message.end() ? nullptr : mcp::RequestMeta(*params);
}

bool BodyIsModern(const json& message) {
  auto params = message.find("params");
  return params != message.end() && mcp::IsModernRequest(*params);
}

bool IsLegacyVersion(std::string_view version) {
  return std::find(mcp::kLegacyVersions.begin(), mcp::kLegacyVersions.end(), version) != mcp::kLegacyVersions.end();
}

HttpResponse MethodNotAllowed(std::string allow, std::string message) {
  HttpResponse r = JsonResponse(405, RpcError(mcp::kInvalidRequest, std::move(message)));
  r.headers.emplace_back("Allow", std::move(allow));
  return r;
}

}  // namespace

const std::string* HttpRequest::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return &value;
  }
  return nullptr;
}

int HttpRequest::Count(std::string_view lower_name) const {
  return static_cast<int>(std::count_if(headers.begin(), headers.end(),
                                        [&](const auto& h) { return h.first == lower_name; }));
}

HttpResponse BodyTooLarge(std::string_view target, std::size_t limit) {
  const std::string message = "Payload Too Large: request body over " + std::to_string(limit) +
                              " bytes (server.http.max_body_bytes); send less";
  if (PathOf(target) == "/mcp") return JsonResponse(413, RpcError(mcp::kInvalidRequest, message));
  return ApiError(413, message);
}

std::optional<std::string> DecodeHeaderValue(std::string_view value) {
  constexpr std::string_view kPrefix = "=?base64?";
  constexpr std::string_view kSuffix = "?=";
  if (value.size() < kPrefix.size() + kSuffix.size() || !value.starts_with(kPrefix) || !value.ends_with(kSuffix)) {
    return std::string(value);
  }
  std::string_view b64 = value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size());
  static constexpr std::array<signed char, 256> kTable = [] {
    std::array<signed char, 256> t{};
    t.fill(-1);
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
    return t;
  }();
  while (!b64.empty() && b64.back() == '=') b64.remove_suffix(1);
  if (b64.size() % 4 == 1 || value.size() - b64.size() - kPrefix.size() - kSuffix.size() > 2) return std::nullopt;
  std::string out;
  out.reserve(b64.size() * 3 / 4);
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : b64) {
    const int v = kTable[c];
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

HttpRouter::HttpRouter(Runtime& runtime, mcp::Dispatcher& dispatcher, const HttpServerOptions& options,
                       bool loopback)
    : runtime_(runtime),
      dispatcher_(dispatcher),
      options_(options),
      loopback_(loopback),
      sessions_(runtime.Clock(), options.session_idle_ms, options.max_sessions) {}

bool HttpRouter::OriginAllowed(const std::string& origin) const {
  for (const auto& allowed : options_.allowed_origins) {
    if (Lower(allowed) == Lower(origin)) return true;
  }
  if (!loopback_) return false;
  // A loopback server may be driven from pages on the same machine: scheme://host[:port]
  // with host localhost, 127.0.0.1 or [::1]. A DNS-rebound page has its own host name here.
  const std::string o = Lower(origin);
  std::string_view rest = o;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else {
    return false;
  }
  for (std::string_view host : {"localhost", "127.0.0.1", "[::1]"}) {
    if (!rest.starts_with(host)) continue;
    std::string_view port = rest.substr(host.size());
    if (port.empty()) return true;
    if (port.front() != ':' || port.size() < 2 || port.size() > 6) return false;
    port.remove_prefix(1);
    return std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); });
  }
  return false;
}

bool HttpRouter::HostAllowed(const HttpRequest& request) const {
  if (request.Count("host") == 0) return true;  // HTTP/1.0 without Host: no browser sends that
  if (request.Count("host") > 1) return false;
  std::string host = Lower(Trim(*request.Header("host")));
  // Drop the port: "[::1]:7077", "localhost:7077".
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    if (close == std::string::npos) return false;
    const std::string rest = host.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || rest.find_first_not_of("0123456789", 1) != std::string::npos)) {
      return false;
    }
    host.resize(close + 1);
  } else if (const std::size_t colon = host.find(':'); colon != std::string::npos) {
    if (host.find_first_not_of("0123456789", colon + 1) != std::string::npos) return false;
    host.resize(colon);
  }
  if (!host.empty() && host.back() == '.') host.pop_back();  // "localhost." is localhost
  for (const char* loopback : {"localhost", "127.0.0.1", "[::1]"}) {
    if (host == loopback) return true;
  }
  for (const auto& allowed : options_.allowed_hosts) {
    if (Lower(allowed) == host) return true;
  }
  return false;
}

std::optional<std::string> HttpRouter::Authenticate(const HttpRequest& request) const {
  if (options_.tokens.empty()) return options_.base_caller.agent_id;
  if (request.Count("authorization") != 1) return std::nullopt;
  std::string_view value = Trim(*request.Header("authorization"));
  if (value.size() < 7 || Lower(value.substr(0, 7)) != "bearer ") return std::nullopt;
  const std::string_view token = Trim(value.substr(7));
  const std::string* agent = nullptr;
  for (const auto& [known, agent_id] : options_.tokens) {  // no early exit: same time for any token
    if (ConstantTimeEquals(known, token)) agent = &agent_id;
  }
  if (agent == nullptr) return std::nullopt;
  return *agent;
}

std::shared_ptr<mcp::Session> HttpRouter::TempSession(const std::string& agent_id) const {
  auto session = std::make_shared<mcp::Session>();
  session->base_caller = options_.base_caller;
  session->base_caller.agent_id = agent_id;
  if (!options_.tokens.empty()) session->base_caller.agent_source = sdk::AgentSource::kToken;
  if (auto limits = options_.agent_projects.find(agent_id); limits != options_.agent_projects.end()) {
    session->allowed_projects = limits->second;
  }
  return session;
}

HttpRoute HttpRouter::Route(const HttpRequest& request) {
  const std::string* origin = request.Header("origin");
  HttpRoute route = RouteChecked(request, origin);
  if (origin == nullptr || !OriginAllowed(*origin)) return route;
  // CORS for allowed browser origins; the session id must be readable by the page.
  std::vector<std::pair<std::string, std::string>> cors{
      {"Access-Control-Allow-Origin", *origin},
      {"Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate"},
      {"Vary", "Origin"}};
  auto decorate = [cors](HttpResponse r) {
    r.headers.insert(r.headers.end(), cors.begin(), cors.end());
    return r;
  };
  if (route.work) {
    route.work = [work = std::move(route.work), decorate] { return decorate(work()); };
  } else {
    route.response = decorate(std::move(route.response));
  }
  return route;
}

HttpRoute HttpRouter::RouteChecked(const HttpRequest& request, const std::string* origin) {
  const std::string path(PathOf(request.target));
  // RFC 9112 3.2 (Host) and RFC 9110 5.3: a field that must appear once and appears twice
  // makes the request malformed; answering it by the first copy would let two checks read
  // different values. Say which header it was.
  for (const auto& [lower, shown] : kSingletonHeaders) {
    if (const int n = request.Count(lower); n > 1) {
      const std::string message = std::string("Bad Request: the ") + shown + " header was sent " + std::to_string(n) +
                                  " times; send it once";
      return Now(JsonResponse(400, path == "/mcp" ? RpcError(mcp::kInvalidRequest, message) : json{{"error", message}}));
    }
  }
  // streamable-http.mdx "Security & Endpoint": DNS-rebinding defence before anything else.
  if (origin != nullptr && !OriginAllowed(*origin)) {
    return Now(JsonResponse(403, RpcError(mcp::kInvalidRequest,
                                          "Forbidden: Origin '" + *origin +
                                              "' is not allowed; add it to the server's allowed origins")));
  }
  if (loopback_ && !HostAllowed(request)) {
    // A DNS-rebound page reaches a loopback server under its own name and, for a simple
    // request, may send no Origin at all: the Host header is what gives it away.
    const std::string* host = request.Header("host");
    const std::string message = "Forbidden: Host '" + (host ? *host : std::string()) +
                                "' is not this loopback server's name; use localhost, 127.0.0.1 or [::1], or add "
                                "the name to server.http.allowed_hosts";
    return Now(JsonResponse(403, path == "/mcp" ? RpcError(mcp::kInvalidRequest, message) : json{{"error", message}}));
  }
  if (request.method == "OPTIONS") {  // CORS preflight: carries no credentials
    HttpResponse r = Empty(204);
    r.headers.emplace_back("Allow", "GET, POST, DELETE, OPTIONS");
    if (origin != nullptr) {
      r.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
      r.headers.emplace_back("Access-Control-Allow-Headers", kCorsHeaders);
      r.headers.emplace_back("Access-Control-Max-Age", "600");
    }
    return Now(std::move(r));
  }
  if (path == "/healthz") {
    if (request.method != "GET") return Now(MethodNotAllowed("GET", "use GET /healthz"));
    return Now(Healthz());
  }

  const bool is_mcp = path == "/mcp";
  const auto agent = Authenticate(request);
  if (!agent) {
    const bool sent = request.Header("authorization") != nullptr;
    std::string message = sent ? "Unauthorized: the bearer token is not valid"
                               : "Unauthorized: send Authorization: Bearer <token> (a token from the server's "
                                 "configuration)";
    HttpResponse r = JsonResponse(401, is_mcp ? RpcError(mcp::kInvalidRequest, message) : json{{"error", message}});
    r.headers.emplace_back("WWW-Authenticate",
                           sent ? "Bearer realm=\"kioku\", error=\"invalid_token\"" : "Bearer realm=\"kioku\"");
    return Now(std::move(r));
  }

  if (is_mcp) {
    if (request.method == "POST") return PostMcp(request, *agent);
    if (request.method == "DELETE") return Now(DeleteMcp(request, *agent));
    return Now(MethodNotAllowed("POST, DELETE",
                                "Method Not Allowed: this server offers no server-initiated SSE stream; POST "
                                "JSON-RPC messages to /mcp"));
  }
  if (path == "/v1/tools") {
    if (request.method != "GET") return Now(ApiError(405, "use GET /v1/tools"));
    return Now(ListTools());
  }
  constexpr std::string_view kToolPrefix = "/v1/tools/";
  if (path.starts_with(kToolPrefix) && path.size() > kToolPrefix.size()) {
    const std::string name = path.substr(kToolPrefix.size());
    if (request.method != "POST") {
      HttpResponse r = ApiError(405, "use POST /v1/tools/" + name + " with the arguments object as the body");
      r.headers.emplace_back("Allow", "POST");
      return Now(std::move(r));
    }
    return CallToolApi(request, name, *agent);
  }
  return Now(ApiError(404, "no endpoint " + request.method + " " + path +
                               "; endpoints: POST /mcp, GET /healthz, GET /v1/tools, POST /v1/tools/{name}"));
}

HttpResponse HttpRouter::Healthz() const {
  return JsonResponse(200, json{{"status", "ok"}, {"tools", runtime_.Tools().size()}});
}

HttpRoute HttpRouter::PostMcp(const HttpRequest& request, const std::string& agent_id) {
  if (!IsJsonContentType(request.Header("content-type"))) {
    return Now(JsonResponse(415, RpcError(mcp::kInvalidRequest,
                                          "Unsupported Media Type: send one JSON-RPC message with Content-Type: "
                                          "application/json")));
  }
  if (!AcceptsJson(request.Header("accept"))) {
    return Now(JsonResponse(406, RpcError(mcp::kInvalidRequest,
                                          "Not Acceptable: this server answers application/json; send Accept: "
                                          "application/json, text/event-stream")));
  }
  json parse_error;
  auto parsed = mcp::Dispatcher::ParseMessage(request.body, parse_error);
  if (!parsed) return Now(JsonResponse(400, parse_error));
  json message = std::move(*parsed);
  if (!message.is_object()) {
    return Now(JsonResponse(400, RpcError(mcp::kInvalidRequest,
                                          message.is_array()
                                              ? "Invalid Request: JSON-RPC batches are not supported by MCP; POST "
                                                "one message per request"
                                              : "Invalid Request: expected a JSON-RPC 2.0 object")));
  }
  if (const std::string* project = request.Header("kioku-project"); project != nullptr && message.contains("method")) {
    // The per-request project travels in _meta, where the dispatcher reads it.
    auto decoded = DecodeHeaderValue(*project);
    if (!decoded || request.Count("kioku-project") > 1) {
      return Now(JsonResponse(400, RpcError(message.value("id", json()), mcp::kInvalidRequest,
                                            "Bad Request: send one Kioku-Project header: an absolute path, a "
                                            "file:// URI or a project id (non-ASCII as =?base64?...?=)")));
    }
    if (!message.contains("params") || !message["params"].is_object()) message["params"] = json::object();
    json& params = message["params"];
    if (!params.contains("_meta") || !params["_meta"].is_object()) params["_meta"] = json::object();
    params["_meta"][mcp::kMetaProject] = *decoded;
  }
  if (message.contains("method") && message.contains("id") && BodyIsModern(message)) {
    return PostModern(request, message, agent_id);
  }
  return PostLegacy(request, message, agent_id);
}

HttpRoute HttpRouter::PostModern(const HttpRequest& request, const json& message, const std::string& agent_id) {
  const json& id = message["id"];
  const json& method = message["method"];
  auto mismatch = [&](std::string text) {
    return Now(JsonResponse(400, RpcError(id, mcp::kHeaderMismatch, "Header mismatch: " + std::move(text))));
  };
  for (const char* name : {"mcp-protocol-version", "mcp-method", "mcp-name"}) {
    if (request.Count(name) > 1) return mismatch(std::string(name) + " header sent more than once");
    if (const std::string* v = request.Header(name); v != nullptr && !HeaderSafe(*v)) {
      return mismatch(std::string(name) + " header holds characters outside visible ASCII; use the =?base64?...?= form");
    }
  }
  // streamable-http.mdx "Server Validation": each mirrored header must be present and equal
  // to the body. A non-string body value is left to the dispatcher (-32602, also 400).
  const json& body_version = (*ParamsMeta(message))[kMetaVersion];
  const std::string* header_version = request.Header("mcp-protocol-version");
  if (header_version == nullptr) {
    return mismatch("missing MCP-Protocol-Version header; send MCP-Protocol-Version: " +
                    (body_version.is_string() ? body_version.get<std::string>() : std::string(mcp::kModernVersion)));
  }
  if (body_version.is_string() && *header_version != body_version.get<std::string>()) {
    return mismatch("MCP-Protocol-Version header value '" + *header_version + "' does not match body value '" +
                    body_version.get<std::string>() + "'");
  }
  if (method.is_string()) {
    const std::string& m = method.get_ref<const std::string&>();
    const std::string* header_method = request.Header("mcp-method");
    if (header_method == nullptr) return mismatch("missing Mcp-Method header; send Mcp-Method: " + m);
    if (*header_method != m) {
      return mismatch("Mcp-Method header value '" + *header_method + "' does not match body value '" + m + "'");
    }
    const char* name_field = m == "tools/call" || m == "prompts/get" ? "name" : m == "resources/read" ? "uri" : nullptr;
    const json& params = message["params"];
    if (name_field != nullptr && params.contains(name_field) && params[name_field].is_string()) {
      const std::string& body_name = params[name_field].get_ref<const std::string&>();
      const std::string* header_name = request.Header("mcp-name");
      if (header_name == nullptr) return mismatch("missing Mcp-Name header; send Mcp-Name: " + body_name);
      auto decoded = DecodeHeaderValue(*header_name);
      if (!decoded) return mismatch("Mcp-Name header value '" + *header_name + "' is not valid =?base64?...?= text");
      if (*decoded != body_name) {
        return mismatch("Mcp-Name header value '" + *decoded + "' does not match body value '" + body_name + "'");
      }
    }
  }
  // Stateless: an Mcp-Session-Id header is ignored (streamable-http.mdx "Earlier Streamable
  // HTTP Revisions"); the session only carries the caller identity.
  auto session = TempSession(agent_id);
  auto answer = [this, message, session]() {
    auto response = dispatcher_.Handle(message, *session);
    if (!response) return Empty(202);  // cancelled: nothing more is due for it
    return JsonResponse(ModernStatus(*response), *response);
  };
  if (mcp::Dispatcher::IsToolCall(message)) return HttpRoute{{}, std::move(answer), {}};
  return Now(answer());
}

HttpRoute HttpRouter::PostLegacy(const HttpRequest& request, const json& message, const std::string& agent_id) {
  const bool has_method = message.contains("method");
  const bool is_request = has_method && message.contains("id");
  const bool is_client_response = !has_method && (message.contains("result") || message.contains("error"));
  const json id = is_request ? message["id"] : json(nullptr);
  if (!has_method && !is_client_response) {
    auto session = TempSession(agent_id);
    json response = dispatcher_.Handle(message, *session).value_or(RpcError(mcp::kInvalidRequest, "Invalid Request"));
    return Now(JsonResponse(400, response));
  }
  if (const int n = request.Count("mcp-protocol-version"); n > 1) {
    return Now(JsonResponse(400, RpcError(id, mcp::kInvalidRequest,
                                          "Bad Request: the MCP-Protocol-Version header was sent " + std::to_string(n) +
                                              " times; send it once")));
  }
  const std::string* header_version = request.Header("mcp-protocol-version");
  if (header_version != nullptr && *header_version != mcp::kModernVersion && !IsLegacyVersion(*header_version)) {
    return Now(JsonResponse(400, RpcError(id, mcp::kUnsupportedProtocolVersion, "Unsupported protocol version",
                                          json{{"supported", mcp::SupportedVersions()}, {"requested", *header_version}})));
  }
  const bool modern_header = header_version != nullptr && *header_version == mcp::kModernVersion;
  if (is_request && modern_header) {
    return Now(JsonResponse(
        400, RpcError(id, mcp::kInvalidParams,
                      std::string("Invalid params: with MCP-Protocol-Version: ") + mcp::kModernVersion +
                          " every request needs params._meta[\"" + kMetaVersion +
                          "\"] and [\"io.modelcontextprotocol/clientCapabilities\"]; or send initialize for a "
                          "legacy session")));
  }

  if (is_request && message["method"] == "initialize") {
    // Always a new session; a stale Mcp-Session-Id on initialize is ignored.
    auto temp = TempSession(agent_id);
    auto session = sessions_.Make(temp->base_caller);
    session->allowed_projects = temp->allowed_projects;
    InstallHttpPush(*session);  // roots/list reaches the client on a tools/call's SSE answer
    auto response = dispatcher_.Handle(message, *session);
    if (!response) return Now(Empty(202));
    HttpResponse r = JsonResponse(LegacyStatus(*response), *response);
    if (response->contains("result")) {
      r.headers.emplace_back("Mcp-Session-Id", session->id);
      sessions_.Insert(std::move(session));
    }
    return Now(std::move(r));
  }

  const std::string* session_id = request.Header("mcp-session-id");
  if (session_id == nullptr) {
    // Notifications carry no id and modern clients send no session: accept them alone.
    if (!is_request && (modern_header || BodyIsModern(message))) return Now(Empty(202));
    return Now(JsonResponse(
        400, RpcError(id, mcp::kInvalidRequest,
                      "Bad Request: missing Mcp-Session-Id header; send initialize first and echo the "
                      "Mcp-Session-Id it returns, or send 2026-07-28 requests with params._meta")));
  }
  auto session = sessions_.Find(*session_id, agent_id);
  if (!session) {
    return Now(JsonResponse(404, RpcError(id, mcp::kInvalidRequest,
                                          "Session not found: it ended or expired; send initialize without "
                                          "Mcp-Session-Id to start a new one")));
  }
  // A header naming another supported legacy version is accepted, as the official SDKs do
  // (their servers check only that the version is supported); unsupported ones were refused
  // above and the modern one is not a session's.
  if (!is_request) {
    dispatcher_.Handle(message, *session);  // e.g. notifications/cancelled; never answered
    return Now(Empty(202));
  }
  auto answer = [this, message, session]() {
    auto response = dispatcher_.Handle(message, *session);
    if (!response) return Empty(202);  // cancelled by notifications/cancelled
    return JsonResponse(LegacyStatus(*response), *response);
  };
  if (mcp::Dispatcher::IsToolCall(message)) {
    HttpRoute route{{}, std::move(answer), {}};
    // A queued roots/list goes first on this call's answer; the call waits for the reply.
    if (AcceptsEventStream(request.Header("accept"))) route.events = TakeHttpPushed(*session);
    return route;
  }
  return Now(answer());
}

HttpResponse HttpRouter::DeleteMcp(const HttpRequest& request, const std::string& agent_id) {
  const std::string* session_id = request.Header("mcp-session-id");
  if (session_id == nullptr) {
    return JsonResponse(400, RpcError(mcp::kInvalidRequest, "Bad Request: DELETE /mcp needs the Mcp-Session-Id header"));
  }
  if (!sessions_.Erase(*session_id, agent_id)) {
    return JsonResponse(404, RpcError(mcp::kInvalidRequest, "Session not found: it already ended or expired"));
  }
  return Empty(204);
}

HttpResponse HttpRouter::ListTools() {
  // The dispatcher builds the entries, so /v1/tools and tools/list never drift apart.
  auto session = TempSession(options_.base_caller.agent_id);
  json tools = json::array();
  json cursor = nullptr;
  for (int page = 0; page < 10'000; ++page) {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    auto response = dispatcher_.Handle(
        json{{"jsonrpc", "2.0"}, {"id", page}, {"method", "tools/list"}, {"params", std::move(params)}}, *session);
    if (!response || !response->contains("result")) {
      return ApiError(500, "listing tools failed: " + (response ? sdk::DumpJson((*response)["error"]) : std::string()));
    }
    json& result = (*response)["result"];
    for (auto& tool : result["tools"]) tools.push_back(std::move(tool));
    if (!result.contains("nextCursor")) break;
    cursor = result["nextCursor"];
  }
  return JsonResponse(200, json{{"tools", std::move(tools)}});
}

HttpRoute HttpRouter::CallToolApi(const HttpRequest& request, const std::string& name, const std::string& agent_id) {
  if (!IsJsonContentType(request.Header("content-type"))) {
    return Now(ApiError(415, "send the arguments as a JSON object with Content-Type: application/json"));
  }
  json args = json::object();
  if (!Trim(request.body).empty()) {
    json parse_error;
    auto parsed = mcp::Dispatcher::ParseMessage(request.body, parse_error);
    if (!parsed) {
      return Now(ApiError(400, parse_error["error"]["message"].get<std::string>() +
                                   "; send the tool's arguments as a JSON object"));
    }
    args = std::move(*parsed);
  }
  if (!args.is_object()) return Now(ApiError(400, "the body must be a JSON object of the tool's arguments"));
  if (runtime_.FindTool(name) == nullptr) {
    std::string hint = runtime_.UnlistedToolHint(name);
    return Now(ApiError(404, "unknown tool '" + name + "'; " +
                                 (hint.empty() ? "GET /v1/tools lists the available tools" : hint)));
  }
  auto session = TempSession(agent_id);
  json message{{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "tools/call"},
               {"params", {{"name", name}, {"arguments", std::move(args)}}}};
  if (const std::string* project = request.Header("kioku-project"); project != nullptr) {
    auto decoded = DecodeHeaderValue(*project);
    if (!decoded) return Now(ApiError(400, "Kioku-Project must be a path, a file:// URI or a project id"));
    message["params"]["_meta"][mcp::kMetaProject] = *decoded;
  }
  return HttpRoute{{}, [this, message = std::move(message), session]() {
                     auto response = dispatcher_.Handle(message, *session);
                     if (!response) return ApiError(500, "the call produced no result");
                     if (auto result = response->find("result"); result != response->end()) {
                       return JsonResponse(200, *result);
                     }
                     const int code = ErrorCode(*response);
                     return ApiError(code == mcp::kInvalidParams ? 400 : code == mcp::kProjectForbidden ? 403 : 500,
                                     (*response)["error"].value("message", std::string("tool call failed")));
                   }, {}};
}

}  // namespace kioku::host
