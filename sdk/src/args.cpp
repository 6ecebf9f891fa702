#include "kioku/sdk/args.hpp"

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::sdk {
namespace {

// User text inside an error message: bounded and valid UTF-8.
std::string Shown(std::string_view text, std::size_t max_bytes = 64) {
  return TruncateUtf8(SanitizeUtf8(text), max_bytes);
}

const Json* Find(const Json& args, std::string_view key) {
  if (!args.is_object()) return nullptr;
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string NotAString(std::string_view key, const Json& value) {
  return std::string(key) + " must be a string, got " + std::string(value.type_name());
}

std::string Join(std::span<const std::string_view> words) {
  std::string out;
  for (const auto w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

// Code points before a byte offset: messages count characters (args.hpp), findings bytes.
std::size_t CharsBefore(std::string_view text, std::size_t byte_offset) {
  return Utf8Length(text.substr(0, byte_offset));
}

// The character offset of the first finding, walking in FindSecretInJson's order (document
// order, an object's key before its value), so it is the string that call reported.
std::optional<std::size_t> FirstFindingChars(const Json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (const auto f = FindSecret(text)) return CharsBefore(text, f->offset);
  } else if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (const auto f = FindSecret(key)) return CharsBefore(key, f->offset);
      if (const auto chars = FirstFindingChars(child)) return chars;
    }
  } else if (value.is_array()) {
    for (const Json& child : value) {
      if (const auto chars = FirstFindingChars(child)) return chars;
    }
  }
  return std::nullopt;
}

[[noreturn]] void RefuseSecret(const JsonSecretFinding& found) {
  throw ToolError("refused: " + DescribeSecret(found) +
                  "; nothing was stored. Remove the secret — say where it lives instead (\"the "
                  "token is in the CI secret STORE_TOKEN\") — and send again");
}

}  // namespace

std::int64_t ParseTime(const Json& value, std::string_view field) {
  if (!value.is_string()) {
    throw ToolError("`" + std::string(field) +
                    "` must be an RFC 3339 string such as \"2026-03-01T12:00:00Z\" or a date "
                    "\"2026-03-01\", got " +
                    std::string(value.type_name()));
  }
  const std::string& text = value.get_ref<const std::string&>();
  if (const auto ms = ParseRfc3339(text)) return *ms;
  throw ToolError("`" + std::string(field) + "` is not an RFC 3339 time: '" + Shown(text) +
                  "'; send a date-time with Z or an offset, e.g. \"2026-03-01T12:00:00Z\", "
                  "or a date \"2026-03-01\" (= 00:00Z)");
}

std::optional<std::int64_t> TimeArg(const Json& args, std::string_view key) {
  const Json* v = Find(args, key);
  if (v == nullptr) return std::nullopt;
  return ParseTime(*v, key);
}

void CheckTimeWindow(std::optional<std::int64_t> since, std::optional<std::int64_t> until) {
  if (since && until && *since >= *until) {
    throw ToolError("`since` (" + FormatRfc3339(*since) + ") must be before `until` (" +
                    FormatRfc3339(*until) + "); the window is [since, until)");
  }
}

std::optional<std::string> TextArg(const Json& args, std::string_view key,
                                   std::size_t max_bytes) {
  const Json* v = Find(args, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) throw ToolError(NotAString(key, *v));
  const std::string& raw = v->get_ref<const std::string&>();
  std::string text = IsValidUtf8(raw) ? raw : SanitizeUtf8(raw);
  if (text.size() > max_bytes) {
    throw ToolError(std::string(key) + " is " + std::to_string(text.size()) +
                    " bytes; the limit is " + std::to_string(max_bytes) + " bytes — shorten it");
  }
  return text;
}

std::string RequiredTextArg(const Json& args, std::string_view key, std::size_t max_bytes) {
  auto text = TextArg(args, key, max_bytes);
  if (!text || CollapseWhitespace(*text).empty()) {
    throw ToolError(std::string(key) + " is empty; send some text");
  }
  return std::move(*text);
}

int EnumIndex(const Json& args, std::string_view key, std::span<const std::string_view> words) {
  const Json* v = Find(args, key);
  if (v == nullptr) return -1;
  if (v->is_string()) {
    const std::string& word = v->get_ref<const std::string&>();
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] == word) return static_cast<int>(i);
    }
    throw ToolError(std::string(key) + " '" + Shown(word, 40) + "' is not one of: " +
                    Join(words) + "; send one of them");
  }
  throw ToolError(std::string(key) + " must be one of: " + Join(words));
}

std::optional<std::string> IdArg(SQLite::Database& db, const Json& args, std::string_view key,
                                 const IdColumn& where) {
  const Json* v = Find(args, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) throw ToolError(NotAString(key, *v));
  return ResolveIdPrefix(db, where.table, where.column, v->get_ref<const std::string&>(),
                         where.noun);
}

void ScreenSecrets(const Json& value, std::string_view where) {
  if (auto found = FindSecretInJson(value, where)) {
    if (const auto chars = FirstFindingChars(value)) found->finding.offset = *chars;
    RefuseSecret(*found);
  }
}

void ScreenText(std::string_view text, std::string_view field) {
  if (auto finding = FindSecret(text)) {
    finding->offset = CharsBefore(text, finding->offset);
    RefuseSecret({std::string(field), false, *finding});
  }
}

}  // namespace kioku::sdk
