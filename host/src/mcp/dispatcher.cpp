#include "mcp/dispatcher.hpp"

#include <algorithm>

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
  // The MCP schemas make the id of an error optional but never null: a fault whose request
  // id could not be read carries no id at all.
  json response{{"jsonrpc", "2.0"}, {"error", std::move(error)}};
  if (!id.is_null()) response["id"] = id;
  return response;
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
    return std::nullopt;
  }
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
    // A response from the client (we send no requests) or garbage.
    if (message.contains("result") || message.contains("error")) return std::nullopt;
    return ErrorResponse(valid_id ? id : json(nullptr), kInvalidRequest, "Invalid Request: missing \"method\"");
  }
  if (message.value("jsonrpc", json()) != "2.0" || !method_it->is_string() || !valid_id) {
    return ErrorResponse(valid_id ? id : json(nullptr), kInvalidRequest,
                         "Invalid Request: need \"jsonrpc\": \"2.0\", a string \"method\" and a string or integer \"id\"");
  }
  const std::string method = *method_it;
  const json params = message.value("params", json::object());

  if (!has_id) {  // notification: never answered
    if (method == "notifications/cancelled") Cancel(params, session);
    return std::nullopt;
  }
  if (!params.is_object()) return ErrorResponse(id, kInvalidParams, "Invalid params: \"params\" must be an object");

  const bool modern = IsModernRequest(params);
  std::shared_ptr<std::atomic<bool>> cancel;
  try {
    if (modern) CheckModernMeta(params);
    json result;
    if (method == "initialize") {
      if (modern) throw RpcError{kMethodNotFound, "initialize is not part of protocol " + std::string(kModernVersion) +
                                                      "; call server/discover or send requests with _meta directly"};
      result = Initialize(params, session);
    } else if (method == "ping") {
      result = json::object();
    } else if (method == "server/discover") {
      result = Discover();
    } else if (method == "tools/list") {
      result = ListTools(params, modern);
    } else if (method == "tools/call") {
      {
        // A cancellation may overtake its request (transports run calls on workers): it
        // then left a raised flag under this key, and the call is never started.
        std::lock_guard lock(inflight_mutex_);
        auto& slot = inflight_[RequestKey(session, id)];
        if (!slot) slot = std::make_shared<std::atomic<bool>>(false);
        cancel = slot;
      }
      if (!cancel->load()) result = CallTool(params, session, modern, cancel);
    } else {
      throw RpcError{kMethodNotFound, "Method not found: " + method};
    }
    if (cancel) {
      std::lock_guard lock(inflight_mutex_);
      inflight_.erase(RequestKey(session, id));
      if (cancel->load()) return std::nullopt;  // the client no longer wants an answer
    }
    if (modern) {
      result["resultType"] = "complete";
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
  return json{{"protocolVersion", session.protocol_version},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", options_.server_name}, {"version", options_.server_version}}},
              {"instructions", options_.instructions}};
}

json Dispatcher::Discover() const {
  return json{{"supportedVersions", SupportedVersions()},
              {"capabilities", {{"tools", json::object()}}},
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
  json args = json::object();
  if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
    if (!a->is_object()) {
      throw RpcError{kInvalidParams, "Invalid params: \"arguments\" must be an object of the tool's inputSchema"};
    }
    args = *a;
  }
  if (runtime_.FindTool(name) == nullptr) throw RpcError{kInvalidParams, "Unknown tool: " + name};

  sdk::Caller caller = session.base_caller;
  caller.session_id = session.id;
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
  if (caller.agent_id.empty() && !client_name.empty()) caller.agent_id = client_name;
  if (caller.agent_id.empty()) caller.agent_id = "unknown";

  auto outcome = runtime_.Call(name, args, caller, cancel.get());
  const auto& r = outcome.result;
  json content = json::array();
  if (!r.text.empty() || r.structured.is_null()) content.push_back({{"type", "text"}, {"text", r.text}});
  if (!r.structured.is_null() && (options_.json_text_block || r.text.empty())) {
    content.push_back({{"type", "text"}, {"text", sdk::DumpJson(r.structured)}});
  }
  json result{{"content", std::move(content)}, {"isError", r.is_error}};
  if (!r.structured.is_null()) result["structuredContent"] = r.structured;
  return result;
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
