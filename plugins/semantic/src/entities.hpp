#pragma once
/// @file entities.hpp
/// Deterministic entity extraction from memory text and queries (no model): file paths,
/// URLs, CLI flags, packages with versions, versions, environment variables and code-style
/// identifiers. Same input → same entities, so writes and queries agree.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::semantic {

/// One entity mention. `type` ∈ {file, url, flag, package, version, env, identifier}.
/// `name` is the text as written (trimmed of surrounding punctuation, a `:line` suffix
/// removed from paths); `norm` is the lookup key (ASCII lower-case; URLs without a
/// trailing '/'; paths without a leading "./").
struct EntityMention {
  std::string type;
  std::string name;
  std::string norm;
};

/// Extracts at most `max_entities` distinct (type, norm) mentions, in text order.
/// A package with a version ("pnpm@9.1.0", "@scope/pkg@1.2", "requests==2.31") yields the
/// versioned name and the bare package name ("pnpm"), so either finds the memory.
/// Rules (one whitespace-separated word at a time, surrounding quotes/brackets/backticks
/// and trailing sentence punctuation stripped):
///   url         http:// or https:// prefix
///   flag        --name or --name=value (→ "--name")
///   package     name@version, @scope/name@version, name==version
///   version     v1.2 / 1.2.3 / 1.2.3-rc.1
///   env         UPPER_CASE with an underscore, >= 4 chars (KIOKU_HOME)
///   file        a path with '/' that starts with / ./ ../ ~/, ends with '/', has 2+
///               slashes, or whose last segment has a known extension; or a bare
///               file name with a known extension or a well-known name (Makefile)
///   identifier  snake_case, camelCase, PascalCase with 2+ humps, a::b, name(), dotted.name,
///               or any single code word written in `backticks`
std::vector<EntityMention> ExtractEntities(std::string_view text, std::size_t max_entities = 32);

/// Lookup key for a user-typed entity name (what entity_graph/entity_relate accept):
/// sdk::MatchKey (NFKC, full case folding, Unicode white space collapsed and trimmed), a
/// leading "./" and a trailing '/' removed. "Taro\u00A0", "Ｔａｒｏ" and "taro" are one entity.
std::string NormalizeEntityName(std::string_view name);

/// Type guess for a user-typed entity name: the type ExtractEntities gives it when the
/// whole name is one mention, else "concept".
std::string ClassifyEntityName(std::string_view name);

}  // namespace kioku::semantic
