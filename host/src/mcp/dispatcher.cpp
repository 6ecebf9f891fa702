#include "mcp/dispatcher.hpp"

#include <algorithm>

#include "context/context_block.hpp"
#include "kioku/sdk/text.hpp"
#include "mcp/client_project.hpp"
#include "runtime.hpp"

namespace kioku::host::mcp {

const nlohmann::json* RequestMeta(const nlohmann::json& params) {
  if (!params.is_object()) return nullptr;
  auto it = params.find("_meta");
  return (it != params.end() && it->is_object()) ? &*it : nullptr;
}

bool IsModernRequest(const nlohmann::json& params) {
  const nlohmann::json* meta = RequestMeta(params);
  return meta != nullptr && meta->contains(kMetaVersion);
}

std::vector<std::string> SupportedVersions() {
  std::vector<std::string> v{kModernVersion};
  v.insert(v.end(), kLegacyVersions.begin(), kLegacyVersions.end());
  return v;
}

namespace {

using nlohmann::json;

constexpr const char* kRootsKey = "roots";  // our key in InputRequests / InputResponses

/// A protocol fault raised while handling a request; becomes a JSON-RPC error.
struct RpcError {
  int code;
  std::string message;
  json data = nullptr;
};

std::string RequestKey(const Session& session, const json& id) { return session.id + "|" + id.dump(); }

// Checks the per-request fields of a modern request (basic_index.mdx "Per-request protocol
// fields"): the version must be one we implement, clientCapabilities must be present.
void CheckModernMeta(const json& params) {
  const json& meta = *RequestMeta(params);
  const json& version = meta[kMetaVersion];
  if (!version.is_string()) {
    throw RpcError{kInvalidParams, "_meta." + std::string(kMetaVersion) + " must be a string such as \"" +
                                       kModernVersion + "\""};
  }
  if (version.get<std::string>() != kModernVersion) {
    throw RpcError{kUnsupportedProtocolVersion, "Unsupported protocol version",
                   json{{"supported", SupportedVersions()}, {"requested", version}}};
  }
  auto caps = meta.find(kMetaCapabilities);
  if (caps == meta.end() || !caps->is_object()) {
    throw RpcError{kInvalidParams, "_meta." + std::string(kMetaCapabilities) +
                                       " is required on every 2026-07-28 request (send {} if none)"};
  }
}

}  // namespace

Dispatcher::Dispatcher(Runtime& runtime, DispatcherOptions options)
    : runtime_(runtime), options_(std::move(options)) {}

json Dispatcher::ErrorResponse(const json& id, int code, std::string message, json data) {
  json error{{"code", code}, {"message", std::move(message)}};
  if (!data.is_null()) error["data"] = std::move(data);
  // JSON-RPC 2.0 section 5: "If there was an error in detecting the id in the Request object
  // (e.g. Parse error/Invalid Request), it MUST be Null." The MCP schemas list the id as
  // optional; the official SDK servers send null, and clients match neither form to a request.
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

bool Dispatcher::IsToolCall(const json& message) {
  return message.is_object() && message.contains("id") && message.value("method", json()) == "tools/call";
}

std::optional<json> Dispatcher::ParseMessage(std::string_view text, json& error_response) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) {
        error_response = ErrorResponse(nullptr, kParseError,
                                       "Parse error: nesting deeper than " + std::to_string(kMaxDepth) + " levels");
        return std::nullopt;
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    error_response = ErrorResponse(nullptr, kParseError, std::string("Parse error: ") + e.what());
  }
  if (!sdk::IsValidUtf8(text)) {
    // Valid JSON but for a stray byte in a string: answer with the request's id when it
    // can still be read, so the client is not left waiting for its timeout. The message
    // itself is refused — its text is not what the client meant to send.
    try {
      const json repaired = json::parse(sdk::SanitizeUtf8(text));
      const json id = repaired.is_object() ? repaired.value("id", json()) : json();
      if (id.is_string() || id.is_number_integer()) {
        error_response = ErrorResponse(id, kParseError,
                                       "Parse error: the message is not valid UTF-8 (an invalid byte inside a "
                                       "string); send UTF-8 text");
      }
    } catch (const json::exception&) {
      // Not JSON even with the bytes replaced: the id-less answer above stands.
    }
  }
  return std::nullopt;
}

