#include "tool_support.hpp"

#include <algorithm>
#include <cctype>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::procedural {

Actor ActorOf(const sdk::CallContext& ctx) {
  Actor a;
  a.agent_id = ctx.caller.agent_id.empty() ? "unknown" : ctx.caller.agent_id;
  a.project_id = !ctx.caller.project_id.empty() ? ctx.caller.project_id : ctx.caller.project_root;
  return a;
}

int TaskRef(const Json& value, const std::string& field) {
  if (value.is_number_integer()) {
    const auto n = value.get<std::int64_t>();
    if (n >= 1 && n <= 1'000'000) return static_cast<int>(n);
  } else if (value.is_string()) {
    std::string s = value.get<std::string>();
    if (!s.empty() && (s[0] == 't' || s[0] == 'T')) s.erase(0, 1);
    if (!s.empty() && s.size() <= 7 &&
        std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
      const int n = std::stoi(s);
      if (n >= 1) return n;
    }
  }
  throw sdk::ToolError(field + " " + sdk::TruncateUtf8(value.dump(), 40) +
                       " is not a task: send its id like \"t3\" (or its number 3)");
}

std::string CheckedText(const std::string& raw, const std::string& field, std::size_t max_bytes) {
  std::string text = sdk::SanitizeUtf8(raw);
  // Trim ASCII whitespace at both ends; inner line breaks are kept (descriptions, notes).
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  text = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  if (text.size() > max_bytes) {
    throw sdk::ToolError(field + " is " + std::to_string(text.size()) + " bytes; the limit is " +
                         std::to_string(max_bytes) + " bytes — shorten it; nothing was stored");
  }
  return text;
}

std::optional<std::string> Text(const Json& args, const char* key, std::size_t max_bytes) {
  const auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw sdk::ToolError(std::string(key) + " must be a string");
  return CheckedText(it->get<std::string>(), key, max_bytes);
}

namespace {
std::int64_t InRange(const Json& v, const std::string& field, std::int64_t min, std::int64_t max) {
  const std::int64_t n = v.is_number_integer() ? v.get<std::int64_t>() : min - 1;
  if (!v.is_number_integer() || n < min || n > max) {
    throw sdk::ToolError(field + " " + sdk::TruncateUtf8(v.dump(), 30) + " is out of range: send an "
                         "integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return n;
}
}  // namespace

std::int64_t IntArg(const Json& args, const char* key, std::int64_t min, std::int64_t max,
                    std::int64_t fallback) {
  const auto it = args.find(key);
  if (it == args.end() || it->is_null()) return fallback;
  return InRange(*it, key, min, max);
}

std::vector<int> IntListArg(const Json& args, const char* key, int min, int max) {
  std::vector<int> out;
  const auto it = args.find(key);
  if (it == args.end() || !it->is_array()) return out;
  for (std::size_t i = 0; i < it->size(); ++i) {
    out.push_back(static_cast<int>(InRange((*it)[i], std::string(key) + "[" + std::to_string(i) + "]", min, max)));
  }
  return out;
}

void CheckCount(const Json& array, std::size_t max, const std::string& field) {
  if (array.is_array() && array.size() > max) {
    throw sdk::ToolError(field + " has " + std::to_string(array.size()) + " items; the limit is " +
                         std::to_string(max) + "; nothing was stored");
  }
}

std::vector<std::string> TagsArg(const Json& args) {
  std::vector<std::string> tags;
  const auto it = args.find("tags");
  if (it == args.end() || !it->is_array()) return tags;
  CheckCount(*it, kMaxTags, "tags");
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) continue;
    auto t = CheckedText((*it)[i].get<std::string>(), "tags[" + std::to_string(i) + "]", 64);
    if (!t.empty() && std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(t);
  }
  return tags;
}

std::string Rfc(std::int64_t ms) { return sdk::FormatRfc3339(ms); }

}  // namespace kioku::procedural
