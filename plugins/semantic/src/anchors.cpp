#include "anchors.hpp"

#include "anchor_predicates.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

#include "kioku/sdk/clock.hpp"

namespace kioku::semantic {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxRead = 1 << 20;
constexpr std::size_t kVariadic = 0;  // newest-of: 2..kMaxNewestOf paths
constexpr std::size_t kMaxNewestOf = 8;

// Predicates whose every argument (or first, for file-contains & co.) is a project path.
bool PathPredicate(const std::string& pred) {
  return pred.rfind("file-", 0) == 0 || pred == "git-tracked" || pred == "package-version" || pred == "newest-of";
}
std::size_t PathArgs(const std::string& pred, std::size_t given) { return pred == "newest-of" ? given : 1; }

const std::map<std::string, std::size_t, std::less<>>& Arity() {
  static const std::map<std::string, std::size_t, std::less<>> arity = {
      {"file-exists", 1},   {"file-absent", 1},   {"file-contains", 2},
      {"file-not-contains", 2}, {"git-branch-is", 1}, {"valid-until", 1},
      {"glob-exists", 1},   {"git-tracked", 1},   {"package-version", 2},
      {"newest-of", kVariadic}};
  return arity;
}

std::optional<std::vector<std::string>> Split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size()) break;
    std::string word;
    if (s[i] == '"') {
      const std::size_t end = s.find('"', i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      word = std::string(s.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      const std::size_t end = std::min(s.find(' ', i), s.size());
      word = std::string(s.substr(i, end - i));
      i = end;
    }
    out.push_back(std::move(word));
  }
  return out;
}

// A project-relative path that stays inside the project, or nullopt.
std::optional<fs::path> Inside(const std::string& root, const std::string& rel) {
  const fs::path p(rel);
  if (p.is_absolute() || rel.empty()) return std::nullopt;
  const fs::path norm = p.lexically_normal();
  if (norm.empty() || *norm.begin() == "..") return std::nullopt;
  return fs::path(root) / norm;
}

}  // namespace

// Inside(), then symlinks resolved (realpath of the existing part): the target must still
// lie inside the resolved root, so `leak -> /outside` cannot make an anchor an oracle on
// files outside the project. nullopt when it escapes or cannot be resolved.
std::optional<fs::path> ResolveAnchorPath(const std::string& root, const std::string& rel) {
  const std::optional<fs::path> lexical = Inside(root, rel);
  if (!lexical) return std::nullopt;
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(fs::path(root), ec);
  if (ec) return std::nullopt;
  const fs::path real = fs::weakly_canonical(*lexical, ec);
  if (ec) return std::nullopt;
  const auto [r, p] = std::mismatch(real_root.begin(), real_root.end(), real.begin(), real.end());
  if (r != real_root.end()) return std::nullopt;
  return real;
}

namespace {

std::optional<std::int64_t> UntilMs(const std::string& text) {
  std::optional<std::int64_t> ms = sdk::ParseRfc3339(text);
  // A bare date means "through that day".
  if (ms && text.size() == 10) *ms += sdk::kMsPerDay;
  return ms;
}

}  // namespace

std::string ValidateAnchor(std::string_view anchor) {
  const std::string supported =
      "supported: file-exists <path>, file-absent <path>, file-contains <path> <text>, "
      "file-not-contains <path> <text>, git-branch-is <branch>, valid-until <date>, "
      "glob-exists <pattern>, newest-of <path> <path>..., git-tracked <path>, "
      "package-version <manifest> <version>";
  const auto words = Split(anchor);
  if (!words) return "anchor has an unclosed quote; " + supported;
  if (words->empty()) return "";
  const auto it = Arity().find(words->front());
  if (it == Arity().end()) return "unknown anchor predicate '" + words->front() + "'; " + supported;
  const std::size_t args = words->size() - 1;
  if (it->second == kVariadic) {
    if (args < 2 || args > kMaxNewestOf) {
      return "anchor " + it->first + " takes 2 to " + std::to_string(kMaxNewestOf) + " paths; " + supported;
    }
  } else if (args != it->second) {
    return "anchor " + it->first + " takes " + std::to_string(it->second) + " argument" +
           (it->second == 1 ? "" : "s") + "; " + supported;
  }
  if (PathPredicate(it->first)) {
    for (std::size_t i = 1; i <= PathArgs(it->first, args); ++i) {
      if (!Inside("/", (*words)[i])) {
        return "anchor path '" + (*words)[i] + "' must be relative to the project and stay inside it";
      }
    }
  }
  if (it->first == "glob-exists") {
    const std::string& g = (*words)[1];
    if (!Inside("/", g) || g.size() > 256 || std::count(g.begin(), g.end(), '*') > 8) {
      return "anchor glob-exists needs a relative pattern inside the project (at most 256 bytes and 8 '*'), "
             "e.g. \"src/**/*.test.ts\"";
    }
  }
  if (it->first == "package-version") {
    const std::string name = fs::path((*words)[1]).filename().string();
    if (name != "package.json" && name != "Cargo.toml" && name != "pyproject.toml" && name != "CMakeLists.txt") {
      return "anchor package-version reads package.json, Cargo.toml, pyproject.toml or CMakeLists.txt, not '" +
             name + "'";
    }
  }
  if (it->first == "valid-until" && !UntilMs((*words)[1])) {
    return "anchor valid-until needs an RFC 3339 date such as 2026-12-31";
  }
  return "";
}

