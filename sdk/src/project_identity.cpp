#include "kioku/sdk/project_identity.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
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

namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The configured package holding `inside` (a path relative to the repository), or "".
std::string PackageOf(const std::string& inside, const ProjectOptions& options) {
  if (inside.empty() || options.packages.empty()) return {};
  const auto have = Segments(inside);
  for (const auto& pattern : options.packages) {
    const auto want = Segments(pattern);
    if (want.empty() || want.size() > have.size()) continue;
    bool match = true;
    for (std::size_t i = 0; i < want.size() && match; ++i) match = want[i] == "*" || want[i] == have[i];
    if (!match) continue;
    std::string package;
    for (std::size_t i = 0; i < want.size(); ++i) package += (i ? "/" : "") + have[i];
    return package;
  }
  return {};
}

std::string Rel(const fs::path& path, const fs::path& base) {
  fs::path rel = path.lexically_relative(base);
  return (rel.empty() || rel == ".") ? std::string() : rel.generic_string();
}

}  // namespace

ProjectInfo ResolveProject(const fs::path& folder_in, const ProjectOptions& options) {
  std::error_code ec;
  fs::path folder = fs::absolute(folder_in, ec);
  fs::path canon = fs::weakly_canonical(folder, ec);
  folder = (ec ? folder : canon).lexically_normal();
  if (folder.has_filename() == false && folder != folder.root_path()) folder = folder.parent_path();
  for (fs::path dir = folder;; dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) {
      ProjectInfo info;
      fs::path common = CommonGitDir(dir / ".git");
      if (!common.empty() && !common.has_filename()) common = common.parent_path();  // "…/.git/"
      std::string url = common.empty() ? "" : RemoteUrl(common / "config");
      if (!url.empty()) {
        info.repository = NormalizeGitRemote(url);
      } else if (!common.empty() && common.filename() == ".git" && fs::is_directory(common.parent_path(), ec)) {
        info.repository = common.parent_path().generic_string();  // the main work tree
      } else {
        info.repository = dir.generic_string();
      }
      const std::string inside = Rel(folder, dir);
      const std::string package = PackageOf(inside, options);
      info.id = package.empty() ? info.repository : info.repository + "//" + package;
      info.root = (package.empty() ? dir : dir / package).generic_string();
      info.path = Rel(folder, info.root);
      return info;
    }
    if (dir == dir.parent_path()) break;
  }
  return ProjectInfo{folder.generic_string(), folder.generic_string(), "", ""};
}

std::string ProjectIdentity(const fs::path& folder, const ProjectOptions& options) {
  return ResolveProject(folder, options).id;
}

std::string ExpandHome(std::string_view path) {
  if (path.empty() || path[0] != '~' || (path.size() > 1 && path[1] != '/')) return std::string(path);
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return std::string(path);
  return std::string(home) + std::string(path.substr(1));
}

ProjectInfo ProjectOfRecord(const RecordedLocation& where, const ProjectOptions& options) {
  const std::string cwd = ExpandHome(Trim(where.cwd));
  std::error_code ec;
  if (!cwd.empty() && fs::path(cwd).is_absolute() && fs::is_directory(cwd, ec)) return ResolveProject(cwd, options);
  const fs::path path = fs::path(cwd).lexically_normal();
  if (!Trim(where.git_remote).empty()) {
    ProjectInfo info;
    info.id = info.repository = NormalizeGitRemote(where.git_remote);
    info.root = path.generic_string();
    return info;
  }
  if (cwd.empty()) return {};
  if (path.is_absolute()) {
    // Moved or deleted below an existing checkout: the repository still names the project.
    for (fs::path dir = path.parent_path(); dir != dir.parent_path(); dir = dir.parent_path()) {
      if (!fs::is_directory(dir, ec)) continue;
      ProjectInfo near = ResolveProject(dir, options);
      if (near.repository.empty()) break;
      near.path = Rel(path, near.root);
      return near;
    }
  }
  std::string text = path.generic_string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return ProjectInfo{text, text, "", ""};
}

std::string CanonicalProjectKey(std::string_view stored_in, const ProjectOptions& options) {
  std::string stored = ExpandHome(Trim(std::string(stored_in)));
  if (stored.empty()) return stored;
  std::string base = stored, inside;
  if (auto split = stored.find("//"); split != std::string::npos && stored.find("://") == std::string::npos) {
    base = stored.substr(0, split);
    inside = stored.substr(split + 2);
  }
  if (fs::path(base).is_absolute()) {
    const fs::path full = inside.empty() ? fs::path(base) : fs::path(base) / inside;
    return ProjectOfRecord(RecordedLocation{full.string(), "", ""}, options).id;
  }
  const std::string package = PackageOf(inside, options);
  return package.empty() ? base : base + "//" + package;
}

std::string FileUriPath(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size()) return {};
  std::string scheme(uri.substr(0, kScheme.size()));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != kScheme) return {};
  std::string_view rest = uri.substr(kScheme.size());
  if (rest.starts_with("localhost/")) rest.remove_prefix(9);
  if (rest.empty() || rest.front() != '/') return {};  // another host: not a local folder
  rest = rest.substr(0, std::min(rest.find('?'), rest.find('#')));
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(rest.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(rest[i]);
    }
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace kioku::sdk
