#include "json_schema.hpp"

#include <stdexcept>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace kioku::host {
namespace {

// valijson reports context as {"<root>", "[memories]", "[3]", "[kind]"}; turn that into
// "memories[3].kind", the form a model sees in its own arguments.
std::string FormatPath(const std::vector<std::string>& context) {
  std::string path;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    std::string key = part;
    if (key.size() >= 2 && key.front() == '[' && key.back() == ']') key = key.substr(1, key.size() - 2);
    const bool index = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
    if (index) {
      path += "[" + key + "]";
    } else {
      if (!path.empty()) path += ".";
      path += key;
    }
  }
  return path.empty() ? "(root)" : path;
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
  if (validator.validate(impl_->schema, adapter, &results)) return out;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    // valijson also reports the enclosing "failed to match properties" lines; keep the leaves.
    std::string line = FormatPath(error.context) + ": " + error.description;
    if (error.description.rfind("Object element", 0) == 0 ||
        error.description.rfind("Failed to validate item", 0) == 0 ||
        error.description.find("failed to match") != std::string::npos) {
      continue;
    }
    out.push_back(std::move(line));
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
