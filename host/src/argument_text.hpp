#pragma once
/// @file argument_text.hpp
/// The host's rule for NUL characters in tool arguments (issue 9): every string a caller
/// sends — values and object keys, at any depth — must be free of U+0000. C APIs stop at a
/// NUL (std::exception::what(), SQLite's text functions and FTS5 tokenizers, C-string log
/// formats), so text holding one would be cut where a model or a reader cannot see it. The
/// runtime refuses such a call before the handler runs (isError, nothing stored), for every
/// tool of every layer and every transport alike.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kioku::host {

/// nullopt when no string in `args` holds U+0000; else a message naming the first one by
/// its path and CHARACTER offset (code points): "memories[1].tags[0] holds a NUL character
/// (U+0000) at character 3", or "the key \"a\\u0000b\" in note holds …" for a key.
std::optional<std::string> FindNulCharacter(const nlohmann::json& args);

}  // namespace kioku::host
