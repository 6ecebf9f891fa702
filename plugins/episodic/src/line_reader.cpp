#include "line_reader.hpp"

#include <stdexcept>

namespace kioku::episodic {

namespace {
constexpr std::size_t kChunk = 64 * 1024;
}

LineReader::LineReader(const std::filesystem::path& path, std::uint64_t offset,
                       std::size_t max_line_bytes)
    : in_(path, std::ios::binary), max_line_bytes_(max_line_bytes), offset_(offset) {
  if (!in_) throw std::runtime_error("cannot open " + path.string());
  in_.seekg(static_cast<std::streamoff>(offset));
  if (!in_) throw std::runtime_error("cannot seek to byte " + std::to_string(offset) + " of " +
                                     path.string());
}

bool LineReader::Fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  const std::size_t old = buf_.size();
  buf_.resize(old + kChunk);
  in_.read(buf_.data() + old, static_cast<std::streamsize>(kChunk));
  const auto got = static_cast<std::size_t>(in_.gcount());
  buf_.resize(old + got);
  if (got == 0) eof_ = true;
  return got > 0;
}

LineReader::Status LineReader::Next(std::string& line) {
  tail_.clear();
  tail_bytes_ = 0;
  bool oversize = false;
  std::uint64_t skipped = 0;  // bytes of an oversize line dropped so far
  for (;;) {
    const std::size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      const std::size_t len = nl - pos_;
      if (oversize || len > max_line_bytes_) {
        offset_ += skipped + len + 1;
        pos_ = nl + 1;
        return Status::kOversize;
      }
      line.assign(buf_, pos_, len);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      offset_ += len + 1;
      pos_ = nl + 1;
      return Status::kLine;
    }
    if (buf_.size() - pos_ > max_line_bytes_) {
      // Too long to keep: drop what we have and keep scanning for the end of the line.
      oversize = true;
      skipped += buf_.size() - pos_;
      buf_.clear();
      pos_ = 0;
    }
    if (!Fill()) {
      // End of data: whatever is left has no '\n' yet.
      if (!oversize) {
        tail_.assign(buf_, pos_, std::string::npos);
        tail_bytes_ = tail_.size();
      }
      // The oversize line's bytes are not consumed: it may still be growing, and a later
      // read will skip it whole once its '\n' arrives.
      if (oversize) {
        buf_.clear();
        pos_ = 0;
      }
      return Status::kEnd;
    }
  }
}

void LineReader::AcceptTail() {
  offset_ += tail_bytes_;
  tail_.clear();
  tail_bytes_ = 0;
  buf_.clear();
  pos_ = 0;
}

}  // namespace kioku::episodic
