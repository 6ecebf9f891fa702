#pragma once
/// @file json.hpp
/// The JSON type of the SDK (nlohmann::json, https://json.nlohmann.me) under its one name,
/// `kioku::sdk::Json`, and the one way to serialize it for the wire or a model.

#include <string>

#include <nlohmann/json.hpp>

namespace kioku::sdk {

using Json = nlohmann::json;

/// Serializes JSON for the wire or for a model: invalid UTF-8 in strings is replaced with
/// U+FFFD instead of throwing (nlohmann's default dump throws type_error 316).
std::string DumpJson(const Json& value, int indent = -1);

}  // namespace kioku::sdk
