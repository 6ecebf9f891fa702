#include "config.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "json_schema.hpp"
#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"
#include "yaml_json.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;

// Host-owned keys and their schema. Plugin sections are validated by each plugin's own
// SettingsSchema when the runtime starts.
const json& HostSchema() {
  static const json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "home": {"type": ["string", "null"]},
      "log_level": {"type": "string", "enum": ["debug", "info", "warn", "error", "off"]},
      "plugins": {
        "type": "object",
        "properties": {
          "enabled": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9_-]*$"}},
          "dirs": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["enabled"],
        "additionalProperties": false
      },
      "backup": {
        "type": "object",
        "properties": {
          "dir": {"type": ["string", "null"]},
          "auto_after_hours": {"type": "number", "minimum": 0, "maximum": 87600},
          "keep": {"type": "integer", "minimum": 1, "maximum": 10000}
        },
        "additionalProperties": false
      },
      "providers": {
        "type": "object",
        "properties": {
          "embedding": {
            "type": "object",
            "properties": {
              "url": {"type": "string", "pattern": "^https?://[^\\s]+$"},
              "model": {"type": "string", "minLength": 1, "maxLength": 200},
              "api_key_env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
              "dimensions": {"type": "integer", "minimum": 1, "maximum": 16384},
              "connect_timeout_ms": {"type": "integer", "minimum": 50, "maximum": 600000},
              "timeout_ms": {"type": "integer", "minimum": 50, "maximum": 600000},
              "max_retries": {"type": "integer", "minimum": 0, "maximum": 10},
              "backoff_ms": {"type": "integer", "minimum": 0, "maximum": 60000},
              "batch_size": {"type": "integer", "minimum": 1, "maximum": 2048},
              "query_timeout_ms": {"type": "integer", "minimum": 50, "maximum": 600000},
              "breaker_failures": {"type": "integer", "minimum": 1, "maximum": 1000},
              "breaker_cooldown_ms": {"type": "integer", "minimum": 0, "maximum": 86400000}
            },
            "required": ["url", "model"],
            "additionalProperties": false
          },
          "chat": {
            "type": "object",
            "properties": {
              "url": {"type": "string", "pattern": "^https?://[^\\s]+$"},
              "model": {"type": "string", "minLength": 1, "maxLength": 200},
              "api_key_env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
              "connect_timeout_ms": {"type": "integer", "minimum": 50, "maximum": 600000},
              "timeout_ms": {"type": "integer", "minimum": 50, "maximum": 600000},
              "max_retries": {"type": "integer", "minimum": 0, "maximum": 10},
              "backoff_ms": {"type": "integer", "minimum": 0, "maximum": 60000},
              "max_tokens": {"type": "integer", "minimum": 16, "maximum": 200000},
              "temperature": {"type": "number", "minimum": 0, "maximum": 2},
              "response_format": {"type": "string", "enum": ["json_schema", "json_object", "none"]},
              "breaker_failures": {"type": "integer", "minimum": 1, "maximum": 1000},
              "breaker_cooldown_ms": {"type": "integer", "minimum": 0, "maximum": 86400000}
            },
            "required": ["url", "model"],
            "additionalProperties": false
          }
        },
        "additionalProperties": false
      },
      "identity": {
        "type": "object",
        "properties": {
          "packages": {"type": "array", "items": {"type": "string", "minLength": 1}}
        },
        "additionalProperties": false
      },
      "server": {
        "type": "object",
        "properties": {
          "call_timeout_ms": {"type": "integer", "minimum": 0, "maximum": 3600000},
          "tools_page_size": {"type": "integer", "minimum": 1, "maximum": 1000},
          "json_text_block": {"type": "boolean"},
          "max_result_bytes": {"type": "integer", "minimum": 4096, "maximum": 16777216},
          "tools": {
            "type": "object",
            "properties": {
              "profile": {"type": "string", "enum": ["core", "full"]},
              "include": {"type": "array", "items": {"type": "string"}},
              "exclude": {"type": "array", "items": {"type": "string"}}
            },
            "additionalProperties": false
          },
          "context": {
            "type": "object",
            "properties": {
              "token_budget": {"type": "integer", "minimum": 100, "maximum": 100000},
              "max_chars": {"type": "integer", "minimum": 400, "maximum": 10000}
            },
            "additionalProperties": false
          },
          "http": {
            "type": "object",
            "properties": {
              "listen": {"type": "string", "pattern": "^(\\[[0-9a-fA-F:.]+\\]|[^:\\s]+):[0-9]{1,5}$"},
              "tokens": {"type": "array", "items": {
                "type": "object",
                "properties": {"token": {"type": "string", "minLength": 16}, "agent_id": {"type": "string", "minLength": 1},
                               "projects": {"type": "array", "items": {"type": "string", "minLength": 1}}},
                "required": ["token", "agent_id"], "additionalProperties": false}},
              "allowed_origins": {"type": "array", "items": {"type": "string"}},
              "allowed_hosts": {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z0-9.-]+$"}},
              "max_body_bytes": {"type": "integer", "minimum": 1024, "maximum": 268435456},
              "header_timeout_ms": {"type": "integer", "minimum": 100, "maximum": 600000},
              "max_connections": {"type": "integer", "minimum": 1, "maximum": 65536},
              "max_connections_per_ip": {"type": "integer", "minimum": 1, "maximum": 65536},
              "read_timeout_ms": {"type": "integer", "minimum": 100},
              "write_timeout_ms": {"type": "integer", "minimum": 100},
              "workers": {"type": "integer", "minimum": 1, "maximum": 64}
            },
            "additionalProperties": false
          }
        },
        "additionalProperties": false
      }
    },
    "required": ["plugins"]
  })");
  return schema;
}