std::string Dispatcher::HandleText(std::string_view text, Session& session) {
  json error;
  auto message = ParseMessage(text, error);
  if (!message) return sdk::DumpJson(error);
  auto response = Handle(*message, session);
  return response ? sdk::DumpJson(*response) : std::string();
}

void Dispatcher::CancelAll() {
  std::lock_guard lock(inflight_mutex_);
  // Also every call not yet registered: read and queued for a worker, or not even parsed.
  shutting_down_.store(true);
  for (auto& [key, flag] : inflight_) flag->store(true);
}

std::optional<json> Dispatcher::Handle(const json& message, Session& session) {
  if (!message.is_object()) {
    return ErrorResponse(nullptr, kInvalidRequest,
                         message.is_array() ? "Invalid Request: JSON-RPC batches are not supported by MCP; send one "
                                              "message per line"
                                            : "Invalid Request: expected a JSON-RPC 2.0 object");
  }
  const bool has_id = message.contains("id");
  const json id = has_id ? message["id"] : json(nullptr);
  const bool valid_id = !has_id || id.is_string() || id.is_number_integer();
  auto method_it = message.find("method");
  if (method_it == message.end()) {
    // A response from the client (to our roots/list) or garbage.
    if (message.contains("result") || message.contains("error")) {
      TakeRootsAnswer(message, session);
      return std::nullopt;
    }
    return ErrorResponse(valid_id ? id : json(nullptr), kInvalidRequest, "Invalid Request: missing \"method\"");
  }
  if (message.value("jsonrpc", json()) != "2.0" || !method_it->is_string() || !valid_id) {
    return ErrorResponse(valid_id ? id : json(nullptr), kInvalidRequest,
                         "Invalid Request: need \"jsonrpc\": \"2.0\", a string \"method\" and a string or integer \"id\"");
  }
  const std::string method = *method_it;
  static const json kNoParams = json::object();
  const auto params_it = message.find("params");
  const json& params = params_it != message.end() ? *params_it : kNoParams;  // not copied (a batch write's ~10 KB)

  if (!has_id) {  // notification: never answered
    if (method == "notifications/cancelled") Cancel(params, session);
    if (method == "notifications/initialized" || method == "notifications/roots/list_changed") RequestRoots(session);
    return std::nullopt;
  }
  if (!params.is_object()) return ErrorResponse(id, kInvalidParams, "Invalid params: \"params\" must be an object");

  const bool modern = IsModernRequest(params);
  std::shared_ptr<std::atomic<bool>> cancel;
  bool started = false;  // a tools/call that ran (was not cancelled before it began)
  try {
    if (modern) CheckModernMeta(params);
    json result;
    if (method == "initialize") {
      if (modern) throw RpcError{kMethodNotFound, "initialize is not part of protocol " + std::string(kModernVersion) +
                                                      "; call server/discover or send requests with _meta directly"};
      result = Initialize(params, session);
    } else if (method == "ping") {
      // 2026-07-28 removed ping (basic_versioning.mdx): answered like initialize there.
      if (modern) throw RpcError{kMethodNotFound, "ping is not part of protocol " + std::string(kModernVersion) +
                                                      "; send server/discover to check the server"};
      result = json::object();
    } else if (method == "server/discover") {
      result = Discover();
    } else if (method == "tools/list") {
      result = ListTools(params, modern);
    } else if (OffersContext() && method == "prompts/list") {
      result = ListPrompts(modern);
    } else if (OffersContext() && method == "prompts/get") {
      result = GetPrompt(params, session, modern);
    } else if (OffersContext() && method == "resources/list") {
      result = ListResources(modern);
    } else if (OffersContext() && method == "resources/templates/list") {
      result = json{{"resourceTemplates", json::array()}};
      if (modern) result.update({{"ttlMs", options_.list_ttl_ms}, {"cacheScope", "public"}});
    } else if (OffersContext() && method == "resources/read") {
      result = ReadResource(params, session, modern);
    } else if (method == "tools/call") {
      {
        // A cancellation may overtake its request (transports run calls on workers): it
        // then left a raised flag under this key, and the call is never started.
        std::lock_guard lock(inflight_mutex_);
        auto& slot = inflight_[RequestKey(session, id)];
        if (!slot) slot = std::make_shared<std::atomic<bool>>(false);
        if (shutting_down_.load()) slot->store(true);  // queued when shutdown began
        cancel = slot;
      }
      started = !cancel->load();
      if (started) result = CallTool(params, session, modern, cancel);
    } else {
      throw RpcError{kMethodNotFound, "Method not found: " + method};
    }
    if (cancel) {
      std::lock_guard lock(inflight_mutex_);
      inflight_.erase(RequestKey(session, id));
      // No answer when the client cancelled (it no longer wants one) or when the call was
      // queued as the server began to stop (it never ran). A call that ran while the server
      // stops is answered: what it wrote is kept, and a client still reading learns so
      // instead of retrying a write that was stored.
      if (cancel->load() && !(started && shutting_down_.load())) return std::nullopt;
    }
    if (modern) {
      if (!result.contains("resultType")) result["resultType"] = "complete";
      result["_meta"][kMetaServerInfo] = {{"name", options_.server_name}, {"version", options_.server_version}};
    }
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  } catch (const RpcError& e) {
    if (cancel) {
      std::lock_guard lock(inflight_mutex_);
      inflight_.erase(RequestKey(session, id));
    }
    return ErrorResponse(id, e.code, e.message, e.data);
  } catch (const std::exception& e) {
    if (cancel) {
      std::lock_guard lock(inflight_mutex_);
      inflight_.erase(RequestKey(session, id));
    }
    return ErrorResponse(id, kInternalError, std::string("Internal error: ") + e.what());
  }
}

