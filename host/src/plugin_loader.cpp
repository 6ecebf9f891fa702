#include "plugin_loader.hpp"

#include "kioku/sdk/plugin_entry.hpp"  // KIOKU_BUILD_FINGERPRINT as the host was built
#include "module_file.hpp"

#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <utility>

#include <boost/dll/shared_library.hpp>

namespace kioku::host {

std::string ModuleFileName(const std::string& plugin_name) { return "kioku-" + plugin_name + ".so"; }

LoadedModule LoadModule(const std::filesystem::path& path, const std::string& expected_name) {
  const std::string file = path.string();
  LoadedModule module;
  if (const auto problem = ModuleFileProblem(path); !problem.empty()) {
    throw std::runtime_error("plugin " + file + ": cannot load: the file " + problem + "; reinstall or rebuild it");
  }
  try {
    module.library = std::make_shared<boost::dll::shared_library>(
        path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw std::runtime_error("plugin " + file + ": cannot load: " + e.what());
  }
  auto& lib = *module.library;
  if (!lib.has("kioku_plugin_manifest_v1")) {
    throw std::runtime_error("plugin " + file +
                             ": missing entry point kioku_plugin_manifest_v1 (not a kioku "
                             "plugin, or built without KIOKU_PLUGIN)");
  }
  module.manifest = &lib.get<const KiokuPluginManifest>("kioku_plugin_manifest_v1");
  const auto& m = *module.manifest;
  if (m.abi_version != KIOKU_SDK_ABI) {
    throw std::runtime_error("plugin " + file + ": SDK ABI mismatch: expected " +
                             std::to_string(KIOKU_SDK_ABI) + ", found " +
                             std::to_string(m.abi_version) + "; rebuild the plugin against this kioku");
  }
  const char* fingerprint = m.fingerprint ? m.fingerprint : "(null)";
  if (std::strcmp(fingerprint, KIOKU_BUILD_FINGERPRINT) != 0) {
    throw std::runtime_error("plugin " + file + ": build fingerprint mismatch: expected '" +
                             KIOKU_BUILD_FINGERPRINT + "', found '" + fingerprint +
                             "'; rebuild the plugin with the same compiler and libraries");
  }
  if (m.name == nullptr || expected_name != m.name) {
    throw std::runtime_error("plugin " + file + ": manifest names plugin '" +
                             std::string(m.name ? m.name : "(null)") + "', expected '" +
                             expected_name + "'");
  }
  if (m.settings_schema == nullptr) {
    throw std::runtime_error("plugin " + file +
                             ": manifest has no settings_schema (write the manifest with KIOKU_PLUGIN)");
  }
  if (!lib.has("kioku_plugin_create_v1")) {
    throw std::runtime_error("plugin " + file + ": missing entry point kioku_plugin_create_v1");
  }
  module.create = &lib.get<std::remove_pointer_t<KiokuCreatePluginFn>>("kioku_plugin_create_v1");
  return module;
}

std::filesystem::path FindModule(const std::string& plugin_name,
                                 const std::vector<std::filesystem::path>& dirs) {
  for (const auto& dir : dirs) {
    std::error_code ec;
    auto candidate = dir / ModuleFileName(plugin_name);
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

std::vector<std::string> ListModules(const std::vector<std::filesystem::path>& dirs) {
  std::set<std::string> names;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const auto stem = entry.path().stem().string();
      if (entry.path().extension() == ".so" && stem.rfind("kioku-", 0) == 0) {
        names.insert(stem.substr(6));
      }
    }
  }
  return {names.begin(), names.end()};
}

std::vector<std::filesystem::path> PluginSearchPath(const std::vector<std::filesystem::path>& extra) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : extra) dirs.push_back(e);
  if (const char* env = std::getenv("KIOKU_PLUGIN_PATH")) {
    std::string value = env;
    std::size_t start = 0;
    while (start <= value.size()) {
      auto end = value.find(':', start);
      if (end == std::string::npos) end = value.size();
      if (end > start) dirs.emplace_back(value.substr(start, end - start));
      start = end + 1;
    }
  }
  if (auto bundled = BundledPluginDir()) dirs.push_back(std::move(*bundled));
  return dirs;
}

}  // namespace kioku::host