std::string ConfineAnchor(std::string_view anchor, const std::string& project_root) {
  const auto words = Split(anchor);
  if (!words || words->size() < 2 || !PathPredicate(words->front())) return "";
  if (project_root.empty()) return "";  // nothing to resolve against; recall says unverified
  for (std::size_t i = 1; i <= PathArgs(words->front(), words->size() - 1); ++i) {
    if (!ResolveAnchorPath(project_root, (*words)[i])) {
      return "anchor path '" + (*words)[i] +
             "' resolves (following symlinks) to a place outside the project; anchor a file "
             "inside the project";
    }
  }
  return "";
}

std::string EvaluateAnchor(std::string_view anchor, const std::string& project_root,
                           std::int64_t now_ms, const AnchorDeadline& deadline) {
  const auto words = Split(anchor);
  if (!words || words->empty() || !ValidateAnchor(anchor).empty()) return "unverified";
  const std::string& pred = words->front();
  if (pred == "valid-until") {
    return now_ms < *UntilMs((*words)[1]) ? "affirmed" : "contradicted";
  }
  if (project_root.empty()) return "unverified";
  // Predicates that read or walk: cached while the files they read are unchanged.
  const std::string key = project_root + '\0' + std::string(anchor);
  if (pred == "glob-exists" || pred == "git-tracked" || pred == "package-version" || pred == "newest-of" ||
      pred == "file-contains" || pred == "file-not-contains") {
    if (auto hit = CachedVerdict(key)) return *hit;
    if (deadline.Passed()) return "unverified";
  }
  if (pred == "glob-exists") {
    std::vector<fs::path> folders;
    const std::string verdict = EvalGlobExists(project_root, (*words)[1], deadline, &folders);
    if (verdict != "unverified") StoreVerdict(key, folders, verdict);
    return verdict;
  }
  if (pred == "newest-of") {
    std::vector<fs::path> files;
    for (std::size_t i = 1; i < words->size(); ++i) {
      if (auto p = ResolveAnchorPath(project_root, (*words)[i])) files.push_back(*p);
    }
    const std::string verdict = EvalNewestOf(project_root, {words->begin() + 1, words->end()});
    StoreVerdict(key, files, verdict);
    return verdict;
  }
  if (pred == "package-version") {
    const std::string verdict = EvalPackageVersion(project_root, (*words)[1], (*words)[2]);
    if (auto p = ResolveAnchorPath(project_root, (*words)[1])) StoreVerdict(key, {*p}, verdict);
    return verdict;
  }
  if (pred == "git-tracked") {
    const std::string verdict = EvalGitTracked(project_root, (*words)[1], deadline);
    // The index file, wherever the repository keeps it, is the state; a worktree's is
    // found again on a miss, so caching on the usual place is enough.
    if (verdict != "unverified") StoreVerdict(key, {fs::path(project_root) / ".git" / "index", fs::path(project_root) / ".git"}, verdict);
    return verdict;
  }
  std::error_code ec;
  if (pred == "git-branch-is") {
    std::ifstream head(fs::path(project_root) / ".git" / "HEAD");
    std::string line;
    if (!head || !std::getline(head, line)) return "unverified";
    const std::string prefix = "ref: refs/heads/";
    if (line.rfind(prefix, 0) != 0) return "unverified";  // detached HEAD
    return line.substr(prefix.size()) == (*words)[1] ? "affirmed" : "contradicted";
  }
  const std::optional<fs::path> path = ResolveAnchorPath(project_root, (*words)[1]);
  if (!path) return "unverified";
  const bool exists = fs::exists(*path, ec);
  if (ec) return "unverified";
  if (pred == "file-exists") return exists ? "affirmed" : "contradicted";
  if (pred == "file-absent") return exists ? "contradicted" : "affirmed";
  if (!exists || !fs::is_regular_file(*path, ec)) return "unverified";
  std::ifstream in(*path, std::ios::binary);
  if (!in) return "unverified";
  std::string content(kMaxRead, '\0');
  in.read(content.data(), static_cast<std::streamsize>(kMaxRead));
  content.resize(static_cast<std::size_t>(in.gcount()));
  const bool contains = content.find((*words)[2]) != std::string::npos;
  // Past the read bound the rest of the file is unknown: only a match inside the bound
  // decides; otherwise the verdict would be a guess (a wrong "contradicted" withholds a
  // true memory, a wrong "affirmed" confirms a false one).
  if (!contains && in.peek() != std::char_traits<char>::eof()) return "unverified";
  const std::string verdict = (pred == "file-contains") == contains ? "affirmed" : "contradicted";
  StoreVerdict(key, {*path}, verdict);
  return verdict;
}

}  // namespace kioku::semantic
