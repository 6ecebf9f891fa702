#pragma once
/// @file project_identity.hpp
/// Project identity (ARCHITECTURE.md "Identity and scope") — the ONE mapping from a folder to
/// a project, used by the host for live callers (working directory, MCP roots, the
/// Kioku-Project header), by ingest for a transcript's cwd, by hooks and by migrations.
///
/// The project is the repository: its normalized git remote (`origin`, else the first
/// remote), else the path of its main work tree (so a linked worktree and its main checkout
/// are one project), else — outside git — the folder's absolute path. A subfolder is the
/// same project as its repository: an agent started in `webapp/apps/api` sees the
/// repository's project-wide memories, claims and handoffs; what is specific to the package
/// is stored with `path` scope. Only packages listed in ProjectOptions::packages (config key
/// `identity.packages`) are projects of their own, named "<repository>//<package path>".

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::sdk {

/// Deployment-wide identity settings (host config `identity:`).
struct ProjectOptions {
  /// Monorepo packages that are separate projects: paths inside a repository, '/'
  /// separated, where a segment "*" matches any one folder ("apps/api", "packages/*").
  /// The first pattern matching the leading segments of the folder's path wins.
  std::vector<std::string> packages;
};

/// Where a folder belongs.
struct ProjectInfo {
  std::string id;          ///< The project key stored in every per-project row.
  std::string root;        ///< Top folder: work-tree root or package folder; else the folder.
  std::string path;        ///< The folder relative to `root` ("" at the root), '/' separated.
  std::string repository;  ///< Normalized remote or main work-tree path; "" outside git.
};

/// Normalizes a git remote URL to "host/owner/repo": drops the scheme, user info, port and
/// a trailing ".git" or "/", turns scp-style "git@host:owner/repo" into "host/owner/repo",
/// lower-cases the host. "https://GitHub.com/acme/App.git" → "github.com/acme/App".
std::string NormalizeGitRemote(const std::string& url);

/// Resolves `folder` (made absolute, symlinks resolved where they exist). Reads `.git`
/// (directory, or a file pointing to a worktree's gitdir and its commondir) and the
/// repository `config` directly — no `git` process. Never throws.
ProjectInfo ResolveProject(const std::filesystem::path& folder, const ProjectOptions& options = {});

/// ResolveProject(folder, options).id.
std::string ProjectIdentity(const std::filesystem::path& folder, const ProjectOptions& options = {});

/// "~" or "~/x" → "$HOME" / "$HOME/x" (unchanged when HOME is unset or the text starts
/// otherwise). "~user" forms are left alone.
std::string ExpandHome(std::string_view path);

/// What a transcript records about where it ran.
struct RecordedLocation {
  std::string cwd;         ///< As recorded; "~" is expanded.
  std::string git_remote;  ///< Repository URL when recorded (Codex session_meta.git.repository_url).
  std::string git_branch;  ///< Informational only.
};

/// The project of a recorded session: ResolveProject(cwd) when cwd exists here; else the
/// normalized `git_remote` when recorded; else, when the nearest existing ancestor of cwd is
/// inside a git work tree, that repository's project; else the normalized cwd path.
/// An empty cwd and remote yield an empty ProjectInfo.
ProjectInfo ProjectOfRecord(const RecordedLocation& where, const ProjectOptions& options = {});

/// The current key for a project key stored by an earlier release (migrations): "~/x" and
/// raw paths are resolved with ProjectOfRecord; "<repo>//<sub>" (subfolder keys before the
/// repository became the project) becomes "<repo>", or "<repo>//<package>" when <sub> lies
/// in a configured package. A key already current is returned unchanged.
std::string CanonicalProjectKey(std::string_view stored, const ProjectOptions& options = {});

/// The local path of a `file://` URI (MCP Root.uri): percent-escapes decoded, an optional
/// "localhost" host accepted; "" for any other scheme or host.
std::string FileUriPath(std::string_view uri);

}  // namespace kioku::sdk
