#include "json_schema.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

// Without this valijson prints and abort()s on a malformed schema; a plugin's bad schema
// must be a start-up error naming the plugin and tool instead.
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;

// valijson validates; this file only rewrites its findings. valijson's messages name the
// constraint ("Value type not permitted by 'type' constraint.") and add a wrapper line per
// enclosing property or item; a model needs instead what was expected at that field and
// what it sent. So for each leaf error we walk the schema and the value along valijson's
// context path and describe both.

constexpr std::size_t kMaxValueBytes = 80;    // offending values are cut to this in messages
constexpr std::size_t kMaxEnumValues = 12;    // enum values listed before "…"
constexpr std::size_t kMaxAllowedFields = 20; // allowed field names listed before "…"
constexpr int kMaxRefDepth = 16;

bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// valijson context {"<root>", "[memories]", "[3]", "[kind]"} → {"memories", "3", "kind"}.
std::vector<std::string> Tokens(const std::vector<std::string>& context) {
  std::vector<std::string> out;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
      out.push_back(part.substr(1, part.size() - 2));
    } else {
      out.push_back(part);
    }
  }
  return out;
}

bool IsPrefix(const std::vector<std::string>& prefix, const std::vector<std::string>& of) {
  return prefix.size() <= of.size() && std::equal(prefix.begin(), prefix.end(), of.begin());
}

// Follows local "$ref"s ("#", "#/definitions/x", "#/$defs/x"); remote refs stay unresolved.
const json* Resolve(const json& root, const json* schema) {
  for (int i = 0; i < kMaxRefDepth && schema != nullptr && schema->is_object(); ++i) {
    auto ref = schema->find("$ref");
    if (ref == schema->end() || !ref->is_string()) return schema;
    const std::string& target = ref->get_ref<const std::string&>();
    if (target.empty() || target[0] != '#') return schema;
    try {
      json::json_pointer pointer(target.substr(1));
      if (!root.contains(pointer)) return schema;
      schema = &root.at(pointer);
    } catch (const std::exception&) {
      return schema;
    }
  }
  return schema;
}

const json* Member(const json* schema, const char* key) {
  if (schema == nullptr || !schema->is_object()) return nullptr;
  auto it = schema->find(key);
  return it == schema->end() ? nullptr : &*it;
}

bool PatternMatches(const std::string& pattern, const std::string& key) {
  try {
    return std::regex_search(key, std::regex(pattern, std::regex::ECMAScript));
  } catch (const std::regex_error&) {
    return false;
  }
}

// The subschema that governs property `key` of an object validated by `schema`.
const json* PropertySchema(const json& root, const json* schema, const std::string& key, int depth = 0) {
  schema = Resolve(root, schema);
  if (schema == nullptr || !schema->is_object() || depth > kMaxRefDepth) return nullptr;
  if (const json* props = Member(schema, "properties"); props && props->is_object() && props->contains(key)) {
    return &(*props)[key];
  }
  if (const json* patterns = Member(schema, "patternProperties"); patterns && patterns->is_object()) {
    for (const auto& [pattern, sub] : patterns->items()) {
      if (PatternMatches(pattern, key)) return &sub;
    }
  }
  if (const json* extra = Member(schema, "additionalProperties"); extra && extra->is_object()) return extra;
  if (const json* all = Member(schema, "allOf"); all && all->is_array()) {
    for (const auto& sub : *all) {
      if (const json* found = PropertySchema(root, &sub, key, depth + 1)) return found;
    }
  }
  return nullptr;
}

// The subschema that governs item `index` of an array validated by `schema`.
const json* ItemSchema(const json& root, const json* schema, std::size_t index, int depth = 0) {
  schema = Resolve(root, schema);
  if (schema == nullptr || !schema->is_object() || depth > kMaxRefDepth) return nullptr;
  if (const json* items = Member(schema, "items")) {
    if (items->is_object()) return items;
    if (items->is_array()) {
      if (index < items->size()) return &(*items)[index];
      const json* extra = Member(schema, "additionalItems");
      return extra && extra->is_object() ? extra : nullptr;
    }
  }
  if (const json* all = Member(schema, "allOf"); all && all->is_array()) {
    for (const auto& sub : *all) {
      if (const json* found = ItemSchema(root, &sub, index, depth + 1)) return found;
    }
  }
  return nullptr;
}

