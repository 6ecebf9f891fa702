#include "kioku/sdk/text.hpp"

#include "utf8_internal.hpp"

namespace kioku::sdk {

std::string Plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

using detail::AsciiRunEnd;
using detail::DecodeUtf8;

bool IsValidUtf8(std::string_view text) {
  for (std::size_t pos = AsciiRunEnd(text, 0); pos < text.size(); pos = AsciiRunEnd(text, pos)) {
    const std::size_t len = DecodeUtf8(text, pos);
    if (len == 0) return false;
    pos += len;
  }
  return true;
}

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    if (const std::size_t end = AsciiRunEnd(text, pos); end > pos) {
      out.append(text.substr(pos, end - pos));
      pos = end;
      continue;
    }
    const std::size_t len = DecodeUtf8(text, pos);
    if (len != 0) {
      out.append(text.substr(pos, len));
      pos += len;
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD, once per maximal subpart (Unicode §3.9)
      pos += detail::InvalidSubpartLength(text, pos);
    }
  }
  return out;
}

std::size_t Utf8Length(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = AsciiRunEnd(text, pos);
    count += end - pos;
    if (end == text.size()) break;
    const std::size_t len = DecodeUtf8(text, end);
    pos = end + ((len == 0) ? 1 : len);  // an invalid byte counts as one character
    ++count;
  }
  return count;
}

std::string TruncateUtf8(std::string_view text, std::size_t max_bytes,
                         std::string_view ellipsis) {
  if (text.size() <= max_bytes) return std::string(text);
  // An ellipsis that does not fit is left out rather than cut (a cut "…" is garbage).
  if (ellipsis.size() > max_bytes) ellipsis = {};
  const std::size_t budget = max_bytes - ellipsis.size();
  std::size_t cut = 0;
  while (cut < budget) {
    const std::size_t len = DecodeUtf8(text, cut);
    const std::size_t step = (len == 0) ? 1 : len;  // invalid bytes are single units
    if (cut + step > budget) break;
    cut += step;
  }
  std::string out(text.substr(0, cut));
  out.append(ellipsis);
  return out;
}

std::string TruncateAtBoundary(std::string_view text, std::size_t max_bytes, std::string_view ellipsis) {
  if (text.size() <= max_bytes) return std::string(text);
  const std::size_t floor = max_bytes / 2;
  // A sentence end needs no ellipsis, so it may close the whole budget; its follower is read
  // from `text` (the space past the cut).
  const std::string whole = TruncateUtf8(text, max_bytes, "");
  const std::string_view full_stops[] = {"\u3002", "\uFF01", "\uFF1F"};
  for (std::size_t end = whole.size(); end > floor; --end) {
    const char c = whole[end - 1];
    if ((c == '.' || c == '!' || c == '?') && text[end] == ' ') return whole.substr(0, end);
    for (std::string_view stop : full_stops) {
      if (end >= stop.size() && std::string_view(whole).substr(end - stop.size(), stop.size()) == stop) {
        return whole.substr(0, end);
      }
    }
  }
  // Else the longest prefix that leaves room for the ellipsis, cut at a word when that keeps
  // half the budget.
  if (ellipsis.size() > max_bytes) ellipsis = {};
  std::string head = TruncateUtf8(text, max_bytes - ellipsis.size(), "");
  if (const std::size_t space = head.find_last_of(' '); space != std::string::npos && space >= floor) {
    head.resize(space);
    while (!head.empty() && head.back() == ' ') head.pop_back();
  }
  return head + std::string(ellipsis);
}

std::size_t EstimateTokens(std::string_view text) { return (text.size() + 3) / 4; }

std::string CollapseWhitespace(std::string_view text) {
  // ASCII whitespace only (space, \t, \n, \v, \f, \r); non-ASCII spaces are kept as text.
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (char c : text) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace kioku::sdk
