#pragma once
/// @file abi.hpp
/// The binary boundary between the kioku host and a plugin module.
///
/// A plugin module (`kioku-<name>.so`) exports exactly two C symbols:
///   - `kioku_plugin_manifest_v1`: a `KiokuPluginManifest` (plain C data), read by the host
///     *before* any C++ call, so a module built against another SDK or toolchain is refused
///     with a message instead of crashing.
///   - `kioku_plugin_create_v1`: a `KiokuCreatePluginFn` that builds the plugin object.
/// Use the `KIOKU_PLUGIN` macro (plugin_entry.hpp) to export both; never write them by hand.
/// This header holds the types only and stays light (no nlohmann/json.hpp, no SQLiteCpp):
/// the host's loader and plugin_entry.hpp include it.
/// Pattern: DuckDB extension loader (version checked before C++ calls) and SQLite's
/// `sqlite3ext.h` (host services handed to the plugin; the plugin never links back).

#include <cstdint>

#include <nlohmann/json_fwd.hpp>

/// Bumped whenever a type crossing the boundary (Plugin, HostServices, ToolSpec, the
/// manifest, ...) changes. 2: the manifest carries the settings schema, read before create;
/// ToolSpec::profile; Caller identity fields; Registrar::AddContextProvider;
/// HostServices::DeferWrite/Projects. 3: Registrar::AddExporter, HostServices::GetEmbedder
/// (embedding.hpp). 4: HostServices::GetChatModel (chat.hpp). 5: ToolSpec::schemas,
/// Embedder::EmbedQuery. 6: Migration::foreign_keys_off.
#define KIOKU_SDK_ABI 6u

namespace kioku::sdk {
class Plugin;
class HostServices;
}  // namespace kioku::sdk

/// Returns the plugin's settings schema (settings.hpp): the plugin class's static
/// `SettingsSchema()`. The host calls it after checking abi_version and fingerprint and
/// before `create`, validates the YAML section and fills its defaults, so the settings are
/// complete when the plugin's constructor runs.
using KiokuSettingsSchemaFn = nlohmann::json (*)();

extern "C" {
/// Plain-C manifest every plugin module exports as `kioku_plugin_manifest_v1`. The first
/// field never moves: the host reads `abi_version` first and reads nothing else from a
/// module built for another ABI.
struct KiokuPluginManifest {
  std::uint32_t abi_version;  ///< KIOKU_SDK_ABI the module was built with.
  const char* name;           ///< Plugin name = config key; module file is `kioku-<name>.so`.
  const char* version;        ///< Plugin's own semantic version, e.g. "0.1.0".
  const char* fingerprint;    ///< KIOKU_BUILD_FINGERPRINT the module was built with.
  const char* description;    ///< One line for `kioku doctor` and `tools`.
  KiokuSettingsSchemaFn settings_schema;  ///< Since ABI 2; never null (KIOKU_PLUGIN sets it).
};
}

/// Factory exported as `kioku_plugin_create_v1`. Ownership of the returned object passes to
/// the host, which deletes it (through the virtual destructor) before unloading the module.
/// May throw; the host reports "plugin <name> threw on create: <what>".
using KiokuCreatePluginFn = kioku::sdk::Plugin* (*)(kioku::sdk::HostServices& host);
