#include "anchor_predicates.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "normalize.hpp"

namespace kioku::semantic {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxManifestRead = 1 << 20;
constexpr std::uintmax_t kMaxIndexBytes = 64u << 20;

std::optional<std::string> ReadBounded(const fs::path& p, std::size_t max) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(max, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// Glob match on '/'-separated relative paths: * and ? stay inside one segment, [...]
// classes ([!x] negates), `**/` spans zero or more folders and a final `**` anything.
bool GlobMatch(std::string_view p, std::string_view s) {
  while (!p.empty()) {
    if (p.substr(0, 3) == "**/") {
      for (std::size_t i = 0;; ) {
        if (GlobMatch(p.substr(3), s.substr(i))) return true;
        const std::size_t slash = s.find('/', i);
        if (slash == std::string_view::npos) return false;
        i = slash + 1;
      }
    }
    if (p == "**") return true;
    const char c = p.front();
    if (c == '*') {
      for (std::size_t i = 0; i <= s.size(); ++i) {
        if (GlobMatch(p.substr(1), s.substr(i))) return true;
        if (i < s.size() && s[i] == '/') return false;
      }
      return false;
    }
    if (s.empty()) return false;
    if ((c == '?' || c == '[') && s.front() == '/') return false;
    if (c == '?') {
      p.remove_prefix(1);
      s.remove_prefix(1);
      continue;
    }
    if (c == '[') {
      const std::size_t close = p.find(']', 2);
      if (close != std::string_view::npos) {
        std::string_view set = p.substr(1, close - 1);
        const bool negate = !set.empty() && (set.front() == '!' || set.front() == '^');
        if (negate) set.remove_prefix(1);
        bool hit = false;
        for (std::size_t i = 0; i < set.size(); ++i) {
          if (i + 2 < set.size() && set[i + 1] == '-') {
            hit = hit || (s.front() >= set[i] && s.front() <= set[i + 2]);
            i += 2;
          } else {
            hit = hit || s.front() == set[i];
          }
        }
        if (hit == negate) return false;
        p.remove_prefix(close + 1);
        s.remove_prefix(1);
        continue;
      }
    }
    if (c != s.front()) return false;
    p.remove_prefix(1);
    s.remove_prefix(1);
  }
  return s.empty();
}

std::optional<fs::path> RealRoot(const std::string& root) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(fs::path(root), ec);
  if (ec || !fs::is_directory(real, ec)) return std::nullopt;
  return real;
}

std::uint32_t Be32(const std::string& b, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

// The repository holding `root` (walking up), its index file, and `root` relative to it.
struct GitPlace {
  fs::path index;
  std::string prefix;  // "" or "sub/dir/"
};

std::optional<GitPlace> FindGit(const fs::path& real_root) {
  std::error_code ec;
  fs::path dir = real_root;
  for (int up = 0; up < 64; ++up) {
    const fs::path dot_git = dir / ".git";
    fs::path git_dir;
    if (fs::is_directory(dot_git, ec)) {
      git_dir = dot_git;
    } else if (fs::is_regular_file(dot_git, ec)) {
      // A worktree or submodule: "gitdir: <path>".
      auto text = ReadBounded(dot_git, 4096);
      if (!text || text->rfind("gitdir:", 0) != 0) return std::nullopt;
      std::string target = text->substr(7);
      target.erase(0, target.find_first_not_of(" \t"));
      while (!target.empty() && (target.back() == '\n' || target.back() == '\r' || target.back() == ' ')) target.pop_back();
      git_dir = fs::path(target).is_absolute() ? fs::path(target) : dir / target;
    }
    if (!git_dir.empty()) {
      std::string prefix = real_root.lexically_relative(dir).generic_string();
      if (prefix == ".") prefix.clear();
      if (!prefix.empty()) prefix += "/";
      return GitPlace{git_dir / "index", prefix};
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string CMakeProjectVersion(const std::string& text) {
  const std::string lower = Lower(text);
  for (std::size_t at = lower.find("project"); at != std::string::npos; at = lower.find("project", at + 7)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(lower[at - 1])) || lower[at - 1] == '_')) continue;
    std::size_t i = at + 7;
    while (i < lower.size() && (lower[i] == ' ' || lower[i] == '\t')) ++i;
    if (i >= lower.size() || lower[i] != '(') continue;
    const std::size_t close = lower.find(')', i);
    if (close == std::string::npos) return "";
    std::vector<std::string> words;
    std::string word;
    for (std::size_t k = i + 1; k < close; ++k) {
      const char ch = text[k];
      if (std::isspace(static_cast<unsigned char>(ch))) {
        if (!word.empty()) words.push_back(std::move(word));
        word.clear();
      } else {
        word += ch;
      }
    }
    if (!word.empty()) words.push_back(word);
    for (std::size_t k = 0; k + 1 < words.size(); ++k) {
      if (words[k] == "VERSION") {
        std::string v = words[k + 1];
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
        return v;
      }
    }
    return "";
  }
  return "";
}

std::string TomlVersion(const std::string& text, std::initializer_list<const char*> tables) {
  try {
    const toml::table doc = toml::parse(text);
    for (const char* path : tables) {
      if (auto v = doc.at_path(std::string(path) + ".version").value<std::string>()) return *v;
    }
  } catch (const std::exception&) {
  }
  return "";
}

}  // namespace

AnchorDeadline AnchorDeadline::ForOneRecall() {
  return {std::chrono::steady_clock::now() + std::chrono::milliseconds(kAnchorBudgetMs)};
}

std::string ManifestVersion(const std::string& file_name, const std::string& text) {
  if (file_name == "package.json") {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_object() && doc.contains("version") && doc["version"].is_string()) return doc["version"].get<std::string>();
    return "";
  }
  if (file_name == "Cargo.toml") return TomlVersion(text, {"package", "workspace.package"});
  if (file_name == "pyproject.toml") return TomlVersion(text, {"project", "tool.poetry"});
  if (file_name == "CMakeLists.txt") return CMakeProjectVersion(text);
  return "";
}

