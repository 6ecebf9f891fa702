#include "entities.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include "kioku/sdk/match_key.hpp"
#include "normalize.hpp"

namespace kioku::semantic {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsIdentChar(char c) { return IsAlnum(c) || c == '_'; }

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A short word lower-cased (ASCII) without allocating: the extension and file-name lists
// are looked up for nearly every word of every memory written.
constexpr std::size_t kMaxLowered = 16;  // longer than any entry of the two lists below
struct Lowered {
  std::array<char, kMaxLowered> chars{};
  std::size_t size = 0;
  std::string_view view() const { return {chars.data(), size}; }
};
Lowered LowerInto(std::string_view w) {
  Lowered out;
  out.size = std::min(w.size(), kMaxLowered);
  for (std::size_t i = 0; i < out.size; ++i) out.chars[i] = IsUpper(w[i]) ? static_cast<char>(w[i] - 'A' + 'a') : w[i];
  return out;
}

// File extensions common in coding-agent memories (languages, configs, lockfiles, docs).
bool IsKnownExtension(std::string_view ext) {
  static const std::set<std::string, std::less<>> kExt = {
      "c",    "cc",   "cpp",  "cxx",   "h",      "hh",   "hpp",  "hxx",   "rs",   "go",
      "py",   "pyi",  "rb",   "js",    "mjs",    "cjs",  "ts",   "tsx",   "jsx",  "java",
      "kt",   "kts",  "swift", "cs",   "fs",     "scala", "php", "lua",   "sh",   "bash",
      "zsh",  "fish", "ps1",  "sql",   "json",   "jsonl", "yaml", "yml",  "toml", "ini",
      "cfg",  "conf", "env",  "xml",   "html",   "htm",  "css",  "scss",  "less", "md",
      "mdx",  "rst",  "txt",  "csv",   "lock",   "gradle", "cmake", "mk", "proto", "graphql",
      "vue",  "svelte", "dart", "ex",  "exs",    "erl",  "hs",   "ml",    "nix",  "tf",
      "lockb", "sum", "mod",  "ipynb", "dockerfile", "patch", "diff", "log", "pem", "wasm",
      "so",   "dll",  "a",    "o",     "zig",    "r",    "jl",   "pl",    "vim",  "el"};
  return ext.size() <= kMaxLowered && kExt.count(LowerInto(ext).view()) > 0;
}

bool IsWellKnownFileName(std::string_view name) {
  static const std::set<std::string, std::less<>> kNames = {
      "makefile", "dockerfile", "gemfile", "rakefile", "procfile", "jenkinsfile",
      "justfile", "vagrantfile", "brewfile", "license", "readme", "changelog",
      "codeowners", "containerfile"};
  return name.size() <= kMaxLowered && kNames.count(LowerInto(name).view()) > 0;
}

// Strips characters that surround a word in prose or markdown.
std::string_view StripWord(std::string_view w, bool* backticked) {
  *backticked = false;
  const auto is_open = [](char c) {
    return c == '(' || c == '[' || c == '{' || c == '<' || c == '"' || c == '\'' || c == '`' ||
           c == '*';
  };
  const auto is_close = [](char c) {
    return c == ')' || c == ']' || c == '}' || c == '>' || c == '"' || c == '\'' || c == '`' ||
           c == '*' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '.';
  };
  while (!w.empty() && is_open(w.front())) {
    if (w.front() == '`') *backticked = true;
    w.remove_prefix(1);
  }
  while (!w.empty() && is_close(w.back())) {
    // Keep "foo()" calls and a trailing '/' of a directory; drop sentence punctuation.
    if (w.back() == ')' && w.size() >= 2 && w[w.size() - 2] == '(') break;
    if (w.back() == '`') *backticked = true;
    w.remove_suffix(1);
  }
  return w;
}

bool IsVersion(std::string_view w) {
  std::size_t i = 0;
  if (i < w.size() && (w[i] == 'v' || w[i] == 'V')) ++i;
  std::size_t dots = 0;
  bool digit = false;
  const std::size_t start = i;
  for (; i < w.size(); ++i) {
    if (IsDigit(w[i])) {
      digit = true;
    } else if (w[i] == '.' && digit && i + 1 < w.size() && IsDigit(w[i + 1])) {
      ++dots;
      digit = false;
    } else {
      break;
    }
  }
  if (i == start || dots == 0) return false;
  if (i == w.size()) return true;
  // Pre-release / build suffix: 1.2.3-rc.1, 1.2.3+build
  if (w[i] != '-' && w[i] != '+') return false;
  for (++i; i < w.size(); ++i) {
    if (!IsAlnum(w[i]) && w[i] != '.' && w[i] != '-') return false;
  }
  return true;
}

bool IsPackageName(std::string_view n) {
  if (n.empty()) return false;
  if (n.front() == '@') {  // npm scope: @scope/name
    const std::size_t slash = n.find('/');
    if (slash == std::string_view::npos || slash < 2 || slash + 1 >= n.size()) return false;
    return IsPackageName(n.substr(1, slash - 1)) && IsPackageName(n.substr(slash + 1));
  }
  if (!IsAlnum(n.front())) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return IsAlnum(c) || c == '-' || c == '_' || c == '.';
  });
}

