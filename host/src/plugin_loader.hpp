#pragma once
/// @file plugin_loader.hpp
/// Loads plugin modules with Boost.DLL and checks their manifest before any C++ call.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kioku/sdk/abi.hpp"

namespace boost::dll {
class shared_library;
}

namespace kioku::host {

/// A loaded module. The library must outlive every object created from it; the runtime
/// keeps this next to the plugin instance and destroys the instance first.
struct LoadedModule {
  std::shared_ptr<boost::dll::shared_library> library;
  const KiokuPluginManifest* manifest = nullptr;
  KiokuCreatePluginFn create = nullptr;
};

/// Opens `path` with RTLD_NOW|RTLD_LOCAL, reads `kioku_plugin_manifest_v1`, and refuses
/// (std::runtime_error, one line naming the file) a module that cannot be loaded, lacks the
/// entry points, was built for another SDK ABI or build fingerprint (expected vs found), or
/// whose manifest name differs from `expected_name`.
LoadedModule LoadModule(const std::filesystem::path& path, const std::string& expected_name);

/// Module file name for a plugin: "kioku-<name>.so".
std::string ModuleFileName(const std::string& plugin_name);

/// Finds `kioku-<name>.so` in `dirs` (first match wins); empty path when absent.
std::filesystem::path FindModule(const std::string& plugin_name,
                                 const std::vector<std::filesystem::path>& dirs);

/// Plugin names of every `kioku-*.so` in `dirs`.
std::vector<std::string> ListModules(const std::vector<std::filesystem::path>& dirs);

/// Plugin search path, first match wins: `extra` (--plugin-dir, plugins.dirs), then each
/// entry of KIOKU_PLUGIN_PATH (colon-separated), then `<exe dir>/../lib/kioku/plugins`
/// (install and build trees share that layout).
std::vector<std::filesystem::path> PluginSearchPath(const std::vector<std::filesystem::path>& extra);

}  // namespace kioku::host
