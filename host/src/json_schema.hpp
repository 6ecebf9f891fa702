#pragma once
/// @file json_schema.hpp
/// JSON Schema validation (valijson, draft 7) with messages a model can act on.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::host {

/// A compiled schema. Construction throws std::invalid_argument when the schema itself is
/// malformed. Validate() is const and thread-safe.
class JsonSchema {
 public:
  explicit JsonSchema(const nlohmann::json& schema);
  ~JsonSchema();
  JsonSchema(JsonSchema&&) noexcept;
  JsonSchema& operator=(JsonSchema&&) noexcept;

  /// Returns one line per violation, "<path>: <what is wrong>", where path is dotted from
  /// the root ("memories[3].kind"), or "(root)"; empty when `value` conforms.
  std::vector<std::string> Validate(const nlohmann::json& value) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Joins violations into one message, at most `max_items` of them.
std::string JoinViolations(const std::vector<std::string>& violations, std::size_t max_items = 5);

}  // namespace kioku::host