bool IsEnvVar(std::string_view w) {
  if (w.size() < 4 || !IsUpper(w.front()) || w.find('_') == std::string_view::npos) return false;
  if (w.back() == '_') return false;
  return std::all_of(w.begin(), w.end(),
                     [](char c) { return IsUpper(c) || IsDigit(c) || c == '_'; });
}

// Identifier-like: snake_case, camelCase, PascalCase with 2+ humps, a::b, name(), dotted.
bool IsIdentifier(std::string_view w, bool backticked) {
  if (w.size() >= 2 && w.substr(w.size() - 2) == "()") {
    const std::string_view base = w.substr(0, w.size() - 2);
    return !base.empty() && (IsAlpha(base.front()) || base.front() == '_') &&
           std::all_of(base.begin(), base.end(),
                       [](char c) { return IsIdentChar(c) || c == '.' || c == ':'; });
  }
  if (w.find("::") != std::string_view::npos) {
    return std::all_of(w.begin(), w.end(), [](char c) { return IsIdentChar(c) || c == ':'; }) &&
           IsAlpha(w.front());
  }
  if (w.empty() || !(IsAlpha(w.front()) || w.front() == '_')) return false;
  const bool ident_chars =
      std::all_of(w.begin(), w.end(), [](char c) { return IsIdentChar(c) || c == '.'; });
  if (!ident_chars) return backticked && w.size() >= 2 &&
                            std::all_of(w.begin(), w.end(), [](char c) {
                              return IsIdentChar(c) || c == '.' || c == '-' || c == '$';
                            });
  if (backticked && w.size() >= 2) return true;
  if (w.find('.') != std::string_view::npos) {
    // dotted.name: every segment an identifier of >= 2 characters ("os.path", not "e.g").
    std::size_t start = 0;
    while (start <= w.size()) {
      std::size_t dot = w.find('.', start);
      if (dot == std::string_view::npos) dot = w.size();
      const std::string_view seg = w.substr(start, dot - start);
      if (seg.size() < 2 || (!IsAlpha(seg.front()) && seg.front() != '_')) return false;
      start = dot + 1;
    }
    return w.size() >= 5;
  }
  const std::size_t inner_underscore = w.find('_', 1);
  if (inner_underscore != std::string_view::npos && inner_underscore + 1 < w.size() &&
      std::any_of(w.begin(), w.end(), IsAlpha) && w.size() >= 4) {
    return true;  // snake_case (SCREAMING_CASE is handled as env first)
  }
  int humps = 0;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (IsUpper(w[i]) && IsLower(w[i - 1])) ++humps;
  }
  if (IsLower(w.front())) return humps >= 1;  // camelCase
  return humps >= 1 && IsUpper(w.front()) && w.size() >= 4;  // PascalCase: 2 humps
}

struct Classified {
  std::string type;
  std::string name;
};

std::string_view StripLineSuffix(std::string_view p) {
  // src/a.ts:42 or src/a.ts:42:7 → src/a.ts
  for (int i = 0; i < 2; ++i) {
    const std::size_t colon = p.rfind(':');
    if (colon == std::string_view::npos || colon + 1 >= p.size()) break;
    if (!std::all_of(p.begin() + static_cast<long>(colon) + 1, p.end(), IsDigit)) break;
    p = p.substr(0, colon);
  }
  return p;
}

bool LooksLikePath(std::string_view w) {
  if (w.find('/') == std::string_view::npos) {
    const std::size_t dot = w.rfind('.');
    if (dot != std::string_view::npos && dot > 0 && dot + 1 < w.size()) {
      // name.ext with a known extension; the stem must look like a file name.
      const std::string_view stem = w.substr(0, dot);
      return IsKnownExtension(w.substr(dot + 1)) &&
             std::all_of(stem.begin(), stem.end(), [](char c) {
               return IsAlnum(c) || c == '_' || c == '-' || c == '.';
             });
    }
    if (dot == 0 && w.size() > 1) {  // dotfiles: .gitignore, .env
      return std::all_of(w.begin() + 1, w.end(),
                         [](char c) { return IsAlnum(c) || c == '_' || c == '-' || c == '.'; });
    }
    return IsWellKnownFileName(w);
  }
  const bool path_chars = std::all_of(w.begin(), w.end(), [](char c) {
    return IsAlnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~' || c == '@' ||
           c == '+' || c == '*' || static_cast<unsigned char>(c) >= 0x80;
  });
  if (!path_chars || !std::any_of(w.begin(), w.end(), IsAlnum)) return false;
  if (StartsWith(w, "/") || StartsWith(w, "./") || StartsWith(w, "../") || StartsWith(w, "~/")) {
    return w.size() > 2;
  }
  if (w.back() == '/') return true;
  if (std::count(w.begin(), w.end(), '/') >= 2) return true;
  const std::string_view last = w.substr(w.rfind('/') + 1);
  const std::size_t dot = last.rfind('.');
  return (dot != std::string_view::npos && dot + 1 < last.size() &&
          IsKnownExtension(last.substr(dot + 1))) ||
         IsWellKnownFileName(last);
}