// Where an error points: the dotted path a model sees in its own arguments
// ("memories[3].kind"), the value there and the schema that governs it (either may be null
// when the path leaves what the schema or value describe).
struct Location {
  std::string path;
  const json* value = nullptr;
  const json* schema = nullptr;
};

Location Locate(const json& root_schema, const json& root_value, const std::vector<std::string>& tokens) {
  Location at{"", &root_value, &root_schema};
  for (const auto& token : tokens) {
    const bool numeric = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    if (at.value != nullptr && at.value->is_array() && numeric) {
      const std::size_t index = std::stoul(token);
      at.path += "[" + token + "]";
      at.value = index < at.value->size() ? &(*at.value)[index] : nullptr;
      at.schema = ItemSchema(root_schema, at.schema, index);
    } else {
      if (!at.path.empty()) at.path += ".";
      at.path += token;
      at.value = (at.value != nullptr && at.value->is_object() && at.value->contains(token)) ? &(*at.value)[token]
                                                                                          : nullptr;
      at.schema = PropertySchema(root_schema, at.schema, token);
    }
  }
  at.schema = Resolve(root_schema, at.schema);
  if (at.path.empty()) at.path = "(root)";
  return at;
}

// Compact JSON of a value for a message, at most kMaxValueBytes; a cut string keeps its
// quotes and says how long it was.
std::string Show(const json& value) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    std::string text = sdk::DumpJson(json(sdk::TruncateUtf8(s, kMaxValueBytes - 4)));
    if (text.size() > kMaxValueBytes) text = sdk::TruncateUtf8(text, kMaxValueBytes - 1, "") + "\"";
    if (sdk::TruncateUtf8(s, kMaxValueBytes - 4).size() < s.size()) {
      text += " (" + std::to_string(sdk::Utf8Length(s)) + " characters)";
    }
    return text;
  }
  return sdk::TruncateUtf8(sdk::DumpJson(value), kMaxValueBytes);
}

std::string TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    default:
      return value.type_name();
  }
}

// "got number 5", "got \"facts\"", "got null", "got object {...}": strings are
// self-describing, everything else names its type.
std::string Got(const json* value) {
  if (value == nullptr) return "got nothing";
  if (value->is_string()) return "got " + Show(*value);
  if (value->is_null()) return "got null";
  std::string type = TypeName(*value);
  if (type == "integer") type = "number";  // JSON has one number type; the value shows which
  return "got " + type + " " + Show(*value);
}

std::string Plural(long long n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string Number(const json& n) { return sdk::DumpJson(n); }

std::vector<std::string> Types(const json& schema) {
  std::vector<std::string> types;
  if (const json* t = Member(&schema, "type")) {
    if (t->is_string()) types.push_back(*t);
    if (t->is_array()) {
      for (const auto& x : *t) {
        if (x.is_string()) types.push_back(x);
      }
    }
  }
  if (types.empty()) {  // infer from the keywords present
    if (schema.contains("properties") || schema.contains("required") || schema.contains("additionalProperties")) {
      types.push_back("object");
    } else if (schema.contains("items")) {
      types.push_back("array");
    } else if (schema.contains("maxLength") || schema.contains("minLength") || schema.contains("pattern")) {
      types.push_back("string");
    } else if (schema.contains("minimum") || schema.contains("maximum")) {
      types.push_back("number");
    }
  }
  return types;
}

std::string Expect(const json& root, const json* schema, int depth = 0);

std::string StringExpect(const json& s) {
  std::string out = "string";
  if (const json* p = Member(&s, "pattern"); p && p->is_string()) out += " matching " + p->get<std::string>();
  if (const json* f = Member(&s, "format"); f && f->is_string()) out += " in " + f->get<std::string>() + " format";
  const json* min = Member(&s, "minLength");
  const json* max = Member(&s, "maxLength");
  const bool has_min = min && min->is_number() && min->get<long long>() > 0;
  const bool has_max = max && max->is_number();
  if (has_min && has_max) {
    out += " (" + Number(*min) + " to " + Plural(max->get<long long>(), "character", "characters") + ")";
  } else if (has_max) {
    out += " (at most " + Plural(max->get<long long>(), "character", "characters") + ")";
  } else if (has_min) {
    out += " (at least " + Plural(min->get<long long>(), "character", "characters") + ")";
  }
  return out;
}

std::string NumberExpect(const json& s, const std::string& type) {
  std::string out = type;
  const json* min = Member(&s, "minimum");
  const json* max = Member(&s, "maximum");
  const json* xmin = Member(&s, "exclusiveMinimum");
  const json* xmax = Member(&s, "exclusiveMaximum");
  if (min && !min->is_number()) min = nullptr;
  if (max && !max->is_number()) max = nullptr;
  if (xmin && !xmin->is_number()) xmin = nullptr;  // draft-4 booleans are not supported here
  if (xmax && !xmax->is_number()) xmax = nullptr;
  if (min && max) {
    out += " between " + Number(*min) + " and " + Number(*max);
  } else {
    std::vector<std::string> parts;
    if (min) parts.push_back("at least " + Number(*min));
    if (xmin) parts.push_back("greater than " + Number(*xmin));
    if (max) parts.push_back("at most " + Number(*max));
    if (xmax) parts.push_back("less than " + Number(*xmax));
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? " and " : " ") + parts[i];
  }
  if (min && max && (xmin || xmax)) {
    if (xmin) out += " and greater than " + Number(*xmin);
    if (xmax) out += " and less than " + Number(*xmax);
  }
  if (const json* m = Member(&s, "multipleOf"); m && m->is_number()) out += ", a multiple of " + Number(*m);
  return out;
}