const std::set<std::string>& HostKeys() {
  static const std::set<std::string> keys{"home", "log_level", "plugins", "server", "identity", "backup", "providers"};
  return keys;
}

// "plugins.enabled[2]: …" → "plugins.enabled[2]"; looks the value up for the message.
std::string ValueAt(const json& doc, const std::string& violation) {
  const std::string path = violation.substr(0, violation.find(": "));
  if (path == "(root)") return "";
  const json* cur = &doc;
  std::string token;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    char c = i < path.size() ? path[i] : '.';
    if (c == '.' || c == '[' || c == ']') {
      if (!token.empty()) {
        if (cur->is_object() && cur->contains(token)) {
          cur = &(*cur)[token];
        } else if (cur->is_array() && token.find_first_not_of("0123456789") == std::string::npos &&
                   std::stoul(token) < cur->size()) {
          cur = &(*cur)[std::stoul(token)];
        } else {
          return "";
        }
      }
      token.clear();
    } else {
      token += c;
    }
  }
  return sdk::DumpJson(*cur);
}

[[noreturn]] void Fail(const std::string& source, const std::string& message) {
  throw std::runtime_error("config " + source + ": " + message);
}

// The keys every provider section shares (already schema-checked).
void ReadProviderConfig(const json& e, ProviderConfig& c) {
  c.url = e.value("url", c.url);
  c.model = e.value("model", c.model);
  c.api_key_env = e.value("api_key_env", c.api_key_env);
  c.connect_timeout_ms = e.value("connect_timeout_ms", c.connect_timeout_ms);
  c.timeout_ms = e.value("timeout_ms", c.timeout_ms);
  c.max_retries = e.value("max_retries", c.max_retries);
  c.backoff_ms = e.value("backoff_ms", c.backoff_ms);
  c.breaker_failures = e.value("breaker_failures", c.breaker_failures);
  c.breaker_cooldown_ms = e.value("breaker_cooldown_ms", c.breaker_cooldown_ms);
}

// Compiled on the first config that needs it (never for the embedded default alone).
const JsonSchema& HostValidator() {
  static const JsonSchema schema(HostSchema());
  return schema;
}

}  // namespace

