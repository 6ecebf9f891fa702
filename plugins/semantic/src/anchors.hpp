#pragma once
/// @file anchors.hpp
/// Anchors: read-only predicates that test whether a memory still holds (token-goat-mem
/// seed, "Anchors"). Recall evaluates the anchors of the memories it is about to return and
/// withholds those whose anchor is contradicted — a stale memory is never shown as truth.
///
/// Grammar: `<predicate> <arg>…`, arguments separated by spaces, "double quotes" for an
/// argument with spaces. Paths are relative to the caller's project root and may not leave
/// it, lexically or through a symlink. Supported predicates:
///   file-exists <path>                 affirmed when it exists
///   file-absent <path>                 affirmed when it does not exist
///   file-contains <path> <text>        affirmed when the file (first 1 MiB) contains text
///   file-not-contains <path> <text>    the opposite; a missing file is unverified
///   git-branch-is <branch>             affirmed when .git/HEAD names that branch
///   valid-until <RFC 3339 date/time>   affirmed until then (a date = its end, UTC)
///   glob-exists <pattern>              affirmed when a path matches (`*`, `?`, `[..]`, `**/`)
///   newest-of <path> <path>...         affirmed when the first is the newest (mtime) of them
///   git-tracked <path>                 affirmed when the Git index holds it (or files under it)
///   package-version <manifest> <ver>   package.json / Cargo.toml / pyproject.toml /
///                                      CMakeLists.txt declares that version ("2.*" = prefix)
/// (anchor_predicates.hpp has the exact rules.) Verdicts of the predicates that read files
/// are cached while those files' mtime, size and inode stay the same, so a long-running
/// server sees edits at once and does not re-read unchanged files.
/// Verdicts: "affirmed", "contradicted", or "unverified" (no project root, unreadable file,
/// detached HEAD — cannot confirm or deny).

#include <cstdint>
#include <string>
#include <string_view>

#include "anchor_predicates.hpp"

namespace kioku::semantic {

/// Empty when `anchor` is well-formed, else a message saying what is wrong and what is
/// supported (for a ToolError).
std::string ValidateAnchor(std::string_view anchor);

/// Empty when the file path of a well-formed anchor, with symlinks resolved, stays inside
/// `project_root` (or the anchor has no path, or there is no root); else the refusal
/// message. Checked at write time; recall re-checks and answers "unverified" for an escape.
std::string ConfineAnchor(std::string_view anchor, const std::string& project_root);

/// Evaluates a well-formed anchor against `project_root` at `now_ms`. File paths are
/// resolved (symlinks followed) and must stay inside the resolved root, else "unverified".
/// Past `deadline` (one per recall, so a recall's anchors share a time bound) an anchor
/// that is not cached answers "unverified" instead of reading files.
std::string EvaluateAnchor(std::string_view anchor, const std::string& project_root,
                           std::int64_t now_ms, const AnchorDeadline& deadline = {});

}  // namespace kioku::semantic
