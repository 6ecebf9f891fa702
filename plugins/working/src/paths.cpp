#include "paths.hpp"

#include <filesystem>
#include <unordered_set>

#include "kioku/sdk/tool.hpp"

namespace kioku::working {
namespace fs = std::filesystem;

namespace {

std::string Quote(std::string_view s) {
  constexpr std::size_t kShown = 120;
  std::string out = "'";
  out.append(s.substr(0, kShown));
  if (s.size() > kShown) out += "...";
  out += "'";
  return out;
}

std::string StripTrailingSlashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

std::string NormalizeClaimPath(std::string_view input, std::string_view project_root) {
  if (input.empty()) {
    throw sdk::ToolError("empty path; send a file path relative to the project root");
  }
  if (input.size() > kMaxPathBytes) {
    throw sdk::ToolError("path " + Quote(input) + " is longer than " +
                         std::to_string(kMaxPathBytes) + " bytes");
  }
  for (unsigned char c : input) {
    if (c < 0x20 || c == 0x7f) {
      throw sdk::ToolError("path " + Quote(input) +
                           " contains a control character; send a plain file path");
    }
  }
  const fs::path p{std::string(input)};
  fs::path rel;
  if (project_root.empty()) {
    if (p.is_absolute()) {
      throw sdk::ToolError("path " + Quote(input) +
                           " is absolute but this connection names no project root; send "
                           "the path relative to the project root");
    }
    rel = p.lexically_normal();
  } else {
    const fs::path root = fs::path(StripTrailingSlashes(std::string(project_root)))
                              .lexically_normal();
    const fs::path full = (root / p).lexically_normal();  // root / absolute == absolute
    rel = full.lexically_relative(root);
  }
  std::string out = StripTrailingSlashes(rel.generic_string());
  if (out.empty() || out == "." || out == "./") {
    throw sdk::ToolError("path " + Quote(input) +
                         " names the project root itself; claim individual files");
  }
  if (out == ".." || out.rfind("../", 0) == 0) {
    throw sdk::ToolError("path " + Quote(input) + " is outside the project root" +
                         (project_root.empty() ? std::string()
                                               : " " + Quote(project_root)) +
                         "; send a path inside the project");
  }
  return out;
}

std::vector<std::string> NormalizeClaimPaths(const std::vector<std::string>& inputs,
                                             std::string_view project_root,
                                             std::size_t max_paths) {
  if (inputs.empty()) {
    throw sdk::ToolError("paths is empty; send at least one file path");
  }
  if (inputs.size() > max_paths) {
    throw sdk::ToolError("too many paths: " + std::to_string(inputs.size()) +
                         " in one call, the limit is " + std::to_string(max_paths) +
                         "; split the call or claim fewer files");
  }
  std::vector<std::string> out;
  out.reserve(inputs.size());
  std::unordered_set<std::string> seen;
  for (const auto& in : inputs) {
    std::string n = NormalizeClaimPath(in, project_root);
    if (seen.insert(n).second) out.push_back(std::move(n));
  }
  return out;
}

}  // namespace kioku::working