Config ParseConfig(const std::string& yaml_text, const std::string& source,
                   const std::vector<std::string>& known_plugins) {
  json doc;
  try {
    doc = YamlToJson(yaml_text);
  } catch (const std::exception& e) {
    Fail(source, e.what());
  }
  return ParseConfigDoc(std::move(doc), source, known_plugins);
}

Config ParseConfigDoc(json doc, const std::string& source, const std::vector<std::string>& known_plugins,
                      bool embedded_default) {
  if (doc.is_null()) doc = json::object();
  if (!doc.is_object()) Fail(source, "the top level must be a mapping of keys (home, plugins, server, <plugin>)");

  if (auto v = embedded_default ? std::vector<std::string>{} : HostValidator().Validate(doc); !v.empty()) {
    // Type, enum, range and pattern lines already quote the value ("…, got \"soon\"").
    const bool quoted = v.front().find(", got ") != std::string::npos;
    std::string value = quoted ? "" : sdk::TruncateUtf8(ValueAt(doc, v.front()), 80);
    Fail(source, v.front() + (value.empty() ? "" : " (value: " + value + ")"));
  }

  Config config;
  config.source = source;
  config.embedded_default = embedded_default;
  config.log_level = doc.value("log_level", config.log_level);
  config.enabled = doc["plugins"]["enabled"].get<std::vector<std::string>>();
  for (const auto& d : doc["plugins"].value("dirs", json::array())) config.plugin_dirs.emplace_back(d.get<std::string>());

  std::set<std::string> seen;
  for (std::size_t i = 0; i < config.enabled.size(); ++i) {
    if (!seen.insert(config.enabled[i]).second) {
      Fail(source, "plugins.enabled[" + std::to_string(i) + "]: '" + config.enabled[i] + "' is listed twice");
    }
  }
  std::set<std::string> known(known_plugins.begin(), known_plugins.end());
  for (std::size_t i = 0; i < config.enabled.size(); ++i) {
    if (!known.count(config.enabled[i])) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      Fail(source, "plugins.enabled[" + std::to_string(i) + "]: no plugin module named '" + config.enabled[i] +
                       "' (value: \"" + config.enabled[i] + "\"); available: " + (list.empty() ? "none" : list));
    }
  }
  for (const auto& [key, value] : doc.items()) {
    if (HostKeys().count(key)) continue;
    if (!known.count(key)) {
      Fail(source, key + ": unknown key; host keys are home, log_level, plugins, server, identity, backup, providers, and plugin sections are "
                         "named after a plugin");
    }
    config.plugin_settings[key] = value.is_null() ? json::object() : value;
  }

  if (auto pv = doc.find("providers"); pv != doc.end() && pv->is_object()) {
    if (auto e = pv->find("embedding"); e != pv->end() && e->is_object()) {
      EmbeddingConfig& c = config.embedding;
      ReadProviderConfig(*e, c);
      c.dimensions = e->value("dimensions", c.dimensions);
      c.batch_size = e->value("batch_size", c.batch_size);
      c.query_timeout_ms = e->value("query_timeout_ms", c.query_timeout_ms);
    }
    if (auto e = pv->find("chat"); e != pv->end() && e->is_object()) {
      ChatConfig& c = config.chat;
      ReadProviderConfig(*e, c);
      c.max_tokens = e->value("max_tokens", c.max_tokens);
      c.temperature = e->value("temperature", c.temperature);
      c.response_format = e->value("response_format", c.response_format);
    }
  }
  if (auto id = doc.find("identity"); id != doc.end() && id->is_object()) {
    config.projects.packages = id->value("packages", config.projects.packages);
  }
  if (auto b = doc.find("backup"); b != doc.end() && b->is_object()) {
    if (auto d = b->find("dir"); d != b->end() && d->is_string() && !d->get<std::string>().empty()) {
      config.backup.dir = std::filesystem::path(sdk::ExpandHome(d->get<std::string>())).lexically_normal();
    }
    config.backup.auto_after_hours = b->value("auto_after_hours", config.backup.auto_after_hours);
    config.backup.keep = b->value("keep", config.backup.keep);
  }
  if (doc.contains("home") && doc["home"].is_string()) config.home = doc["home"].get<std::string>();
  if (auto s = doc.find("server"); s != doc.end()) {
    config.call_timeout_ms = s->value("call_timeout_ms", config.call_timeout_ms);
    config.tools_page_size = s->value("tools_page_size", config.tools_page_size);
    config.json_text_block = s->value("json_text_block", config.json_text_block);
    config.max_result_bytes = s->value("max_result_bytes", config.max_result_bytes);
    if (auto t = s->find("tools"); t != s->end()) {
      if (t->value("profile", std::string("core")) == "full") config.tools.profile = sdk::ToolProfile::kFull;
      config.tools.include = t->value("include", config.tools.include);
      config.tools.exclude = t->value("exclude", config.tools.exclude);
    }
    if (auto c = s->find("context"); c != s->end() && c->is_object()) {
      config.context_token_budget = c->value("token_budget", config.context_token_budget);
      config.context_max_chars = c->value("max_chars", config.context_max_chars);
    }
    if (auto h = s->find("http"); h != s->end()) {
      auto& http = config.http;
      http.listen = h->value("listen", http.listen);
      http.allowed_origins = h->value("allowed_origins", http.allowed_origins);
      http.allowed_hosts = h->value("allowed_hosts", http.allowed_hosts);
      http.max_body_bytes = h->value("max_body_bytes", http.max_body_bytes);
      http.header_timeout_ms = h->value("header_timeout_ms", http.header_timeout_ms);
      http.max_connections = h->value("max_connections", http.max_connections);
      http.max_connections_per_ip = h->value("max_connections_per_ip", http.max_connections_per_ip);
      http.read_timeout_ms = h->value("read_timeout_ms", http.read_timeout_ms);
      http.write_timeout_ms = h->value("write_timeout_ms", http.write_timeout_ms);
      http.workers = h->value("workers", http.workers);
      for (const auto& t : h->value("tokens", json::array())) {
        const std::string agent = t["agent_id"].get<std::string>();
        http.tokens[t["token"].get<std::string>()] = agent;
        auto& limits = http.agent_projects[agent];
        for (const auto& p : t.value("projects", json::array())) limits.push_back(p.get<std::string>());
      }
    }
  }
  return config;
}

