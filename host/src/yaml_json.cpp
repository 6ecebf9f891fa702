#include "yaml_json.hpp"

#include <stdexcept>

#include <yaml-cpp/yaml.h>

namespace kioku::host {
namespace {

using nlohmann::json;

// YAML 1.2 core schema numbers, checked by hand: std::regex costs more to build than a
// whole config takes to parse, and every one-shot `kioku call` parses one.
//   int   ^[-+]?[0-9]+$
//   float ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::size_t SkipDigits(const std::string& s, std::size_t i) {
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

std::size_t SkipSign(const std::string& s, std::size_t i) {
  return i < s.size() && (s[i] == '+' || s[i] == '-') ? i + 1 : i;
}

bool IsYamlInt(const std::string& s) {
  const std::size_t start = SkipSign(s, 0);
  const std::size_t end = SkipDigits(s, start);
  return end > start && end == s.size();
}

bool IsYamlFloat(const std::string& s) {
  std::size_t i = SkipSign(s, 0);
  if (i < s.size() && s[i] == '.') {
    const std::size_t frac = SkipDigits(s, i + 1);
    if (frac == i + 1) return false;
    i = frac;
  } else {
    const std::size_t whole = SkipDigits(s, i);
    if (whole == i) return false;
    i = whole;
    if (i < s.size() && s[i] == '.') i = SkipDigits(s, i + 1);
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    const std::size_t sign = SkipSign(s, i + 1);
    const std::size_t exp = SkipDigits(s, sign);
    if (exp == sign) return false;
    i = exp;
  }
  return i == s.size();
}

json ScalarToJson(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: always a string
  if (text == "~" || text == "null" || text == "Null" || text == "NULL" || text.empty()) return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (IsYamlInt(text)) {
    try {
      return std::stoll(text);
    } catch (const std::out_of_range&) {
      return text;
    }
  }
  if (IsYamlFloat(text)) return std::stod(text);
  return text;
}

json NodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return ScalarToJson(node);
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(NodeToJson(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = NodeToJson(kv.second);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

json YamlToJson(const std::string& yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                             std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  return NodeToJson(root);
}

}  // namespace kioku::host