std::string EvalGlobExists(const std::string& root, const std::string& pattern, const AnchorDeadline& deadline,
                           std::vector<fs::path>* folders) {
  const auto real_root = RealRoot(root);
  if (!real_root) return "unverified";
  std::error_code ec;
  std::size_t seen = 0;
  fs::recursive_directory_iterator it(*real_root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return "unverified";
  if (folders) folders->push_back(*real_root);
  for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return "unverified";
    if (++seen > kMaxGlobEntries || (seen % 256 == 0 && deadline.Passed())) return "unverified";
    const fs::path& p = it->path();
    if (p.filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (GlobMatch(pattern, p.lexically_relative(*real_root).generic_string())) return "affirmed";
    // A file added or removed changes its folder's mtime: the folders walked are the state.
    if (folders && it->is_directory(ec) && !it->is_symlink(ec)) folders->push_back(p);
  }
  return "contradicted";
}

std::string EvalNewestOf(const std::string& root, const std::vector<std::string>& paths) {
  std::optional<fs::file_time_type> expected, newest_other;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto p = ResolveAnchorPath(root, paths[i]);
    if (!p) return "unverified";
    std::error_code ec;
    const auto t = fs::last_write_time(*p, ec);
    if (ec) continue;  // missing
    if (i == 0) expected = t;
    else if (!newest_other || t > *newest_other) newest_other = t;
  }
  if (!expected) return newest_other ? "contradicted" : "unverified";
  return newest_other && *newest_other > *expected ? "contradicted" : "affirmed";
}