std::string ConfigPath(const std::string& cli_path) {
  if (!cli_path.empty()) return cli_path;
  const char* env = std::getenv("KIOKU_CONFIG");
  return env != nullptr ? env : "";
}

std::pair<std::string, std::string> ReadConfigText(const std::string& cli_path) {
  const std::string path = ConfigPath(cli_path);
  if (path.empty()) return {EmbeddedDefaultConfig(), "(embedded default)"};
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw std::runtime_error("config " + path + ": cannot read the file: it is a directory");
  }
  std::ifstream in(path);
  if (!in) throw std::runtime_error("config " + path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return {text.str(), path};
}

std::filesystem::path ResolveHome(const std::string& config_home) {
  auto expand = [](std::string p) -> std::filesystem::path {
    // "~" and "~/…" only. "~bob/x" (another user's home, which a shell resolves before
    // kioku sees it) would otherwise become a folder named "~bob" in the working directory.
    if (p == "~" || p.rfind("~/", 0) == 0) {
      const char* home = std::getenv("HOME");
      p = std::string(home ? home : "/tmp") + p.substr(1);
    } else if (!p.empty() && p[0] == '~') {
      throw std::runtime_error("home '" + p + "': kioku expands only ~ and ~/ (as $HOME); give the folder as an absolute path");
    }
    return std::filesystem::path(p).lexically_normal();
  };
  if (const char* env = std::getenv("KIOKU_HOME"); env && *env) return expand(env);
  if (!config_home.empty()) return expand(config_home);
  return expand("~/.kioku");
}

}  // namespace kioku::host