void Classify(std::string_view w, bool backticked, std::vector<Classified>& out) {
  if (w.size() < 2 || w.size() > 512) return;
  if (StartsWith(w, "http://") || StartsWith(w, "https://")) {
    if (w.size() > 10) out.push_back({"url", std::string(w)});
    return;
  }
  if (StartsWith(w, "--") && w.size() > 3 && IsAlnum(w[2])) {
    std::string_view name = w.substr(0, w.find('='));
    if (std::all_of(name.begin() + 2, name.end(),
                    [](char c) { return IsAlnum(c) || c == '-' || c == '_'; })) {
      out.push_back({"flag", std::string(name)});
    }
    return;
  }
  // name@version / @scope/name@version
  const std::size_t at = w.rfind('@');
  if (at != std::string_view::npos && at > 0 && at + 1 < w.size()) {
    const std::string_view name = w.substr(0, at);
    std::string_view version = w.substr(at + 1);
    const bool tagged = version == "latest" || version == "next" || version == "canary";
    if (IsPackageName(name) && (IsVersion(version) || tagged ||
                                ((version.front() == '^' || version.front() == '~') &&
                                 IsVersion(version.substr(1))))) {
      out.push_back({"package", std::string(w)});
      out.push_back({"package", std::string(name)});
      return;
    }
  }
  const std::size_t eq = w.find("==");
  if (eq != std::string_view::npos && eq > 0 && IsPackageName(w.substr(0, eq)) &&
      IsVersion(w.substr(eq + 2))) {
    out.push_back({"package", std::string(w)});
    out.push_back({"package", std::string(w.substr(0, eq))});
    return;
  }
  if (IsVersion(w)) {
    out.push_back({"version", std::string(w)});
    return;
  }
  if (IsEnvVar(w)) {
    out.push_back({"env", std::string(w)});
    return;
  }
  std::string_view path = StripLineSuffix(w);
  if (LooksLikePath(path)) {
    if (StartsWith(path, "./")) path.remove_prefix(2);
    out.push_back({"file", std::string(path)});
    return;
  }
  if (IsIdentifier(w, backticked)) {
    std::string name(w);
    if (name.size() > 2 && name.substr(name.size() - 2) == "()") name.resize(name.size() - 2);
    out.push_back({"identifier", name});
  }
}

}  // namespace

std::string NormalizeEntityName(std::string_view name) {
  std::string n = sdk::MatchKey(name);
  if (StartsWith(n, "./")) n.erase(0, 2);
  while (n.size() > 1 && n.back() == '/') n.pop_back();
  return n;
}

std::vector<EntityMention> ExtractEntities(std::string_view text, std::size_t max_entities) {
  std::vector<EntityMention> out;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<Classified> found;
  std::size_t pos = 0;
  while (pos < text.size() && out.size() < max_entities) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' ||
                                 text[pos] == '\r')) {
      ++pos;
    }
    std::size_t end = pos;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n' &&
           text[end] != '\r') {
      ++end;
    }
    if (end == pos) break;
    bool backticked = false;
    const std::string_view word = StripWord(text.substr(pos, end - pos), &backticked);
    found.clear();
    Classify(word, backticked, found);
    for (Classified& c : found) {
      if (out.size() >= max_entities) break;
      std::string norm = NormalizeEntityName(c.name);
      if (c.type == "url") {
        while (norm.size() > 8 && norm.back() == '/') norm.pop_back();
      }
      if (norm.empty() || !seen.emplace(c.type, norm).second) continue;
      out.push_back({std::move(c.type), std::move(c.name), std::move(norm)});
    }
    pos = end;
  }
  return out;
}

std::string ClassifyEntityName(std::string_view name) {
  const std::string_view trimmed = Trim(name);
  if (trimmed.find_first_of(" \t\n") != std::string_view::npos) return "concept";
  std::vector<Classified> found;
  bool backticked = false;
  Classify(StripWord(trimmed, &backticked), backticked, found);
  if (found.empty()) return "concept";
  return found.front().type;
}

}  // namespace kioku::semantic
