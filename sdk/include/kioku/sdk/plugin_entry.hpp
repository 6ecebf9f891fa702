#pragma once
/// @file plugin_entry.hpp
/// The KIOKU_PLUGIN macro and the build fingerprint. Include it from ONE file per plugin
/// module (by convention src/plugin_entry.cpp) and from the host's loader, nowhere else:
/// it pulls SQLiteCpp.h (SQLITECPP_VERSION is defined only there) and the fingerprint must
/// expand in the code being checked, so the plugin's copy names the versions the plugin was
/// compiled with and the loader's copy those of the host.
///   // src/plugin_entry.cpp
///   #include "kioku/sdk/plugin_entry.hpp"
///   #include "my_plugin.hpp"
///   KIOKU_PLUGIN("mine", "0.1.0", "One line for kioku doctor", mine::MyPlugin)

#include <nlohmann/json_fwd.hpp>  // NLOHMANN_JSON_VERSION_* (detail/abi_macros.hpp)
#include <SQLiteCpp/SQLiteCpp.h>  // SQLITECPP_VERSION

#include "kioku/sdk/abi.hpp"
#include "kioku/sdk/visibility.hpp"

#define KIOKU_STR_INNER(x) #x
#define KIOKU_STR(x) KIOKU_STR_INNER(x)

/// Build fingerprint: compiler, libstdc++ dual ABI, nlohmann/json and SQLiteC++ versions.
/// Host and plugin must agree byte for byte: they exchange std::string, std::function,
/// nlohmann::json and SQLite::Database objects, whose layouts depend on all four.
#define KIOKU_BUILD_FINGERPRINT                                                          \
  "gcc-" KIOKU_STR(__GNUC__) "." KIOKU_STR(__GNUC_MINOR__) ";cxx11abi="                  \
  KIOKU_STR(_GLIBCXX_USE_CXX11_ABI) ";json=" KIOKU_STR(NLOHMANN_JSON_VERSION_MAJOR) "."  \
  KIOKU_STR(NLOHMANN_JSON_VERSION_MINOR) "." KIOKU_STR(NLOHMANN_JSON_VERSION_PATCH)      \
  ";sqlitecpp=" SQLITECPP_VERSION

/// Exports a plugin class. CLASS must derive from kioku::sdk::Plugin and have a constructor
/// taking `kioku::sdk::HostServices&` (which outlives the plugin object). Its settings
/// schema is `CLASS::SettingsSchema()` — the class's own static function when it declares
/// one, else Plugin's (no settings).
#define KIOKU_PLUGIN(NAME, VERSION, DESCRIPTION, CLASS)                                  \
  extern "C" KIOKU_EXPORT const KiokuPluginManifest kioku_plugin_manifest_v1 = {         \
      KIOKU_SDK_ABI, NAME, VERSION, KIOKU_BUILD_FINGERPRINT, DESCRIPTION,                \
      &CLASS::SettingsSchema};                                                           \
  extern "C" KIOKU_EXPORT kioku::sdk::Plugin* kioku_plugin_create_v1(                   \
      kioku::sdk::HostServices& host) {                                                  \
    return new CLASS(host);                                                              \
  }
