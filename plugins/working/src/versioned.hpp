#pragma once
/// @file versioned.hpp
/// Optimistic concurrency shared by shared blocks and focus sections (Letta-style core
/// memory blocks with a version counter): a write names the version it read; a stale one
/// is refused with the current version and content instead of overwriting silently.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common.hpp"

namespace kioku::working {

enum class WriteMode { kReplace, kAppend };

/// Current state of one versioned text (version 0 = does not exist yet).
struct VersionedState {
  std::string content;
  std::int64_t version = 0;
  std::string updated_by;
  std::int64_t updated_at_ms = 0;
};

/// Reads `mode` ("replace" default, "append").
WriteMode ModeArg(const Json& args);

/// Decides whether `agent` may write over `current`:
///   - expected_version given: it must equal current.version (0 = "must not exist yet");
///   - not given: allowed when the text does not exist yet, was last written by `agent`
///     itself, or mode is append (appending loses nothing);
/// Returns nullopt when allowed, else the refusal message naming the current version,
/// who wrote it and what to send (`noun` e.g. "block 'plan'").
std::optional<std::string> VersionRefusal(const VersionedState& current,
                                          std::optional<std::int64_t> expected_version,
                                          WriteMode mode, const std::string& agent,
                                          std::string_view noun);

/// The new content: `text` (replace) or current + "\n" + text (append; no newline added
/// when current is empty or already ends with one).
std::string ApplyWrite(const VersionedState& current, const std::string& text, WriteMode mode);

/// Optional non-negative integer argument `expected_version`.
std::optional<std::int64_t> ExpectedVersionArg(const Json& args);

}  // namespace kioku::working