std::string ArrayExpect(const json& root, const json& s, int depth) {
  std::string out = "array";
  if (const json* items = Member(&s, "items"); items && items->is_object() && depth < 1) {
    std::string inner = Expect(root, items, depth + 1);
    if (inner != "any value") out += " of " + inner;
  }
  const json* min = Member(&s, "minItems");
  const json* max = Member(&s, "maxItems");
  const bool has_min = min && min->is_number() && min->get<long long>() > 0;
  const bool has_max = max && max->is_number();
  if (has_min && has_max) {
    out += " (" + Number(*min) + " to " + Plural(max->get<long long>(), "item", "items") + ")";
  } else if (has_max) {
    out += " (at most " + Plural(max->get<long long>(), "item", "items") + ")";
  } else if (has_min) {
    out += " (at least " + Plural(min->get<long long>(), "item", "items") + ")";
  }
  return out;
}

std::string EnumExpect(const json& values) {
  std::string out = "one of ";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i == kMaxEnumValues) {
      out += ", …";
      break;
    }
    out += (i ? ", " : "") + Show(values[i]);
  }
  return out;
}

// What a value governed by `schema` must look like, in words: "string (at most 1000
// characters)", "integer between 1 and 10", "one of \"fact\", \"decision\"". Nested
// descriptions (array items, alternatives) stay short.
std::string Expect(const json& root, const json* schema, int depth) {
  schema = Resolve(root, schema);
  if (schema == nullptr || !schema->is_object()) return "any value";
  const json& s = *schema;
  if (const json* c = Member(&s, "const")) return Show(*c);
  if (const json* e = Member(&s, "enum"); e && e->is_array()) return EnumExpect(*e);
  std::vector<std::string> alternatives;
  for (const char* key : {"anyOf", "oneOf"}) {
    const json* alts = Member(&s, key);
    if (alts == nullptr || !alts->is_array() || depth > 1) continue;
    for (const auto& alt : *alts) alternatives.push_back(Expect(root, &alt, depth + 1));
  }
  if (!alternatives.empty() && !s.contains("type")) {
    std::string out;
    for (std::size_t i = 0; i < alternatives.size(); ++i) out += (i ? " or " : "") + alternatives[i];
    return out;
  }
  auto types = Types(s);
  if (types.empty()) return "any value";
  std::string out;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const std::string& t = types[i];
    std::string one = t;
    if (t == "string") {
      one = depth > 1 ? t : StringExpect(s);
    } else if (t == "integer" || t == "number") {
      one = depth > 1 ? t : NumberExpect(s, t);
    } else if (t == "array") {
      one = ArrayExpect(root, s, depth);
    }
    out += (i ? " or " : "") + one;
  }
  return out;
}

std::string FieldList(const json* schema) {
  std::vector<std::string> names;
  if (const json* props = Member(schema, "properties"); props && props->is_object()) {
    for (const auto& [name, sub] : props->items()) names.push_back(name);
  }
  if (names.empty()) return "no fields are allowed here";
  std::string out = "allowed: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i == kMaxAllowedFields) {
      out += ", …";
      break;
    }
    out += (i ? ", " : "") + names[i];
  }
  return out;
}

