#include "anchors.hpp"

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

const std::map<std::string, std::size_t, std::less<>>& Arity() {
  static const std::map<std::string, std::size_t, std::less<>> arity = {
      {"file-exists", 1},   {"file-absent", 1},   {"file-contains", 2},
      {"file-not-contains", 2}, {"git-branch-is", 1}, {"valid-until", 1}};
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

// Inside(), then symlinks resolved (realpath of the existing part): the target must still
// lie inside the resolved root, so `leak -> /outside` cannot make an anchor an oracle on
// files outside the project. nullopt when it escapes or cannot be resolved.
std::optional<fs::path> ResolvedInside(const std::string& root, const std::string& rel) {
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
      "file-not-contains <path> <text>, git-branch-is <branch>, valid-until <date>";
  const auto words = Split(anchor);
  if (!words) return "anchor has an unclosed quote; " + supported;
  if (words->empty()) return "";
  const auto it = Arity().find(words->front());
  if (it == Arity().end()) return "unknown anchor predicate '" + words->front() + "'; " + supported;
  if (words->size() - 1 != it->second) {
    return "anchor " + it->first + " takes " + std::to_string(it->second) + " argument" +
           (it->second == 1 ? "" : "s") + "; " + supported;
  }
  if (it->first.rfind("file-", 0) == 0 && !Inside("/", (*words)[1])) {
    return "anchor path '" + (*words)[1] + "' must be relative to the project and stay inside it";
  }
  if (it->first == "valid-until" && !UntilMs((*words)[1])) {
    return "anchor valid-until needs an RFC 3339 date such as 2026-12-31";
  }
  return "";
}

std::string ConfineAnchor(std::string_view anchor, const std::string& project_root) {
  const auto words = Split(anchor);
  if (!words || words->size() < 2 || words->front().rfind("file-", 0) != 0) return "";
  if (project_root.empty()) return "";  // nothing to resolve against; recall says unverified
  if (!ResolvedInside(project_root, (*words)[1])) {
    return "anchor path '" + (*words)[1] +
           "' resolves (following symlinks) to a place outside the project; anchor a file "
           "inside the project";
  }
  return "";
}

std::string EvaluateAnchor(std::string_view anchor, const std::string& project_root,
                           std::int64_t now_ms) {
  const auto words = Split(anchor);
  if (!words || words->empty() || !ValidateAnchor(anchor).empty()) return "unverified";
  const std::string& pred = words->front();
  if (pred == "valid-until") {
    return now_ms < *UntilMs((*words)[1]) ? "affirmed" : "contradicted";
  }
  if (project_root.empty()) return "unverified";
  std::error_code ec;
  if (pred == "git-branch-is") {
    std::ifstream head(fs::path(project_root) / ".git" / "HEAD");
    std::string line;
    if (!head || !std::getline(head, line)) return "unverified";
    const std::string prefix = "ref: refs/heads/";
    if (line.rfind(prefix, 0) != 0) return "unverified";  // detached HEAD
    return line.substr(prefix.size()) == (*words)[1] ? "affirmed" : "contradicted";
  }
  const std::optional<fs::path> path = ResolvedInside(project_root, (*words)[1]);
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
  if (pred == "file-contains") return contains ? "affirmed" : "contradicted";
  return contains ? "contradicted" : "affirmed";  // file-not-contains
}

}  // namespace kioku::semantic