json Dispatcher::Initialize(const json& params, Session& session) {
  std::string requested = params.value("protocolVersion", json("")).is_string()
                              ? params.value("protocolVersion", std::string())
                              : std::string();
  // Version negotiation (2025-11-25 basic_lifecycle.mdx): echo a supported version, else
  // answer with our latest and let the client decide.
  const bool supported =
      std::find(kLegacyVersions.begin(), kLegacyVersions.end(), requested) != kLegacyVersions.end();
  session.protocol_version = supported ? requested : kLegacyVersions.front();
  if (auto info = params.find("clientInfo"); info != params.end() && info->is_object()) {
    if (auto name = info->find("name"); name != info->end() && name->is_string()) {
      session.client_name = name->get<std::string>();
    }
  }
  if (auto caps = params.find("capabilities"); caps != params.end() && caps->is_object()) {
    session.client_roots = caps->contains("roots");
  }
  return json{{"protocolVersion", session.protocol_version},
              {"capabilities", Capabilities(false)},
              {"serverInfo", {{"name", options_.server_name}, {"version", options_.server_version}}},
              {"instructions", options_.instructions}};
}

json Dispatcher::Discover() const {
  return json{{"supportedVersions", SupportedVersions()},
              {"capabilities", Capabilities(true)},
              {"instructions", options_.instructions},
              {"ttlMs", options_.list_ttl_ms},
              {"cacheScope", "public"}};
}

json Dispatcher::ToolJson(const RegisteredTool& tool) const {
  const auto& s = tool.spec;
  json annotations{{"readOnlyHint", s.annotations.read_only},
                   {"destructiveHint", s.annotations.destructive},
                   {"idempotentHint", s.annotations.idempotent},
                   {"openWorldHint", s.annotations.open_world}};
  if (!s.title.empty()) annotations["title"] = s.title;
  json t{{"name", s.name}, {"description", s.description}, {"inputSchema", s.input_schema},
         {"annotations", std::move(annotations)}};
  if (!s.title.empty()) t["title"] = s.title;
  if (!s.output_schema.is_null()) t["outputSchema"] = s.output_schema;
  return t;
}

json Dispatcher::ListTools(const json& params, bool modern) const {
  auto tools = runtime_.Tools();
  std::size_t offset = 0;
  if (auto c = params.find("cursor"); c != params.end() && !c->is_null()) {
    // Cursors are opaque to clients; ours is "t:<offset>".
    const std::string cursor = c->is_string() ? c->get<std::string>() : std::string();
    bool ok = cursor.size() > 2 && cursor.rfind("t:", 0) == 0 &&
              cursor.find_first_not_of("0123456789", 2) == std::string::npos && cursor.size() < 12;
    if (ok) offset = std::stoul(cursor.substr(2));
    if (!ok || offset > tools.size()) {
      throw RpcError{kInvalidParams, "Invalid params: unknown cursor; send the nextCursor of a previous tools/list"};
    }
  }
  json list = json::array();
  const std::size_t end = std::min(tools.size(), offset + std::max<std::size_t>(1, options_.page_size));
  for (std::size_t i = offset; i < end; ++i) list.push_back(ToolJson(*tools[i]));
  json result{{"tools", std::move(list)}};
  if (end < tools.size()) result["nextCursor"] = "t:" + std::to_string(end);
  if (modern) {
    result["ttlMs"] = options_.list_ttl_ms;
    result["cacheScope"] = "public";
  }
  return result;
}

