#include "tool_support.hpp"

#include "dedup.hpp"
#include "vectors.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/text.hpp"
#include "normalize.hpp"

namespace kioku::semantic {

ToolContext::ToolContext(sdk::HostServices& h, Settings s)
    : host(h),
      settings(std::move(s)),
      vectors(std::make_unique<sdk::LayerVectors>(MemoryVectorTables(), h.GetEmbedder(), h.DataDir(),
                                                  ToSdkVectorSettings(settings.vectors), &h.Log())),
      worker(std::make_unique<sdk::EmbedWorker>(
          h, *vectors, [this](SQLite::Database& db, std::int64_t seq, const std::vector<float>& unit) {
            return FoldNearDuplicate(*this, db, seq, unit);
          })) {}

ToolContext::~ToolContext() = default;

Author AuthorOf(const sdk::Caller& caller) { return Author{caller.agent_id, caller.session_id}; }

Viewer ViewerOf(const sdk::Caller& caller) {
  return Viewer{caller.project_id, caller.project_root};
}

std::int64_t ParseExpires(const Json& value, std::int64_t now_ms) {
  if (value.is_string() && value.get<std::string>() == "permanent") return 0;
  const std::int64_t at = sdk::ParseTime(value, "expires");
  if (at <= now_ms) {
    throw sdk::ToolError("expires " + sdk::FormatRfc3339(at) +
                         " is in the past; send a future date or \"permanent\"");
  }
  return at;
}

namespace {

std::string RelativePath(const std::string& raw, const sdk::Caller& caller) {
  namespace fs = std::filesystem;
  const std::string_view trimmed = Trim(raw);
  if (trimmed.empty()) throw sdk::ToolError("path is empty; send a file or folder in the project");
  fs::path p(std::string{trimmed});
  // A relative path is relative to the folder the agent runs in (which may be a subfolder
  // of the project root); it is stored relative to the project root.
  if (p.is_relative() && !caller.working_dir.empty() && !caller.project_root.empty() &&
      fs::path(caller.working_dir).lexically_normal() != fs::path(caller.project_root).lexically_normal()) {
    p = fs::path(caller.working_dir) / p;
  }
  if (p.is_absolute()) {
    if (caller.project_root.empty()) {
      throw sdk::ToolError("path '" + sdk::TruncateUtf8(raw, 80) +
                           "' is absolute but the server has no project root; send a "
                           "project-relative path");
    }
    const fs::path root = fs::path(caller.project_root).lexically_normal();
    p = p.lexically_normal().lexically_relative(root);
    if (p.empty() || *p.begin() == "..") {
      throw sdk::ToolError("path '" + sdk::TruncateUtf8(raw, 80) + "' is outside the project " +
                           caller.project_root + "; send a path inside it");
    }
  }
  std::string rel = p.lexically_normal().generic_string();
  while (rel.size() > 1 && rel.back() == '/') rel.pop_back();
  if (rel.empty() || rel == "." ) {
    throw sdk::ToolError("path names the project root itself; use scope \"project\" instead");
  }
  if (rel == ".." || rel.rfind("../", 0) == 0) {
    throw sdk::ToolError("path '" + sdk::TruncateUtf8(raw, 80) +
                         "' leaves the project; send a path inside it");
  }
  return rel;
}

}  // namespace

Scope ResolveWriteScope(const std::string& scope_arg, const std::optional<std::string>& path,
                        const sdk::Caller& caller, const Settings& settings) {
  std::string scope = scope_arg;
  if (scope.empty()) {
    if (path) {
      scope = "path";
    } else {
      scope = settings.default_scope == "project" && !caller.project_id.empty() ? "project"
                                                                                 : "global";
    }
  }
  Scope s;
  s.kind = scope;
  if (scope == "global") {
    if (path) throw sdk::ToolError("path is only for scope \"path\"; drop path or send scope \"path\"");
    return s;
  }
  if (caller.project_id.empty()) {
    throw sdk::ToolError("scope \"" + scope +
                         "\" needs a project but this server was started without one; send "
                         "scope \"global\"");
  }
  s.project_id = caller.project_id;
  if (scope == "project") {
    if (path) throw sdk::ToolError("path is only for scope \"path\"; drop path or send scope \"path\"");
    return s;
  }
  if (!path) throw sdk::ToolError("scope \"path\" needs path: the file or folder it applies to");
  s.path = RelativePath(*path, caller);
  return s;
}

std::vector<std::string> ParseTags(const Json& tags) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  if (!tags.is_array()) return out;
  for (const Json& t : tags) {
    const std::string sent = t.get<std::string>();
    const std::string tag = NormalizeTag(sent);
    if (tag.empty()) throw sdk::ToolError("tags must not be empty strings");
    // Characters, as the schema counts them (a CJK character is 3 bytes); the key can be
    // longer than what was sent where NFKC expands a character (U+FDFA is 18).
    if (sdk::Utf8Length(tag) > 64) {
      throw sdk::ToolError("tag '" + sdk::TruncateUtf8(sent, 40) + "' is longer than 64 characters" +
                           (sdk::Utf8Length(sent) <= 64 ? " once normalized (NFKC expands some characters)" : "") +
                           "; send a shorter tag");
    }
    if (seen.insert(tag).second) out.push_back(tag);
  }
  return out;
}

std::string Preview(std::string_view text, std::size_t max_bytes) {
  std::string flat = sdk::CollapseWhitespace(text);
  return sdk::TruncateUtf8(flat, max_bytes);
}

}  // namespace kioku::semantic
