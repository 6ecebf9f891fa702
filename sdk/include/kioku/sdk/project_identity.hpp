#pragma once
/// @file project_identity.hpp
/// Project identity (ARCHITECTURE.md "Identity and scope"): the normalized git remote plus
/// the path inside the repository, so two clones or a worktree of one repository are the
/// same project and two packages of a monorepo are not.

#include <filesystem>
#include <string>

namespace kioku::sdk {

/// Normalizes a git remote URL to "host/owner/repo": drops the scheme, user info, port and
/// a trailing ".git" or "/", turns scp-style "git@host:owner/repo" into "host/owner/repo",
/// lower-cases the host. "https://GitHub.com/acme/App.git" → "github.com/acme/App".
std::string NormalizeGitRemote(const std::string& url);

/// Identity of the project at `root` (an absolute directory):
///   - inside a git work tree with an `origin` (else the first) remote:
///     "<normalized remote>" or "<normalized remote>//<path inside repo>";
///   - inside a git work tree without remotes: "<repo top-level path>[//<path inside>]";
///   - otherwise the lexically normal absolute path of `root`.
/// Reads `.git` (directory, or a file pointing to a worktree's gitdir and its commondir)
/// and the repository `config` directly — no `git` process.
std::string ProjectIdentity(const std::filesystem::path& root);

}  // namespace kioku::sdk
