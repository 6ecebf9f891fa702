#pragma once
/// @file privacy.hpp
/// Keeping the user's home directory out of stored transcript data. Transcripts name
/// files by absolute path (/home/alex/tidepool/apps/api/x.ts); we store
///   - a path inside the session's working directory relative to it (apps/api/x.ts),
///   - any other path under a home directory with the home replaced by "~"
///     (/home/alex/.npmrc → ~/.npmrc; /Users/alex/x → ~/x; /root/x → ~/x),
///   - anything else as written.
/// Free text (requests, errors, titles) gets the same home replacement.

#include <string>
#include <string_view>

namespace kioku::episodic {

/// `path` as stored for a session whose working directory is `cwd` (may be empty).
std::string StoredPath(std::string_view path, std::string_view cwd);

/// `text` with every /home/<user>, /Users/<user> and /root path prefix replaced by "~".
std::string ScrubHome(std::string_view text);

}  // namespace kioku::episodic
