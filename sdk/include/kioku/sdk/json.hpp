#pragma once
/// @file json.hpp
/// The JSON type of the SDK (nlohmann::json, https://json.nlohmann.me) under its one name,
/// `kioku::sdk::Json`, and the one way to serialize it for the wire or a model.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace kioku::sdk {

using Json = nlohmann::json;

/// Serializes JSON for the wire or for a model: invalid UTF-8 in strings is replaced with
/// U+FFFD instead of throwing (nlohmann's default dump throws type_error 316).
std::string DumpJson(const Json& value, int indent = -1);

/// At least `DumpJson(value).size()` (compact), in bytes, found without serializing: a string
/// byte takes at most 6 ("\u001f"; an invalid byte becomes U+FFFD, 3), a number or literal at
/// most 32 (a double's shortest round trip is at most 24 characters), a binary byte at most
/// 4, and every member or element at most 4 more (quotes, colon, comma). For a size check
/// that serializes only what the bound does not already place under a cap.
std::size_t DumpedSizeBound(const Json& value);

}  // namespace kioku::sdk
