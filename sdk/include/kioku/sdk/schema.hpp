#pragma once
/// @file schema.hpp
/// JSON Schema builders for tool input/output schemas and plugin settings — the one way to
/// write a schema in a kioku plugin.
///
/// Conventions (so every builder reads the same):
///   - Bounds first, description last, optional bounds after the description:
///     `String(max_length, description, min_length)`, `Integer(min, max, description)`,
///     `Array(items, max_items, description, min_items)`.
///   - An empty description is left out: the schema reaches the model in tools/list, whose
///     size is paid in context, so a property that explains itself carries no description.
///   - Units are those of JSON Schema 2020-12 (json-schema.org/draft/2020-12/json-schema-
///     validation, §6): `maxLength`/`minLength` count Unicode code points, not bytes.
///
/// Open/closed policy (decided once for every layer):
///   - Input objects (`Object`) are CLOSED (`additionalProperties: false`): a misspelt
///     argument fails validation in the host with a message naming the field, instead of
///     being silently ignored.
///   - Output objects (`Output`) are OPEN (no `additionalProperties`): a layer may add a
///     result field without breaking a client that validates `structuredContent`, and the
///     schema stays shorter. Nested result objects built with `Output` are open too.
///   - Settings objects (`Settings`, settings.hpp) are CLOSED, so a typo in kioku.yaml fails
///     start-up (userver's rule: a component's config is validated against its schema).
///
/// All functions are pure and thread-safe; none throws except on allocation failure.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "kioku/sdk/json.hpp"

namespace kioku::sdk::schema {

/// {"type":"string","maxLength":max_length[,"minLength":min_length][,"description":…]}.
/// `min_length` 0 is omitted. Use 1 for "must not be empty".
Json String(std::int64_t max_length, std::string_view description = {},
            std::int64_t min_length = 0);

/// {"type":"integer","minimum":min,"maximum":max[,"description":…]}.
Json Integer(std::int64_t min, std::int64_t max, std::string_view description = {});

/// {"type":"number","minimum":min,"maximum":max[,"description":…]}.
Json Number(double min, double max, std::string_view description = {});

/// {"type":"boolean"[,"description":…]}.
Json Bool(std::string_view description = {});

/// {"type":"string","enum":[values…][,"description":…]}.
Json Enum(std::vector<std::string> values, std::string_view description = {});

/// {"type":"array","items":items,"maxItems":max_items[,"minItems":…][,"description":…]}.
Json Array(Json items, std::int64_t max_items, std::string_view description = {},
           std::int64_t min_items = 0);

/// An id the caller types: a full id or a unique prefix of at least 4 characters (the rule
/// of ResolveIdPrefix, db.hpp), at most 64. {"type":"string","minLength":4,"maxLength":64}.
Json IdPrefix(std::string_view description = {});

/// An RFC 3339 time argument read with TimeArg (args.hpp): a date-time with `Z` or an
/// offset, or a full date. {"type":"string","maxLength":40[,"description":…]}. The shape is
/// checked by TimeArg, not by the schema (valijson does not check "format").
Json Time(std::string_view description = {});

/// A closed input object: {"type":"object","additionalProperties":false,
/// "properties":properties[,"required":required]}. `properties` must be a JSON object.
Json Object(Json properties, std::vector<std::string> required = {});

/// An open output object: {"type":"object"[,"properties":properties][,"required":required]}.
/// Output() alone is any object (a tool whose result shape is described in its text).
Json Output(Json properties = nullptr, std::vector<std::string> required = {});

/// An output array: {"type":"array","items":items} — no maxItems (a result's size is the
/// layer's bound, stated in its description, not a validation rule).
Json ArrayOf(Json items);

/// Bare type for output properties: {"type":type}, e.g. Type("string").
Json Type(std::string_view type);

/// `schema` that also accepts null: its "type" becomes [type, "null"]. For output fields
/// that may be absent-but-present (RfcOrNull). `schema` must have a string "type".
Json Nullable(Json schema);

}  // namespace kioku::sdk::schema
