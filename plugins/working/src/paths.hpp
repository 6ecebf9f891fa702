#pragma once
/// @file paths.hpp
/// Normalization of the file paths agents claim, so that two spellings of one file meet on
/// one lease row.

#include <string>
#include <string_view>
#include <vector>

namespace kioku::working {

/// Longest path (UTF-8 bytes) accepted in a claim.
inline constexpr std::size_t kMaxPathBytes = 1024;

/// Normalizes `input` to a path relative to `project_root`, purely lexically (symlinks are
/// not resolved; the file need not exist):
///   - a relative path is taken relative to the root: `./a/../b` -> `b`, `src//x.cc` ->
///     `src/x.cc`, a trailing `/` is dropped;
///   - an absolute path inside the root is made relative (`/repo/src/a` -> `src/a`);
///   - anything that ends outside the root (`../x`, `a/../../x`, `/etc/passwd`) or names the
///     root itself (`.`, ``) is refused.
/// When `project_root` is empty (the transport named no project) only relative paths are
/// accepted. Throws sdk::ToolError with a message naming the path and what to send.
std::string NormalizeClaimPath(std::string_view input, std::string_view project_root);

/// Normalizes every path, drops duplicates (first occurrence kept, order preserved) and
/// enforces 1 <= count <= max_paths. Validation only: throws before anything is written.
std::vector<std::string> NormalizeClaimPaths(const std::vector<std::string>& inputs,
                                             std::string_view project_root,
                                             std::size_t max_paths);

}  // namespace kioku::working
