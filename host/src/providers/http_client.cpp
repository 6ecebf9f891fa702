#include "providers/http_client.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <regex>

#include "module_file.hpp"

namespace kioku::host::providers {

std::optional<Url> ParseUrl(const std::string& text, std::string* error) {
  static const std::regex kUrl(R"(^(https?)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:([0-9]{1,5}))?(/[^?#\s]*)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, kUrl)) {
    if (error) *error = "not an http:// or https:// URL of the form scheme://host[:port][/path]";
    return std::nullopt;
  }
  Url u;
  u.tls = m[1] == "https";
  u.host = m[2];
  if (u.host.front() == '[') u.host = u.host.substr(1, u.host.size() - 2);
  u.port = m[4].matched ? m[4].str() : (u.tls ? "443" : "80");
  if (const int port = std::stoi(u.port); port < 1 || port > 65535) {
    if (error) *error = "port " + u.port + " is out of range 1-65535";
    return std::nullopt;
  }
  u.path = m[5].matched ? m[5].str() : "";
  while (!u.path.empty() && u.path.back() == '/') u.path.pop_back();
  return u;
}

namespace {

using PostFn = void(const HttpPostRequest&, HttpPostResponse&);

// The network module, loaded by the first call that finds it loadable and kept for the
// process; nullptr + `error` until then (each call looks again, so a server recovers once
// the module is put back).
PostFn* NetworkModule(std::string* error) {
  static std::mutex mutex;
  static PostFn* post = nullptr;
  std::lock_guard lock(mutex);
  if (post) return post;
  const auto lib = InstallLibDir();
  if (!lib) {
    *error = std::string("the HTTP client module (lib/kioku/") + kHttpClientModule +
             ") is found beside the kioku executable, whose path cannot be read (is /proc mounted?)";
    return nullptr;
  }
  const auto path = *lib / kHttpClientModule;
  const std::string where = "the HTTP client module " + path.string();
  if (const auto problem = ModuleFileProblem(path); !problem.empty()) {
    *error = where + " " + problem + " (it is installed with kioku, beside lib/kioku/plugins): reinstall kioku";
    return nullptr;
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    *error = where + " cannot be loaded: " + (why ? why : "dlopen failed") + "; reinstall kioku";
    return nullptr;
  }
  void* entry = ::dlsym(handle, "kioku_http_post_v1");
  if (!entry) {
    ::dlclose(handle);
    *error = where + " has no entry point kioku_http_post_v1 (another library under its name?): reinstall kioku";
    return nullptr;
  }
  post = reinterpret_cast<PostFn*>(entry);  // the handle stays open for the process
  return post;
}

}  // namespace

std::string HttpClientProblem() {
  std::string error;
  NetworkModule(&error);
  return error;
}

HttpPostResponse HttpPost(const HttpPostRequest& request) {
  HttpPostResponse out;
  PostFn* post = NetworkModule(&out.error);
  if (post) post(request, out);
  return out;
}

}  // namespace kioku::host::providers
