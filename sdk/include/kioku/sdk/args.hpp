#pragma once
/// @file args.hpp
/// Argument readers for tool handlers — the one way to read a time, a bounded text, an
/// enum and an id prefix, and to screen what is about to be stored for
/// secrets. Every reader throws ToolError with a message a model can act on: it names the
/// argument (dotted/indexed path for nested fields, e.g. "records[2].at"), says what was
/// wrong and what to send.
///
/// The host has already validated `args` against the tool's input schema (types, bounds,
/// enums), so readers check only what a schema cannot: RFC 3339 shape, byte limits,
/// secrets, id resolution. They still never assume a type they did not check, so
/// a handler called with unvalidated JSON gets a ToolError, not an exception from
/// nlohmann::json.
///
/// Thread-safe (pure functions, except IdArg which reads the database it is given).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/tool.hpp"

namespace SQLite {
class Database;
}

namespace kioku::sdk {

// ---- times ----------------------------------------------------------------------------

/// The one rule for time arguments (ARCHITECTURE.md "Storage": times are Unix ms, UTC):
///   - a date-time must carry `Z` or a numeric offset ("2026-03-01T12:00:00+09:00");
///     a local time without an offset is refused, because the server cannot know the
///     caller's time zone;
///   - a full date ("2026-03-01") means 00:00:00Z of that day. Windows are half-open
///     [since, until), so `until: "2026-03-02"` covers all of March 1st and none of the 2nd;
///   - fractions beyond milliseconds are truncated.
/// Grammar: RFC 3339 §5.6 `date-time` / `full-date` (see ParseRfc3339, clock.hpp).
/// `value` must be a JSON string; `field` names it in the error.
std::int64_t ParseTime(const Json& value, std::string_view field);

/// args[key] read with ParseTime; nullopt when absent or null.
std::optional<std::int64_t> TimeArg(const Json& args, std::string_view key);

/// Throws ToolError when since >= until ("`since` (…) must be before `until` (…); the
/// window is [since, until)"). Either side may be absent.
void CheckTimeWindow(std::optional<std::int64_t> since, std::optional<std::int64_t> until);

// ---- text -----------------------------------------------------------------------------

/// args[key] as text: invalid UTF-8 replaced with U+FFFD (SanitizeUtf8), then at most
/// `max_bytes` UTF-8 bytes (the storage bound; the schema's maxLength, in code points, is
/// the model-facing one — set both). nullopt when absent or null. ToolError when the value
/// is not a string or too long ("note is 9000 bytes; the limit is 8192 bytes — shorten it").
/// Does not screen secrets: call ScreenSecrets on the whole argument object once.
std::optional<std::string> TextArg(const Json& args, std::string_view key,
                                   std::size_t max_bytes);

/// Like TextArg, but the text must be present and not blank (whitespace only).
std::string RequiredTextArg(const Json& args, std::string_view key, std::size_t max_bytes);

// ---- enums ----------------------------------------------------------------------------

/// Maps args[key] through `choices` ({"success", Outcome::kSuccess}, …); `fallback` when
/// absent or null. ToolError listing the accepted words otherwise ("outcome 'ok' is not
/// one of: success, failure; send one of them").
template <class E>
E EnumArg(const Json& args, std::string_view key,
          std::initializer_list<std::pair<std::string_view, E>> choices, E fallback);

/// Non-template core of EnumArg: the index of args[key] in `words`, -1 when absent/null.
int EnumIndex(const Json& args, std::string_view key, std::span<const std::string_view> words);

// ---- ids ------------------------------------------------------------------------------

/// Where an id lives: table, column and the noun used in messages ("memory").
/// Identifiers come from plugin code (never from users).
struct IdColumn {
  std::string_view table;
  std::string_view column;
  std::string_view noun;
};

/// args[key] resolved with ResolveIdPrefix (db.hpp): an exact id, or a unique prefix of
/// >= 4 characters. nullopt when absent or null; ToolError as ResolveIdPrefix words it.
std::optional<std::string> IdArg(SQLite::Database& db, const Json& args, std::string_view key,
                                 const IdColumn& where);

// ---- secrets --------------------------------------------------------------------------

/// Refuses to store a secret: screens every string value and object key in `value` (any
/// depth) with FindSecretInJson (secrets.hpp) and throws ToolError for the first finding,
/// naming its path, kind and CHARACTER offset (code points, not bytes; DescribeSecret):
/// "refused: `records[1].error` contains what looks like a secret (github-token at
/// character 12); nothing was stored. Remove the secret — say where it lives instead (\"the
/// token is in the CI secret STORE_TOKEN\") — and send again". `where` prefixes the path
/// (empty = top-level argument names). Call it once on the arguments of every writing tool,
/// before the write transaction.
void ScreenSecrets(const Json& value, std::string_view where = {});

/// ScreenSecrets for one string already taken out of the arguments (a list item, a value
/// normalized before storing); `field` names it in the refusal.
void ScreenText(std::string_view text, std::string_view field);

// ---- caller ---------------------------------------------------------------------------
// The acting agent: ResolveAgentId and InstanceHolder in caller.hpp.

// ---- template definitions ---------------------------------------------------------------

template <class E>
E EnumArg(const Json& args, std::string_view key,
          std::initializer_list<std::pair<std::string_view, E>> choices, E fallback) {
  // Words copied out so the non-template core can list them in its message.
  std::vector<std::string_view> words;
  words.reserve(choices.size());
  for (const auto& c : choices) words.push_back(c.first);
  const int index = EnumIndex(args, key, words);
  if (index < 0) return fallback;
  return (choices.begin() + index)->second;
}

}  // namespace kioku::sdk