std::string EvalGitTracked(const std::string& root, const std::string& rel, const AnchorDeadline& deadline) {
  const auto real_root = RealRoot(root);
  if (!real_root || !ResolveAnchorPath(root, rel)) return "unverified";
  const auto git = FindGit(*real_root);
  if (!git) return "unverified";
  std::error_code ec;
  const auto size = fs::file_size(git->index, ec);
  if (ec || size < 12 || size > kMaxIndexBytes) return "unverified";
  const auto data = ReadBounded(git->index, static_cast<std::size_t>(size));
  if (!data || data->size() < 12 || data->compare(0, 4, "DIRC") != 0) return "unverified";
  const std::uint32_t version = Be32(*data, 4), count = Be32(*data, 8);
  if (version < 2 || version > 4) return "unverified";
  std::string want = git->prefix + fs::path(rel).lexically_normal().generic_string();
  while (!want.empty() && want.back() == '/') want.pop_back();
  const std::string& b = *data;
  std::size_t at = 12;
  std::string name;  // v4: previous name, prefix-compressed
  for (std::uint32_t e = 0; e < count; ++e) {
    if (e % 1024 == 0 && deadline.Passed()) return "unverified";
    constexpr std::size_t kFixed = 62;  // stat data (40) + SHA-1 (20) + flags (2)
    if (at + kFixed > b.size()) return "unverified";
    const auto flags = static_cast<std::uint16_t>((static_cast<unsigned char>(b[at + 60]) << 8) |
                                                  static_cast<unsigned char>(b[at + 61]));
    std::size_t head = kFixed + ((version >= 3 && (flags & 0x4000)) ? 2 : 0);
    std::size_t p = at + head;
    if (version == 4) {
      // git's offset varint (varint.c decode_varint).
      if (p >= b.size()) return "unverified";
      unsigned char c = static_cast<unsigned char>(b[p++]);
      std::uint64_t strip = c & 127;
      while (c & 128) {
        if (p >= b.size() || strip > (1u << 24)) return "unverified";
        c = static_cast<unsigned char>(b[p++]);
        strip = ((strip + 1) << 7) + (c & 127);
      }
      const std::size_t nul = b.find('\0', p);
      if (nul == std::string::npos || strip > name.size()) return "unverified";
      name = name.substr(0, name.size() - strip) + b.substr(p, nul - p);
      at = nul + 1;
    } else {
      const std::size_t nul = b.find('\0', p);
      if (nul == std::string::npos) return "unverified";
      name = b.substr(p, nul - p);
      at += (head + name.size() + 8) & ~static_cast<std::size_t>(7);
    }
    if (name == want || (name.size() > want.size() && name.compare(0, want.size(), want) == 0 && name[want.size()] == '/')) {
      return "affirmed";
    }
  }
  return "contradicted";
}

std::string EvalPackageVersion(const std::string& root, const std::string& manifest, const std::string& version) {
  const auto p = ResolveAnchorPath(root, manifest);
  if (!p) return "unverified";
  const auto text = ReadBounded(*p, kMaxManifestRead);
  if (!text) return "unverified";
  const std::string declared = ManifestVersion(fs::path(manifest).filename().string(), *text);
  if (declared.empty()) return "unverified";
  if (!version.empty() && version.back() == '*') {
    const std::string head = version.substr(0, version.size() - 1);
    return declared.compare(0, head.size(), head) == 0 ? "affirmed" : "contradicted";
  }
  return declared == version ? "affirmed" : "contradicted";
}

std::string FileStateSignature(const std::vector<fs::path>& files) {
  // mtime has the kernel's timestamp granularity (a jiffy on many filesystems), so a
  // same-size rewrite within one tick keeps mtime, size and inode: small files are told
  // apart by their content, larger ones at least by ctime (set by every write and rename).
  std::size_t hashed = 0;
  std::string sig;
  for (const fs::path& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) {
      sig += "-|";
      continue;
    }
    sig += std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
           std::to_string(st.st_size) + ":" + std::to_string(st.st_ino);
    const auto size = static_cast<std::size_t>(st.st_size);
    if (S_ISREG(st.st_mode) && size <= kMaxHashedFileBytes && hashed + size <= kMaxHashedBytes) {
      std::ifstream in(f, std::ios::binary);
      std::string text(size, '\0');
      in.read(text.data(), static_cast<std::streamsize>(size));
      text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
      hashed += size;
      sig += ":h" + std::to_string(KeyHash({text}));
    } else {
      sig += ":c" + std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
    }
    sig += "|";
  }
  return sig;
}

namespace {
struct CacheEntry {
  std::vector<fs::path> files;
  std::string signature, verdict;
};
std::mutex g_cache_mu;
std::unordered_map<std::string, CacheEntry>& Cache() {
  static auto* cache = new std::unordered_map<std::string, CacheEntry>();  // never destroyed: no exit-order race
  return *cache;
}
}  // namespace

std::optional<std::string> CachedVerdict(const std::string& key) {
  CacheEntry entry;
  {
    std::lock_guard lock(g_cache_mu);
    auto it = Cache().find(key);
    if (it == Cache().end()) return std::nullopt;
    entry = it->second;
  }
  if (FileStateSignature(entry.files) != entry.signature) return std::nullopt;
  return entry.verdict;
}

void StoreVerdict(const std::string& key, const std::vector<fs::path>& files, const std::string& verdict) {
  CacheEntry entry{files, FileStateSignature(files), verdict};
  std::lock_guard lock(g_cache_mu);
  if (Cache().size() >= kMaxCachedAnchors) Cache().clear();
  Cache()[key] = std::move(entry);
}

}  // namespace kioku::semantic
