#include "mcp/client_project.hpp"

#include <filesystem>

namespace kioku::host::mcp {

namespace fs = std::filesystem;

std::optional<sdk::ProjectInfo> ProjectNamedByClient(std::string_view value, const sdk::ProjectOptions& options) {
  std::string text(value);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.erase(0, 1);
  if (text.empty()) return std::nullopt;
  if (text.rfind("file:", 0) == 0) {
    text = sdk::FileUriPath(text);
    if (text.empty()) return std::nullopt;
  }
  text = sdk::ExpandHome(text);
  if (fs::path(text).is_absolute()) {
    sdk::ProjectInfo info = sdk::ProjectOfRecord(sdk::RecordedLocation{text, "", ""}, options);
    if (info.id.empty()) return std::nullopt;
    return info;
  }
  if (text.find('/') == std::string::npos && text.find('.') == std::string::npos) {
    // Neither a path nor "host/owner/repo": a relative folder name the server cannot place.
    return std::nullopt;
  }
  sdk::ProjectInfo info;
  info.id = info.repository = sdk::CanonicalProjectKey(text, options);
  return info;
}

std::optional<sdk::ProjectInfo> ProjectFromRoots(const nlohmann::json& roots, const std::string& working_dir,
                                                 const sdk::ProjectOptions& options) {
  if (!roots.is_array()) return std::nullopt;
  std::string first, best;
  const fs::path wd = fs::path(working_dir).lexically_normal();
  for (const auto& root : roots) {
    if (!root.is_object() || !root.contains("uri") || !root["uri"].is_string()) continue;
    const std::string path = sdk::FileUriPath(root["uri"].get<std::string>());
    if (path.empty()) continue;
    if (first.empty()) first = path;
    if (working_dir.empty()) continue;
    const fs::path rel = wd.lexically_relative(fs::path(path).lexically_normal());
    const bool holds = !rel.empty() && *rel.begin() != "..";
    if (holds && path.size() > best.size()) best = path;
  }
  const std::string chosen = best.empty() ? first : best;
  if (chosen.empty()) return std::nullopt;
  return sdk::ProjectOfRecord(sdk::RecordedLocation{chosen, "", ""}, options);
}

}  // namespace kioku::host::mcp
