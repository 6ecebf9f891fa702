#include "providers/http_client.hpp"

#include <filesystem>
#include <mutex>
#include <regex>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

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

// The network module, loaded once per process; nullptr + `error` when it cannot be.
PostFn* NetworkModule(std::string* error) {
  static std::once_flag once;
  static boost::dll::shared_library library;
  static PostFn* post = nullptr;
  static std::string load_error;
  std::call_once(once, [] {
    std::error_code ec;
    const std::filesystem::path exe(boost::dll::program_location(ec).string());
    const auto path = (exe.parent_path() / ".." / "lib" / "kioku" / kHttpClientModule).lexically_normal();
    if (!std::filesystem::exists(path, ec)) {
      load_error = "the HTTP client module " + path.string() +
                   " is missing (it is installed with kioku, beside lib/kioku/plugins): reinstall kioku";
      return;
    }
    try {
      library.load(path.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
      post = &library.get<PostFn>("kioku_http_post_v1");
    } catch (const std::exception& e) {
      load_error = "the HTTP client module " + path.string() + " cannot be loaded: " + e.what();
    }
  });
  if (!post) *error = load_error;
  return post;
}

}  // namespace

HttpPostResponse HttpPost(const HttpPostRequest& request) {
  HttpPostResponse out;
  PostFn* post = NetworkModule(&out.error);
  if (post) post(request, out);
  return out;
}

}  // namespace kioku::host::providers
