#include "kioku/sdk/schema.hpp"

#include <utility>

namespace kioku::sdk::schema {
namespace {

Json& Describe(Json& s, std::string_view description) {
  if (!description.empty()) s["description"] = std::string(description);
  return s;
}

}  // namespace

Json String(std::int64_t max_length, std::string_view description, std::int64_t min_length) {
  Json s = {{"type", "string"}, {"maxLength", max_length}};
  if (min_length > 0) s["minLength"] = min_length;
  return Describe(s, description);
}

Json Integer(std::int64_t min, std::int64_t max, std::string_view description) {
  Json s = {{"type", "integer"}, {"minimum", min}, {"maximum", max}};
  return Describe(s, description);
}

Json Number(double min, double max, std::string_view description) {
  Json s = {{"type", "number"}, {"minimum", min}, {"maximum", max}};
  return Describe(s, description);
}

Json Bool(std::string_view description) {
  Json s = {{"type", "boolean"}};
  return Describe(s, description);
}

Json Enum(std::vector<std::string> values, std::string_view description) {
  Json s = {{"type", "string"}, {"enum", std::move(values)}};
  return Describe(s, description);
}

Json Array(Json items, std::int64_t max_items, std::string_view description,
           std::int64_t min_items) {
  Json s = {{"type", "array"}, {"items", std::move(items)}, {"maxItems", max_items}};
  if (min_items > 0) s["minItems"] = min_items;
  return Describe(s, description);
}

Json IdPrefix(std::string_view description) { return String(64, description, 4); }

Json Time(std::string_view description) { return String(40, description); }

Json Object(Json properties, std::vector<std::string> required) {
  if (properties.is_null()) properties = Json::object();
  Json s = {{"type", "object"}, {"additionalProperties", false},
            {"properties", std::move(properties)}};
  if (!required.empty()) s["required"] = std::move(required);
  return s;
}

Json Output(Json properties, std::vector<std::string> required) {
  Json s = {{"type", "object"}};
  if (!properties.is_null()) s["properties"] = std::move(properties);
  if (!required.empty()) s["required"] = std::move(required);
  return s;
}

Json ArrayOf(Json items) { return {{"type", "array"}, {"items", std::move(items)}}; }

Json Type(std::string_view type) { return {{"type", std::string(type)}}; }

Json Nullable(Json schema) {
  schema["type"] = Json::array({schema.at("type"), "null"});
  return schema;
}

}  // namespace kioku::sdk::schema