json Dispatcher::CallTool(const json& params, Session& session, bool modern,
                          const std::shared_ptr<std::atomic<bool>>& cancel) {
  auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->is_string()) {
    throw RpcError{kInvalidParams, "Invalid params: tools/call needs \"name\" (string) and optional \"arguments\" (object)"};
  }
  const std::string name = *name_it;
  static const json kNoArguments = json::object();
  const json* args = &kNoArguments;  // not copied: a batch write's arguments are ~10 KB
  if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
    if (!a->is_object()) {
      throw RpcError{kInvalidParams, "Invalid params: \"arguments\" must be an object of the tool's inputSchema"};
    }
    args = &*a;
  }
  const RegisteredTool* tool = runtime_.FindTool(name);
  if (tool == nullptr) {
    std::string hint = runtime_.UnlistedToolHint(name);
    throw RpcError{kInvalidParams, "Unknown tool: " + name + "; " +
                                       (hint.empty() ? "tools/list shows the available tools" : hint)};
  }
  if (tool->every_project && !session.allowed_projects.empty()) {
    // Whatever project the call names, the tool reads every project's data.
    throw RpcError{kProjectForbidden, "Forbidden: " + name + " reads every project's data, and agent '" +
                                          session.base_caller.agent_id + "' has a token limited to some projects; "
                                          "ask the operator to run `kioku export`, or use a token without `projects`"};
  }

  sdk::Caller caller = CallerFor(params, session, modern);
  json ask;
  auto project = CallProject(params, session, modern, ask);
  if (!project) return ask;
  if (!project->id.empty()) {
    caller.project_id = project->id;
    caller.project_root = project->root;
    if (!project->root.empty()) {
      caller.working_dir = project->path.empty() ? project->root : project->root + "/" + project->path;
    }
  }

  auto outcome = runtime_.Call(name, *args, caller, cancel.get());
  auto& r = outcome.result;  // moved into the response, not copied
  json content = json::array();
  const bool text_block = !r.text.empty() || r.structured.is_null();
  const bool json_block = !r.structured.is_null() && (options_.json_text_block || r.text.empty());
  if (text_block) content.push_back({{"type", "text"}, {"text", std::move(r.text)}});
  if (json_block) content.push_back({{"type", "text"}, {"text", sdk::DumpJson(r.structured)}});
  json result{{"content", std::move(content)}, {"isError", r.is_error}};
  if (!r.structured.is_null()) result["structuredContent"] = std::move(r.structured);
  return result;
}

sdk::Caller Dispatcher::CallerFor(const json& params, const Session& session, bool modern) const {
  sdk::Caller caller = session.base_caller;
  caller.session_id = session.id;
  caller.instance_id = session.instance_id;
  std::string client_name = session.client_name;
  if (modern) {
    const json& meta = *RequestMeta(params);
    if (auto info = meta.find(kMetaClientInfo); info != meta.end() && info->is_object()) {
      client_name = info->value("name", client_name);
    }
  }
  caller.client_name = client_name;
  // base_caller.agent_id comes from a bearer token or KIOKU_AGENT_ID, both set by the
  // operator for one agent instance; clientInfo only names the client software and is
  // self-reported (2026-07-28 basic_index.mdx: not for behaviour), so it fills in last.
  if (caller.agent_id.empty() && !client_name.empty()) {
    caller.agent_id = client_name;
    caller.agent_source = sdk::AgentSource::kClientInfo;
  }
  if (caller.agent_id.empty()) caller.agent_id = "unknown";
  return caller;
}

bool Dispatcher::OffersContext() const { return !runtime_.ContextProviders().empty(); }

json Dispatcher::Capabilities(bool modern) const {
  json caps{{"tools", modern ? json::object() : json{{"listChanged", false}}}};
  if (OffersContext()) {
    caps["prompts"] = {{"listChanged", false}};
    caps["resources"] = {{"listChanged", false}, {"subscribe", false}};
  }
  return caps;
}

