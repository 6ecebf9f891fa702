#pragma once
/// @file http_client.hpp
/// A minimal blocking HTTP/1.1 POST client for provider endpoints (embeddings, chat):
/// http and https (OpenSSL, peer and host name verified against the system CA store), a
/// connect timeout (name resolution + TCP + TLS handshake) and a read timeout (request
/// write + whole response read).
///
/// Boost.Beast and OpenSSL live in a module of their own, kioku-http-client.so
/// (http_client_module.cpp), which HttpPost loads on first use from <exe dir>/../lib/kioku/
/// (the build and install trees share that layout). A kioku process that calls no provider
/// never maps OpenSSL: its ~24,000 relocations cost ~3.5 ms of every start (hooks, `kioku
/// call`), more than the rest of the dynamic linking together.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kioku::host::providers {

struct Url {
  bool tls = false;
  std::string host;
  std::string port;  ///< "80"/"443" when the URL names none.
  std::string path;  ///< Without a trailing '/'; "" for the root.
};

/// Parses "http[s]://host[:port][/path]" ([v6] hosts accepted). nullopt + `error` (one line
/// naming what is wrong) for anything else: another scheme, user info, query, fragment.
std::optional<Url> ParseUrl(const std::string& text, std::string* error);

struct HttpPostRequest {
  Url url;
  std::string target;  ///< Path + query sent on the request line, e.g. "/v1/embeddings".
  std::string body;    ///< Sent as application/json.
  /// Extra headers. Values are never logged or put in error messages.
  std::vector<std::pair<std::string, std::string>> headers;
  int connect_timeout_ms = 2000;
  int read_timeout_ms = 10000;
  std::size_t max_response_bytes = 64 * 1024 * 1024;
};

struct HttpPostResponse {
  int status = 0;       ///< 0 when no response was read (see error).
  std::string body;
  std::string retry_after;  ///< The Retry-After header, if any.
  /// Transport failure ("connect timed out after 2000 ms", "connection refused",
  /// "TLS handshake failed: ..."); empty when a response was read (whatever its status).
  std::string error;
};

/// File name of the network module, in <exe dir>/../lib/kioku/.
inline constexpr const char* kHttpClientModule = "kioku-http-client.so";

/// Why the network module cannot be used, or "" once it is loaded (this loads it). For
/// `kioku doctor`, which checks it whenever a provider is configured.
std::string HttpClientProblem();

/// Sends one POST and reads the answer. Never throws for network faults; a module that
/// cannot be loaded is reported in `error` like a network fault (naming its path).
HttpPostResponse HttpPost(const HttpPostRequest& request);

}  // namespace kioku::host::providers
