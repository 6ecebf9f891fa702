#include "argument_text.hpp"

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::host {
namespace {

std::string Holds(std::string_view text) {
  const std::size_t at = text.find('\0');
  return " holds a NUL character (U+0000) at character " + std::to_string(sdk::Utf8Length(text.substr(0, at)));
}

std::string Join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::optional<std::string> Walk(const nlohmann::json& value, const std::string& path) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text.find('\0') != std::string::npos) return (path.empty() ? std::string("the argument") : path) + Holds(text);
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (key.find('\0') != std::string::npos) {
        // The key is shown as JSON (NUL as \u0000), so the message itself holds no NUL.
        return "the key " + sdk::DumpJson(key) + (path.empty() ? std::string() : " in " + path) + Holds(key);
      }
      if (auto found = Walk(item, Join(path, key))) return found;
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto found = Walk(value[i], path + "[" + std::to_string(i) + "]")) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> FindNulCharacter(const nlohmann::json& args) { return Walk(args, ""); }

}  // namespace kioku::host