// Every field of `value` that neither `properties` nor `patternProperties` of `schema`
// admits (valijson names only the first).
std::vector<std::string> UnknownFields(const json* schema, const json* value) {
  std::vector<std::string> out;
  if (schema == nullptr || value == nullptr || !value->is_object()) return out;
  const json* props = Member(schema, "properties");
  const json* patterns = Member(schema, "patternProperties");
  for (const auto& [key, sub] : value->items()) {
    if (props && props->is_object() && props->contains(key)) continue;
    bool matched = false;
    if (patterns && patterns->is_object()) {
      for (const auto& [pattern, p] : patterns->items()) matched = matched || PatternMatches(pattern, key);
    }
    if (!matched) out.push_back(key);
  }
  return out;
}

long long Count(const json* value) {
  if (value == nullptr) return 0;
  if (value->is_string()) return static_cast<long long>(sdk::Utf8Length(value->get_ref<const std::string&>()));
  return static_cast<long long>(value->size());
}

long long Limit(const json* schema, const char* key) {
  const json* limit = Member(schema, key);
  return limit && limit->is_number() ? limit->get<long long>() : 0;
}

// valijson lines that only say "something below failed"; the leaf below says what.
bool IsWrapper(const std::string& d) {
  return StartsWith(d, "Failed to validate against schema associated with property name") ||
         StartsWith(d, "Failed to validate against schema associated with pattern") ||
         StartsWith(d, "Failed to validate against additional properties schema") ||
         StartsWith(d, "Failed to validate item #") || StartsWith(d, "Failed to validate against child schema") ||
         StartsWith(d, "Failed to validate against dependent schema") ||
         StartsWith(d, "Failed to validate against a conditional schema") || StartsWith(d, "Object element");
}

bool IsAlternatives(const std::string& d) {
  return StartsWith(d, "Failed to validate against any schemas allowed by anyOf") ||
         StartsWith(d, "Failed to validate against any child schemas allowed by oneOf");
}

// One model-facing line for one valijson leaf error; empty to drop it.
std::string Describe(const json& root_schema, const json& root_value, const valijson::ValidationResults::Error& error) {
  const std::string& d = error.description;
  if (IsWrapper(d)) return "";
  const Location at = Locate(root_schema, root_value, Tokens(error.context));
  const std::string prefix = at.path + ": ";
  const std::string expected = "expected " + Expect(root_schema, at.schema);

  if (StartsWith(d, "Value type not permitted") || StartsWith(d, "Failed to match against any enum") ||
      StartsWith(d, "Failed to match expected value set by 'const'") || StartsWith(d, "Failed to match regex") ||
      StartsWith(d, "String should be a valid") || IsAlternatives(d)) {
    return prefix + expected + ", " + Got(at.value);
  }
  if (StartsWith(d, "Expected number") || StartsWith(d, "Value should be a multiple of")) {
    return prefix + expected + ", got " + (at.value ? Show(*at.value) : "nothing");
  }
  if (StartsWith(d, "Missing required property '")) {
    std::string name = d.substr(27);
    if (auto end = name.rfind("'."); end != std::string::npos) name.resize(end);
    return prefix + "missing required field " + Show(json(name));
  }
  if (StartsWith(d, "Object contains a property that could not be validated")) {
    auto unknown = UnknownFields(at.schema, at.value);
    if (unknown.empty()) {  // e.g. a pattern valijson and std::regex read differently
      std::string name = d.substr(d.rfind(": '") + 3);
      if (auto end = name.rfind("'."); end != std::string::npos) name.resize(end);
      unknown.push_back(name);
    }
    std::string names;
    for (std::size_t i = 0; i < unknown.size() && i < kMaxAllowedFields; ++i) {
      names += (i ? ", " : "") + Show(json(unknown[i]));
    }
    return prefix + (unknown.size() == 1 ? "unknown field " : "unknown fields ") + names + " (" +
           FieldList(at.schema) + ")";
  }
  if (StartsWith(d, "String should be no more than")) {
    return prefix + "too long (" + std::to_string(Count(at.value)) + " characters; at most " +
           std::to_string(Limit(at.schema, "maxLength")) + ")";
  }
  if (StartsWith(d, "String should be no fewer than")) {
    return prefix + "too short (" + std::to_string(Count(at.value)) + " characters; at least " +
           std::to_string(Limit(at.schema, "minLength")) + ")";
  }
  if (StartsWith(d, "Array should contain no more than")) {
    return prefix + "too many items (" + std::to_string(Count(at.value)) + "; at most " +
           std::to_string(Limit(at.schema, "maxItems")) + ")";
  }
  if (StartsWith(d, "Array should contain no fewer than")) {
    return prefix + "too few items (" + std::to_string(Count(at.value)) + "; at least " +
           std::to_string(Limit(at.schema, "minItems")) + ")";
  }
  if (StartsWith(d, "Array contains more items than allowed") || StartsWith(d, "Cannot validate item #")) {
    const json* items = Member(at.schema, "items");
    const long long max = items && items->is_array() ? static_cast<long long>(items->size()) : 0;
    return prefix + "too many items (" + std::to_string(Count(at.value)) + "; at most " + std::to_string(max) + ")";
  }
  if (StartsWith(d, "Object should have no more than")) {
    return prefix + "too many fields (" + std::to_string(Count(at.value)) + "; at most " +
           std::to_string(Limit(at.schema, "maxProperties")) + ")";
  }
  if (StartsWith(d, "Object should have no fewer than")) {
    return prefix + "too few fields (" + std::to_string(Count(at.value)) + "; at least " +
           std::to_string(Limit(at.schema, "minProperties")) + ")";
  }
  if (StartsWith(d, "Elements at indexes #")) {
    return prefix + "items must be unique; " + d.substr(12, d.find(" violate") - 12) + " are equal";
  }
  if (StartsWith(d, "Failed to validate against exactly one child schema")) {
    return prefix + "matches more than one of the allowed forms (" + Expect(root_schema, at.schema) + "), " +
           Got(at.value);
  }
  if (StartsWith(d, "Target should not validate against schema specified in 'not'")) {
    return prefix + "this value is not allowed here, " + Got(at.value);
  }
  if (StartsWith(d, "Missing dependency '")) {
    std::string name = d.substr(20);
    if (auto end = name.rfind("'."); end != std::string::npos) name.resize(end);
    return prefix + "missing field " + Show(json(name)) + ", required by another field that is present";
  }
  if (StartsWith(d, "Failed to any values against subschema in 'contains'")) {
    return prefix + "no item is " + Expect(root_schema, Member(at.schema, "contains"));
  }
  std::string text = d;
  if (!text.empty() && text.back() == '.') text.pop_back();
  return prefix + text;
}

}  // namespace

