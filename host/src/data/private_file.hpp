#pragma once
/// @file private_file.hpp
/// Files that hold everything kioku knows (exports, snapshots): created 0600 in 0700
/// directories, written whole through a temporary file so a failed write leaves no half
/// file behind. Shared by `kioku export -o`, the `data_export` tool and `kioku backup`.

#include <cstdint>
#include <filesystem>
#include <string>

namespace kioku::host {

/// "20261201T183700123Z" (UTC, milliseconds): sortable and free of ':' (refused in file
/// names on some systems).
std::string FileStamp(std::int64_t ms);

/// Creates `dir` (and parents) and makes it 0700. Throws std::runtime_error naming it.
void MakePrivateDir(const std::filesystem::path& dir);

/// Writes `text` to a temporary 0600 file beside `path`, fsyncs it and renames it to
/// `path`, replacing a regular file there. Throws std::runtime_error naming the path (the
/// temporary file is removed), and before writing anything when `path` is a symbolic
/// link, a directory, a FIFO, a device or a socket.
void WritePrivateFile(const std::filesystem::path& path, const std::string& text);

/// Like WritePrivateFile, but never replaces a file: the name is `<stem><ext>` in `dir`,
/// else `<stem>-1<ext>`, `<stem>-2<ext>`, … (link(2) of the temporary file, which fails
/// with EEXIST instead of replacing). `dir` is made with MakePrivateDir. Returns the path
/// written. Throws std::runtime_error naming the step that failed.
std::filesystem::path WriteNewPrivateFile(const std::filesystem::path& dir, const std::string& stem,
                                          const std::string& ext, const std::string& text);

/// Gives `tmp` (a finished file) the first free name `<stem>[-N]<ext>` in `dir` with
/// link(2), never replacing a file, and returns it; `tmp` itself stays (the caller removes
/// it). Throws std::runtime_error after 1,000 names or on another error.
std::filesystem::path LinkToFreeName(const std::filesystem::path& tmp, const std::filesystem::path& dir,
                                     const std::string& stem, const std::string& ext);

}  // namespace kioku::host
