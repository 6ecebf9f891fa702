#pragma once
/// @file schema_util.hpp
/// Small builders for the tools' JSON Schemas.

#include <cstdint>
#include <string>
#include <vector>

#include "kioku/sdk/tool.hpp"

namespace kioku::episodic::js {

inline sdk::Json Str(std::size_t max_len, std::string desc, std::size_t min_len = 0) {
  sdk::Json j = {{"type", "string"}, {"maxLength", max_len}, {"description", std::move(desc)}};
  if (min_len > 0) j["minLength"] = min_len;
  return j;
}
inline sdk::Json Int(std::int64_t min, std::int64_t max, std::string desc) {
  return {{"type", "integer"}, {"minimum", min}, {"maximum", max}, {"description", std::move(desc)}};
}
inline sdk::Json Enum(std::vector<std::string> values, std::string desc) {
  return {{"type", "string"}, {"enum", std::move(values)}, {"description", std::move(desc)}};
}
inline sdk::Json Object(sdk::Json properties, std::vector<std::string> required = {}) {
  sdk::Json j = {{"type", "object"}, {"additionalProperties", false},
                 {"properties", std::move(properties)}};
  if (!required.empty()) j["required"] = std::move(required);
  return j;
}
/// Output schemas are open (additionalProperties allowed) so fields can be added later.
inline sdk::Json OutObject(sdk::Json properties, std::vector<std::string> required) {
  return {{"type", "object"}, {"properties", std::move(properties)},
          {"required", std::move(required)}};
}
inline sdk::Json T(const char* type) { return {{"type", type}}; }
inline sdk::Json NullableStr() { return {{"type", {"string", "null"}}}; }

}  // namespace kioku::episodic::js