struct JsonSchema::Impl {
  nlohmann::json source;
  valijson::Schema schema;
};

JsonSchema::JsonSchema(const nlohmann::json& schema) : impl_(std::make_unique<Impl>()) {
  impl_->source = schema;
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(impl_->source);
    parser.populateSchema(adapter, impl_->schema);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("invalid JSON Schema: ") + e.what());
  }
}

JsonSchema::~JsonSchema() = default;
JsonSchema::JsonSchema(JsonSchema&&) noexcept = default;
JsonSchema& JsonSchema::operator=(JsonSchema&&) noexcept = default;

std::vector<std::string> JsonSchema::Validate(const nlohmann::json& value) const {
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(value);
  std::vector<std::string> out;
  try {
    if (validator.validate(impl_->schema, adapter, &results)) return out;
  } catch (const std::exception& e) {  // e.g. a regex valijson cannot compile
    return {std::string("(root): cannot be checked against the schema: ") + e.what()};
  }

  std::vector<valijson::ValidationResults::Error> errors;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) errors.push_back(error);

  // valijson reports every failed anyOf/oneOf branch (contiguously, just before the
  // summary line); "expected A or B" at the summary is clearer than each branch's complaint.
  std::vector<bool> drop(errors.size(), false);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (!IsAlternatives(errors[i].description)) continue;
    for (std::size_t j = i; j-- > 0 && IsPrefix(errors[i].context, errors[j].context);) drop[j] = true;
  }

  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (drop[i]) continue;
    std::string line = Describe(impl_->source, value, errors[i]);
    if (!line.empty() && std::find(out.begin(), out.end(), line) == out.end()) out.push_back(std::move(line));
  }
  if (out.empty()) out.push_back("(root): does not match the schema");
  return out;
}

std::string JoinViolations(const std::vector<std::string>& violations, std::size_t max_items) {
  std::string text;
  for (std::size_t i = 0; i < violations.size() && i < max_items; ++i) {
    if (i) text += "; ";
    text += violations[i];
  }
  if (violations.size() > max_items) {
    text += "; and " + std::to_string(violations.size() - max_items) + " more";
  }
  return text;
}

}  // namespace kioku::host