namespace {

constexpr const char* kContextDescription =
    "What kioku remembers for this project: pinned and top-ranked memories, the last "
    "session's summary, open handoffs, live file claims by others, open questions and plan "
    "tasks, each labelled [kind|trust], under a token budget.";
constexpr const char* kEmptyContext = "kioku has nothing stored for this project yet.";

}  // namespace

std::string Dispatcher::ContextText(const std::string& query, const sdk::Caller& caller) {
  ContextOptions options;
  options.query = query;
  options.token_budget = options_.context_token_budget;
  options.max_chars = options_.context_max_chars;
  std::string text = BuildContext(runtime_, caller, options).text;
  if (text.empty()) {
    text = query.empty() ? kEmptyContext : "kioku has nothing relevant to \"" + sdk::TruncateUtf8(query, 80) + "\".";
  }
  return text;
}

json Dispatcher::ListPrompts(bool modern) const {
  json prompt{{"name", kContextPromptName},
              {"title", "kioku: project memory"},
              {"description", kContextDescription},
              {"arguments", json::array({json{{"name", "query"},
                                              {"description", "Only what is relevant to this text (optional)."},
                                              {"required", false}}})}};
  json result{{"prompts", json::array({std::move(prompt)})}};
  if (modern) result.update({{"ttlMs", options_.list_ttl_ms}, {"cacheScope", "public"}});
  return result;
}

