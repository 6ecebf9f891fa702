#pragma once
/// @file config.hpp
/// The YAML deployment config (default `config/kioku.yaml`, embedded in the binary).
/// Validated at start against a JSON Schema: an unknown key, a wrong type or a plugin that
/// does not exist fails with one line naming the file, the key and the value.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/backup.hpp"
#include "tool_selection.hpp"
#include "yaml_json.hpp"
#include "kioku/sdk/project_identity.hpp"

namespace kioku::host {

struct HttpConfig {
  std::string listen = "127.0.0.1:7077";
  std::map<std::string, std::string> tokens;  ///< bearer token → agent id
  /// agent id → projects its tokens may use (`projects:` of each token: folder paths or
  /// project ids; the first is the default). No entry or empty = any project.
  std::map<std::string, std::vector<std::string>> agent_projects;
  std::vector<std::string> allowed_origins;
  /// Host header names accepted on a loopback bind besides localhost, 127.0.0.1 and [::1].
  std::vector<std::string> allowed_hosts;
  std::size_t max_body_bytes = 4 * 1024 * 1024;
  int header_timeout_ms = 10'000;  ///< request line + headers must arrive within this
  std::size_t max_connections = 256;
  std::size_t max_connections_per_ip = 64;
  int read_timeout_ms = 30'000;
  int write_timeout_ms = 30'000;
  int workers = 4;
};

/// What every model endpoint has (`providers.embedding`, `providers.chat`): where, which
/// model, the key's environment variable, timeouts, retries and the circuit breaker
/// (providers/provider_call.hpp). Absent (url empty) = not configured.
struct ProviderConfig {
  std::string url;          ///< Base URL; requests go to {url}/v1/... ("/v1" not doubled).
  std::string model;        ///< Sent as "model" (and recorded with every vector).
  std::string api_key_env;  ///< Name of the environment variable holding the key ("" = none).
  int connect_timeout_ms = 2000;
  int timeout_ms = 15000;     ///< Read timeout of one request.
  int max_retries = 2;        ///< Extra attempts after a timeout, a network error, 429 or 5xx.
  int backoff_ms = 250;       ///< First retry delay; doubles each retry (capped at 4 s).
  int breaker_failures = 5;   ///< Consecutive failed calls that open the circuit.
  int breaker_cooldown_ms = 30000;  ///< How long an open circuit refuses calls.
};

/// `providers.embedding`: an OpenAI-compatible embeddings endpoint (providers/openai_embedder.hpp).
/// Absent (url empty) = no embedder: text search only.
struct EmbeddingConfig : ProviderConfig {
  int dimensions = 0;       ///< Sent as "dimensions" when > 0; every vector must have it.
  int batch_size = 64;      ///< Texts per request.
  /// Read timeout of a search query's embedding (Embedder::EmbedQuery: one attempt, a caller
  /// waiting); at most timeout_ms.
  int query_timeout_ms = 3000;
};

/// `providers.chat`: an OpenAI-compatible chat-completions endpoint (providers/openai_chat.hpp).
/// Absent (url empty) = no chat model: memory_reflect and entity_extract_deep refuse.
struct ChatConfig : ProviderConfig {
  ChatConfig() { timeout_ms = 60000; }
  int max_tokens = 1024;        ///< Default "max_tokens" of a request.
  double temperature = 0.0;     ///< Sent as "temperature".
  /// How a JSON schema is asked for: "json_schema" (response_format with the schema, OpenAI
  /// structured outputs; llama.cpp, vLLM, LM Studio, recent Ollama), "json_object" (JSON
  /// mode only), "none" (the prompt alone). The answer is validated in every case.
  std::string response_format = "json_schema";
};

struct Config {
  std::string source;  ///< File path, or "(embedded default)".
  /// The document is the embedded default (its schema check was skipped; see ParseConfigDoc).
  bool embedded_default = false;
  std::filesystem::path home;  ///< Data directory (KIOKU_HOME > config `home` > ~/.kioku).
  std::string log_level = "info";
  std::vector<std::string> enabled;  ///< plugins.enabled, in order
  std::vector<std::filesystem::path> plugin_dirs;  ///< plugins.dirs
  int call_timeout_ms = 30'000;
  std::size_t tools_page_size = 100;
  bool json_text_block = false;
  std::size_t max_result_bytes = 48 * 1024;
  /// server.tools: profile (default core), include, exclude. Names are checked at start.
  ToolSelection tools{sdk::ToolProfile::kCore, {}, {}};
  /// server.context: budget of the block `kioku context` and the MCP prompt/resource print.
  std::size_t context_token_budget = 2000;  ///< tokens (bytes / 4)
  std::size_t context_max_chars = 10000;    ///< hard cap; Claude Code previews longer hook output
  HttpConfig http;
  BackupSettings backup;  ///< backup: (dir, auto_after_hours, keep)
  /// `identity:` — monorepo packages that are projects of their own (project_identity.hpp).
  sdk::ProjectOptions projects;
  EmbeddingConfig embedding;  ///< `providers.embedding`
  ChatConfig chat;            ///< `providers.chat`
  /// Each plugin's section (by config key), converted to JSON; absent = {}.
  std::map<std::string, nlohmann::json> plugin_settings;
};

/// The default config compiled into the binary (same text as config/kioku.yaml).
const std::string& EmbeddedDefaultConfig();
/// The same converted to JSON by YamlToJson at build time (host/tools/config_json.cpp).
const std::string& EmbeddedDefaultConfigJson();

/// Parses and validates a config. `source` names it in error messages. `known_plugins` are
/// the plugin names whose modules exist; a top-level key that is neither a host key nor a
/// known/enabled plugin is an error ("unknown key"). Throws std::runtime_error:
///   "config <source>: <key>: <problem> (value: <value>)".
Config ParseConfig(const std::string& yaml_text, const std::string& source,
                   const std::vector<std::string>& known_plugins);

/// The same for a document already converted by YamlToJson (start-up parses the YAML once).
/// `embedded_default`: the document is EmbeddedDefaultConfigJson(), which config_test runs
/// through the schema; the schema check (valijson's compile and walk, ~3 M instructions,
/// ~7% of a cold `kioku call`) is skipped for it. Every other check still runs.
Config ParseConfigDoc(nlohmann::json doc, const std::string& source, const std::vector<std::string>& known_plugins,
                      bool embedded_default = false);

/// The config file a process uses: `cli_path` (`--config`), else a non-empty KIOKU_CONFIG,
/// else "" (the embedded default).
std::string ConfigPath(const std::string& cli_path);

/// Chooses the config text: ConfigPath(cli_path), else the embedded default.
/// Returns {text, source}. Throws when the named file cannot be read.
std::pair<std::string, std::string> ReadConfigText(const std::string& cli_path);

/// Resolves the data directory: KIOKU_HOME, else the config's `home`, else ~/.kioku.
std::filesystem::path ResolveHome(const std::string& config_home);

}  // namespace kioku::host
