#pragma once
/// @file line_reader.hpp
/// Line-aligned, bounded-memory reading of a growing file from a byte offset.
///
/// `Next` returns complete lines only (terminated by '\n'; a trailing '\r' is dropped), so
/// a line still being written is never split: the offset stops before it and a later read
/// (watch mode, re-ingest) picks it up whole. A line longer than `max_line_bytes` is
/// skipped to its end without being held in memory and reported as kOversize. Memory use
/// is at most max_line_bytes + one 64 KiB read chunk.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace kioku::episodic {

class LineReader {
 public:
  enum class Status { kLine, kOversize, kEnd };

  /// Opens `path` and seeks to `offset`. Throws std::runtime_error when it cannot be read.
  LineReader(const std::filesystem::path& path, std::uint64_t offset,
             std::size_t max_line_bytes);

  /// Reads the next complete line into `line` (without its '\n'). kEnd at end of data;
  /// the unterminated tail, if any, is then available through `Tail()`.
  Status Next(std::string& line);

  /// Byte offset just after the last line returned (or skipped): where to resume.
  std::uint64_t Offset() const { return offset_; }

  /// After kEnd: the bytes after Offset() with no '\n' yet (bounded by max_line_bytes;
  /// empty when the tail is longer). The caller may accept it with `AcceptTail()` when it
  /// is known to be complete (e.g. a whole JSON object at the end of a finished file).
  const std::string& Tail() const { return tail_; }
  void AcceptTail();

 private:
  bool Fill();

  std::ifstream in_;
  std::size_t max_line_bytes_;
  std::uint64_t offset_;
  std::string buf_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  std::string tail_;
  std::uint64_t tail_bytes_ = 0;
};

}  // namespace kioku::episodic
