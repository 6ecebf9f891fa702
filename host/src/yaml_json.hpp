#pragma once
/// @file yaml_json.hpp
/// YAML text to JSON, as config files are read (also by the build, which stores the
/// embedded default config converted: config.hpp EmbeddedDefaultConfigJson).

#include <string>

#include <nlohmann/json.hpp>

namespace kioku::host {

/// Converts YAML text to JSON: plain scalars become bool/int/float/null when they look like
/// one (YAML 1.2 core schema), quoted scalars stay strings. Throws std::runtime_error with
/// the line/column of a YAML syntax error.
nlohmann::json YamlToJson(const std::string& yaml_text);

}  // namespace kioku::host
