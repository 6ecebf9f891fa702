#include "kioku/sdk/project_identity.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kioku::sdk {
namespace {

namespace fs = std::filesystem;

std::string Trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string ReadFirstLine(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return Trim(line);
}

// The directory holding the repository's shared `config` for a work tree's `.git` entry.
fs::path CommonGitDir(const fs::path& dot_git) {
  std::error_code ec;
  if (fs::is_directory(dot_git, ec)) return dot_git;
  std::string line = ReadFirstLine(dot_git);  // "gitdir: /repo/.git/worktrees/x"
  if (line.rfind("gitdir:", 0) != 0) return {};
  fs::path gitdir = Trim(line.substr(7));
  if (gitdir.is_relative()) gitdir = dot_git.parent_path() / gitdir;
  if (fs::exists(gitdir / "commondir", ec)) {
    fs::path common = ReadFirstLine(gitdir / "commondir");
    return (common.is_relative() ? gitdir / common : common).lexically_normal();
  }
  return gitdir;
}

// First `url` of [remote "origin"], else of the first remote section.
std::string RemoteUrl(const fs::path& config) {
  std::ifstream in(config);
  std::string line, section, origin, first;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = line;
      continue;
    }
    if (section.rfind("[remote ", 0) != 0) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos || Trim(line.substr(0, eq)) != "url") continue;
    std::string url = Trim(line.substr(eq + 1));
    if (section == "[remote \"origin\"]" && origin.empty()) origin = url;
    if (first.empty()) first = url;
  }
  return origin.empty() ? first : origin;
}

}  // namespace

std::string NormalizeGitRemote(const std::string& input) {
  std::string url = Trim(input);
  std::string host, path;
  if (auto scheme = url.find("://"); scheme != std::string::npos) {
    std::string rest = url.substr(scheme + 3);
    auto slash = rest.find('/');
    host = rest.substr(0, slash);
    path = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (auto colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
  } else if (auto colon = url.find(':'); colon != std::string::npos && url.find('/') > colon) {
    host = url.substr(0, colon);  // scp-like: [user@]host:path
    if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    path = url.substr(colon + 1);
  } else {
    return fs::path(url).lexically_normal().string();  // a local path remote
  }
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".git") == 0) path.resize(path.size() - 4);
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  return host + "/" + path;
}

std::string ProjectIdentity(const fs::path& root_in) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(fs::absolute(root_in, ec), ec).lexically_normal();
  for (fs::path dir = root;; dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) {
      fs::path inside = root.lexically_relative(dir);
      std::string suffix = (inside.empty() || inside == ".") ? "" : "//" + inside.generic_string();
      fs::path common = CommonGitDir(dir / ".git");
      std::string url = common.empty() ? "" : RemoteUrl(common / "config");
      return (url.empty() ? dir.generic_string() : NormalizeGitRemote(url)) + suffix;
    }
    if (dir == dir.parent_path()) break;
  }
  return root.generic_string();
}

}  // namespace kioku::sdk