json Dispatcher::GetPrompt(const json& params, Session& session, bool modern) {
  auto name = params.find("name");
  if (name == params.end() || !name->is_string() || name->get<std::string>() != kContextPromptName) {
    throw RpcError{kInvalidParams, "Invalid params: unknown prompt; prompts/list offers \"context\""};
  }
  std::string query;
  if (auto args = params.find("arguments"); args != params.end() && !args->is_null()) {
    if (!args->is_object()) throw RpcError{kInvalidParams, "Invalid params: \"arguments\" must be an object of strings"};
    if (auto q = args->find("query"); q != args->end() && !q->is_null()) {
      if (!q->is_string()) throw RpcError{kInvalidParams, "Invalid params: arguments.query must be a string"};
      query = *q;
    }
  }
  const std::string text = ContextText(query, CallerFor(params, session, modern));
  return json{{"description", "kioku memory for this project"},
              {"messages", json::array({json{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})}};
}

json Dispatcher::ListResources(bool modern) const {
  json resource{{"uri", kContextResourceUri},
                {"name", "context"},
                {"title", "kioku: project memory"},
                {"description", kContextDescription},
                {"mimeType", "text/plain"}};
  json result{{"resources", json::array({std::move(resource)})}};
  if (modern) result.update({{"ttlMs", options_.list_ttl_ms}, {"cacheScope", "public"}});
  return result;
}

json Dispatcher::ReadResource(const json& params, Session& session, bool modern) {
  auto uri = params.find("uri");
  if (uri == params.end() || !uri->is_string()) {
    throw RpcError{kInvalidParams, "Invalid params: resources/read needs \"uri\" (string), e.g. \"kioku://context\""};
  }
  if (uri->get<std::string>() != kContextResourceUri) {
    throw RpcError{kInvalidParams, "Resource not found", json{{"uri", *uri}}};
  }
  json result{{"contents", json::array({json{{"uri", kContextResourceUri},
                                            {"mimeType", "text/plain"},
                                            {"text", ContextText("", CallerFor(params, session, modern))}}})}};
  // The block changes with every write and is the caller's own: never shared, not cached.
  if (modern) result.update({{"ttlMs", 0}, {"cacheScope", "private"}});
  return result;
}

void Dispatcher::RequestRoots(Session& session) {
  if (!session.client_roots || !session.send) return;
  json request;
  {
    std::lock_guard lock(session.roots->mutex);
    session.roots->request_id = "kioku-roots-" + std::to_string(++session.roots->sequence);
    session.roots->pending = true;
    request = json{{"jsonrpc", "2.0"}, {"id", session.roots->request_id}, {"method", "roots/list"}};
  }
  session.send(request);
}

bool Dispatcher::TakeRootsAnswer(const json& message, Session& session) {
  auto id = message.find("id");
  if (id == message.end() || !id->is_string()) return false;
  auto& state = *session.roots;
  {
    std::lock_guard lock(state.mutex);
    if (*id != state.request_id) return false;
    state.pending = false;
    if (auto result = message.find("result"); result != message.end() && result->is_object()) {
      state.project = ProjectFromRoots(result->value("roots", json::array()), session.base_caller.working_dir,
                                       options_.projects);
    }
  }
  state.answered.notify_all();
  return true;
}

// The project of one call, most specific first: a project the request names
// (_meta["dev.kioku/project"], the HTTP Kioku-Project header); MCP roots (2026-07-28: the
// roots answer in params.inputResponses, asked for with an InputRequiredResult; legacy: the
// connection's answer to roots/list); the connection's default (an HTTP token's first
// project); the server's own working directory (base_caller). A connection limited to
// some projects (token `projects`) is refused any other with kProjectForbidden.
std::optional<sdk::ProjectInfo> Dispatcher::CallProject(const json& params, Session& session, bool modern,
                                                        json& ask) {
  std::optional<sdk::ProjectInfo> chosen;
  std::string named_by;
  if (const json* meta = RequestMeta(params); meta != nullptr && meta->contains(kMetaProject)) {
    const json& value = (*meta)[kMetaProject];
    if (value.is_string()) chosen = ProjectNamedByClient(value.get<std::string>(), options_.projects);
    if (!chosen) {
      throw RpcError{kInvalidParams, std::string("Invalid params: the project (Kioku-Project header or _meta[\"") +
                                         kMetaProject + "\"]) must be an absolute path, a file:// URI or a project "
                                         "id such as github.com/acme/webapp"};
    }
    named_by = "the request";
  }
  if (!chosen && modern) {
    const json& caps = (*RequestMeta(params))[kMetaCapabilities];
    if (caps.is_object() && caps.contains("roots")) {
      auto responses = params.find("inputResponses");
      if (responses != params.end() && responses->is_object() && responses->contains(kRootsKey)) {
        const json& answer = (*responses)[kRootsKey];
        chosen = ProjectFromRoots(answer.is_object() ? answer.value("roots", json::array()) : json::array(),
                                  session.base_caller.working_dir, options_.projects);
        named_by = "MCP roots";
      } else {
        ask = json{{"resultType", "input_required"},
                   {"inputRequests", {{kRootsKey, {{"method", "roots/list"}}}}}};
        return std::nullopt;
      }
    }
  }
  if (!chosen && !modern) {
    auto& state = *session.roots;
    std::unique_lock lock(state.mutex);
    if (state.pending) {
      // The answer to roots/list is on its way (it is read by the transport's reader
      // thread while this call waits on a worker).
      state.answered.wait_for(lock, std::chrono::milliseconds(options_.roots_wait_ms), [&] { return !state.pending; });
    }
    if (state.project) {
      chosen = state.project;
      named_by = "MCP roots";
    }
  }
  if (!chosen && !session.allowed_projects.empty()) chosen = session.allowed_projects.front();
  if (!chosen) return sdk::ProjectInfo{};  // keep base_caller's project
  if (!session.allowed_projects.empty()) {
    bool allowed = false;
    std::string list;
    for (const auto& p : session.allowed_projects) {
      if (p.id == chosen->id) {
        allowed = true;
        if (chosen->root.empty()) chosen->root = p.root;
      }
      list += (list.empty() ? "" : ", ") + p.id;
    }
    if (!allowed) {
      throw RpcError{kProjectForbidden, "Forbidden: agent '" + session.base_caller.agent_id +
                                            "' may not use project '" + chosen->id + "' (named by " + named_by +
                                            "); its token allows: " + list};
    }
  }
  return chosen;
}

void Dispatcher::Cancel(const json& params, Session& session) {
  if (!params.is_object() || !params.contains("requestId")) return;
  std::lock_guard lock(inflight_mutex_);
  auto& slot = inflight_[RequestKey(session, params["requestId"])];
  if (!slot) {
    // Not started yet (or already finished): remember the cancellation, bounded so stale
    // entries for finished requests cannot pile up.
    early_cancels_.push_back(RequestKey(session, params["requestId"]));
    if (early_cancels_.size() > kMaxEarlyCancels) {
      auto stale = inflight_.find(early_cancels_.front());
      if (stale != inflight_.end() && stale->second->load() && stale->second.use_count() == 1) inflight_.erase(stale);
      early_cancels_.pop_front();
    }
    slot = std::make_shared<std::atomic<bool>>(true);
    return;
  }
  slot->store(true);
}

}  // namespace kioku::host::mcp
