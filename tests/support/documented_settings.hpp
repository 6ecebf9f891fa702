#pragma once
/// @file documented_settings.hpp
/// Checks a plugin's section of config/kioku.yaml (the embedded default config) against the
/// plugin's settings schema (sdk::CheckDocumentedSettings): one test per plugin keeps the
/// documented YAML, the schema's defaults and so the plugin's behaviour in agreement.

#include <string>
#include <vector>

#include "config.hpp"
#include "kioku/sdk/settings.hpp"

namespace kioku::testing {

/// Disagreements between `kioku.yaml`'s `plugin:` section and `schema` (empty = agree).
inline std::vector<std::string> DocumentedSettingsProblems(const std::string& plugin,
                                                           const sdk::Json& schema) {
  const sdk::Json config = host::YamlToJson(host::EmbeddedDefaultConfig());
  std::vector<std::string> problems;
  if (!config.contains(plugin)) {
    problems.push_back("config/kioku.yaml has no '" + plugin + ":' section");
    return problems;
  }
  return sdk::CheckDocumentedSettings(schema, config.at(plugin));
}

}  // namespace kioku::testing
