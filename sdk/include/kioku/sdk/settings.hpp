#pragma once
/// @file settings.hpp
/// Plugin settings declared once: one JSON Schema whose leaves carry their `default`
/// (JSON Schema 2020-12 meta-data vocabulary, §9.2 "default"). From that single source:
///   - the host validates the plugin's YAML section against it (closed objects: a typo
///     fails start-up, naming the key),
///   - the host fills every absent key from its default (ApplySettingsDefaults) BEFORE the
///     plugin is constructed, so `HostServices::Settings()` in the constructor is complete
///     and a plugin never repeats a default in code,
///   - a test checks the documented section of config/kioku.yaml against it
///     (CheckDocumentedSettings), so docs, schema and behaviour cannot drift apart.
///
/// A plugin declares it as `static Json SettingsSchema()` on its class (plugin.hpp); the
/// `KIOKU_PLUGIN` macro exports it through the manifest so the host can read it without
/// constructing the plugin.
///
/// Example:
///   static sdk::Json SettingsSchema() {
///     using namespace sdk::schema;
///     return sdk::Settings({
///         {"half_life_days", sdk::Setting(Number(0.01, 3650, "Recency half-life, days"), 14)},
///         {"capture", sdk::Setting(Bool("Record every kioku tool call"), true)},
///         {"hook", sdk::Settings({{"agent_id", sdk::Setting(String(200), "claude-code")}})},
///     });
///   }

#include <string>
#include <vector>

#include "kioku/sdk/json.hpp"

namespace kioku::sdk {

/// A closed settings object: {"type":"object","additionalProperties":false,
/// "properties":properties}. Nested sections are Settings too; a nested section gets its
/// default from its children (ApplySettingsDefaults), so it needs none of its own.
Json Settings(Json properties);

/// `schema` (a leaf, e.g. schema::Integer(...)) with its "default" set to `default_value`.
Json Setting(Json schema, Json default_value);

/// The section as the plugin will see it: `section` (null = absent = {}) with every key
/// the schema declares and the section omits filled in — a leaf from its "default", a
/// nested object schema recursively (present even when the YAML omits it). Keys present in
/// `section` are kept as they are (validation is the caller's job); keys without a default
/// stay absent. Pure; throws nothing for well-formed JSON.
Json ApplySettingsDefaults(const Json& schema, const Json& section);

/// Dotted names ("hook.agent_id") of leaf settings that declare no "default", in schema
/// order. Empty for a schema that follows the "declared once" rule; the host does not
/// require it (a key may be optional on purpose) but tests use it to find forgotten ones.
std::vector<std::string> SettingsWithoutDefault(const Json& schema);

/// Compares a documented settings section (config/kioku.yaml converted to JSON) with the
/// schema: every leaf with a default must be documented with exactly that value, a leaf
/// without a default must not be documented (its value would be declared twice), and the
/// section must hold no undeclared key. Returns one line per disagreement, naming the
/// dotted key, the documented value and the default ("z: documented 1.9, default 1.96";
/// "hook.agent_id: not documented (default \"claude-code\")"; "x: documented 5, the schema
/// declares no default"; "zz: not in the schema").
/// Numbers compare by value (14 equals 14.0). Empty = they agree.
std::vector<std::string> CheckDocumentedSettings(const Json& schema, const Json& documented);

}  // namespace kioku::sdk
