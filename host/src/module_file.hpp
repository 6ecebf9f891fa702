#pragma once
/// @file module_file.hpp
/// Where kioku's own shared modules live, and a check of a module file before dlopen.

#include <filesystem>
#include <optional>
#include <string>

namespace kioku::host {

/// `<exe dir>/../lib/kioku`, lexically normal: the bundled plugins (`plugins/`) and the
/// HTTP client module live there, in the build tree and the install tree alike. nullopt
/// when the executable's path cannot be read (/proc/self/exe unavailable): a path relative
/// to the working directory would let a repository plant a module.
std::optional<std::filesystem::path> InstallLibDir();

/// `InstallLibDir()/plugins`: where the bundled plugins are installed.
std::optional<std::filesystem::path> BundledPluginDir();

/// Why `path` cannot be handed to dlopen, or "" when it can: it does not exist or cannot be
/// read, is not a
/// 64-bit ELF file, or is shorter than its own program and section headers say. dlopen maps
/// a truncated library without complaint and the process dies of SIGBUS when it first
/// touches a page past the end, so a half-copied module would crash a server mid-session
/// instead of failing its load. The phrase completes "module <path> …", e.g. "is truncated
/// (100000 bytes; its headers need 2175064)".
std::string ModuleFileProblem(const std::filesystem::path& path);

}  // namespace kioku::host
