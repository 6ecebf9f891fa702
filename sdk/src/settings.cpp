#include "kioku/sdk/settings.hpp"

#include <utility>

namespace kioku::sdk {
namespace {

bool IsSection(const Json& schema) {
  return schema.is_object() && schema.value("type", Json()) == "object" &&
         schema.contains("properties") && schema.at("properties").is_object();
}

std::string Dotted(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

bool SameValue(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

void Missing(const Json& schema, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [key, prop] : schema.at("properties").items()) {
    if (IsSection(prop) && !prop.contains("default")) {
      Missing(prop, Dotted(prefix, key), out);
    } else if (!prop.contains("default")) {
      out.push_back(Dotted(prefix, key));
    }
  }
}

void Compare(const Json& schema, const Json& documented, const std::string& prefix,
             std::vector<std::string>& out) {
  const Json& props = schema.at("properties");
  for (const auto& [key, prop] : props.items()) {
    const std::string name = Dotted(prefix, key);
    const auto it = documented.find(key);
    if (IsSection(prop) && !prop.contains("default")) {
      Compare(prop, it != documented.end() && it->is_object() ? *it : Json::object(), name, out);
      continue;
    }
    if (!prop.contains("default")) {
      // Optional on purpose is fine; documenting a value the code does not declare is the
      // drift this check exists for.
      if (it != documented.end()) {
        out.push_back(name + ": documented " + DumpJson(*it) + ", the schema declares no default");
      }
      continue;
    }
    if (it == documented.end()) {
      out.push_back(name + ": not documented (default " + DumpJson(prop.at("default")) + ")");
    } else if (!SameValue(*it, prop.at("default"))) {
      out.push_back(name + ": documented " + DumpJson(*it) + ", default " +
                    DumpJson(prop.at("default")));
    }
  }
  for (const auto& [key, value] : documented.items()) {
    if (!props.contains(key)) out.push_back(Dotted(prefix, key) + ": not in the schema");
  }
}

}  // namespace

Json Settings(Json properties) {
  if (properties.is_null()) properties = Json::object();
  return {{"type", "object"}, {"additionalProperties", false},
          {"properties", std::move(properties)}};
}

Json Setting(Json schema, Json default_value) {
  schema["default"] = std::move(default_value);
  return schema;
}

Json ApplySettingsDefaults(const Json& schema, const Json& section) {
  Json out = section.is_null() ? Json::object() : section;
  if (!out.is_object() || !IsSection(schema)) return out;
  for (const auto& [key, prop] : schema.at("properties").items()) {
    auto it = out.find(key);
    if (it == out.end()) {
      if (prop.is_object() && prop.contains("default")) {
        out[key] = prop.at("default");
      } else if (IsSection(prop)) {
        out[key] = ApplySettingsDefaults(prop, Json::object());
      }
    } else if (IsSection(prop) && it->is_object()) {
      *it = ApplySettingsDefaults(prop, *it);
    }
  }
  return out;
}

std::vector<std::string> SettingsWithoutDefault(const Json& schema) {
  std::vector<std::string> out;
  if (IsSection(schema)) Missing(schema, "", out);
  return out;
}

std::vector<std::string> CheckDocumentedSettings(const Json& schema, const Json& documented) {
  std::vector<std::string> out;
  if (!IsSection(schema)) return out;
  Compare(schema, documented.is_object() ? documented : Json::object(), "", out);
  return out;
}

}  // namespace kioku::sdk
