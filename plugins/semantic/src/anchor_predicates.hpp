#pragma once
/// @file anchor_predicates.hpp
/// The anchor predicates that read more than one file or parse one (anchors.hpp lists the
/// grammar): glob-exists, newest-of, git-tracked, package-version; the path confinement
/// every file predicate shares; and the verdict cache keyed on the files' state.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kioku::semantic {

/// A wall-time bound for anchor evaluation (steady clock). A predicate that walks or
/// parses checks it and answers "unverified" when it is past.
struct AnchorDeadline {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  bool Passed() const { return std::chrono::steady_clock::now() >= at; }
  /// The bound of one recall's anchors: kAnchorBudgetMs from now.
  static AnchorDeadline ForOneRecall();
};

/// Wall time all the anchors of one recall may spend reading files (ms); past it, uncached
/// anchors answer "unverified" (the memory is shown, labelled so, never withheld).
inline constexpr int kAnchorBudgetMs = 50;

/// `rel` joined to `root`, lexically inside it and, with symlinks resolved (realpath of the
/// existing part), still inside the resolved root; nullopt otherwise. The one confinement
/// rule of every anchor path.
std::optional<std::filesystem::path> ResolveAnchorPath(const std::string& root, const std::string& rel);

/// glob-exists <pattern>: affirmed when a file or folder inside the project matches
/// (fnmatch(3) with FNM_PATHNAME per path; `**/` matches any number of folders). The walk
/// skips .git, does not follow symlinked folders and stops after kMaxGlobEntries entries
/// or at the deadline: without a match then, "unverified". `folders` (optional) receives
/// the folders walked, whose state keys the cached verdict.
std::string EvalGlobExists(const std::string& root, const std::string& pattern, const AnchorDeadline& deadline,
                           std::vector<std::filesystem::path>* folders = nullptr);

/// newest-of <expected> <other>...: affirmed when `expected` exists and no other listed
/// file has a later mtime; contradicted when another existing one is newer (or `expected`
/// is missing while another exists); unverified when none exists.
std::string EvalNewestOf(const std::string& root, const std::vector<std::string>& paths);

/// git-tracked <path>: affirmed when the path (a file, or a folder holding tracked files)
/// is in the Git index (.git/index versions 2-4, git's index-format.txt; a worktree's
/// `.git` file followed), contradicted when not, unverified without a readable index.
std::string EvalGitTracked(const std::string& root, const std::string& rel, const AnchorDeadline& deadline);

/// package-version <manifest> <version>: the version a manifest declares — package.json
/// "version", Cargo.toml [package].version (or [workspace.package]), pyproject.toml
/// [project].version (or [tool.poetry]), CMakeLists.txt `project(... VERSION x)` — equals
/// `version`, or starts with it when `version` ends in `*` ("2.*"). Other file names,
/// unreadable files and manifests without a version are unverified.
std::string EvalPackageVersion(const std::string& root, const std::string& manifest, const std::string& version);

/// The version a manifest's text declares ("" when none) by its file name.
std::string ManifestVersion(const std::string& file_name, const std::string& text);

/// Most entries one glob-exists walk visits.
inline constexpr std::size_t kMaxGlobEntries = 20'000;

/// Files up to this size are part of a signature by content (a 64-bit FNV-1a hash)...
inline constexpr std::size_t kMaxHashedFileBytes = 64 * 1024;
/// ...while one signature has hashed less than this; the rest by ctime.
inline constexpr std::size_t kMaxHashedBytes = 1024 * 1024;

/// The state of the files a verdict was read from: (exists, mtime ns, size, inode) and, for
/// a small regular file, a hash of its content (a same-size rewrite within one timestamp
/// tick keeps the others), else its ctime. Two equal signatures mean the verdict holds.
std::string FileStateSignature(const std::vector<std::filesystem::path>& files);

/// Process-wide verdict cache: `key` (anchor + root) → verdict, valid while the
/// signature of `files` is unchanged. Thread-safe; at most kMaxCachedAnchors entries
/// (cleared when full).
std::optional<std::string> CachedVerdict(const std::string& key);
void StoreVerdict(const std::string& key, const std::vector<std::filesystem::path>& files, const std::string& verdict);
inline constexpr std::size_t kMaxCachedAnchors = 4096;

}  // namespace kioku::semantic
