#include "privacy.hpp"

#include <cctype>

namespace kioku::episodic {

namespace {

bool NameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

// Length of a home prefix at `i` ("/home/alex", "/Users/alex", "/root"), or 0.
std::size_t HomePrefixAt(std::string_view s, std::size_t i) {
  if (i > 0) {
    const char before = s[i - 1];
    if (NameChar(before) || before == '/') return 0;  // inside a longer path
  }
  for (std::string_view root : {std::string_view("/home/"), std::string_view("/Users/")}) {
    if (s.substr(i, root.size()) != root) continue;
    std::size_t j = i + root.size();
    const std::size_t name_start = j;
    while (j < s.size() && NameChar(s[j])) ++j;
    if (j == name_start) return 0;
    if (j < s.size() && s[j] != '/' && NameChar(s[j])) return 0;
    return j - i;
  }
  if (s.substr(i, 5) == "/root" && (i + 5 == s.size() || s[i + 5] == '/' || !NameChar(s[i + 5]))) {
    return 5;
  }
  return 0;
}

}  // namespace

std::string ScrubHome(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '/') {
      if (std::size_t n = HomePrefixAt(text, i); n > 0) {
        out += '~';
        i += n;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::string StoredPath(std::string_view path, std::string_view cwd) {
  while (cwd.size() > 1 && cwd.back() == '/') cwd.remove_suffix(1);
  if (!cwd.empty() && path.size() > cwd.size() + 1 && path.substr(0, cwd.size()) == cwd &&
      path[cwd.size()] == '/') {
    return std::string(path.substr(cwd.size() + 1));
  }
  return ScrubHome(path);
}

}  // namespace kioku::episodic
