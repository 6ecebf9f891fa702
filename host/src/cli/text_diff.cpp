#include "cli/text_diff.hpp"

#include <algorithm>
#include <vector>

namespace kioku::host::cli {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start) + "\n\\ No newline at end of file");
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string Range(std::size_t start, std::size_t count) {
  // diff -u numbers lines from 1; an empty range names the line before it.
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

}  // namespace

std::string UnifiedDiff(const std::string& label, const std::string& before, const std::string& after) {
  if (before == after) return "";
  const auto a = SplitLines(before);
  const auto b = SplitLines(after);
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  constexpr std::size_t kContext = 3;
  const std::size_t start = prefix > kContext ? prefix - kContext : 0;
  const std::size_t tail = std::min(suffix, kContext);
  const std::size_t a_end = a.size() - suffix + tail;
  const std::size_t b_end = b.size() - suffix + tail;
  std::string out = "--- " + label + "\n+++ " + label + "\n@@ -" + Range(start, a_end - start) + " +" +
                    Range(start, b_end - start) + " @@\n";
  for (std::size_t i = start; i < prefix; ++i) out += " " + a[i] + "\n";
  for (std::size_t i = prefix; i < a.size() - suffix; ++i) out += "-" + a[i] + "\n";
  for (std::size_t i = prefix; i < b.size() - suffix; ++i) out += "+" + b[i] + "\n";
  for (std::size_t i = a.size() - suffix; i < a_end; ++i) out += " " + a[i] + "\n";
  return out;
}

}  // namespace kioku::host::cli
