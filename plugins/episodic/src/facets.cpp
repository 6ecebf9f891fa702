#include "facets.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <set>

#include "tool_support.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

namespace {

enum class Section { kNone, kDecisions, kOpen, kFiles, kHighlights, kOther };

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool ContainsWord(const std::string& lower, std::string_view word) {
  std::size_t pos = 0;
  while ((pos = lower.find(word, pos)) != std::string::npos) {
    const bool left_ok = pos == 0 || !std::isalnum(static_cast<unsigned char>(lower[pos - 1]));
    const std::size_t end = pos + word.size();
    const bool right_ok =
        end >= lower.size() || !std::isalnum(static_cast<unsigned char>(lower[end]));
    if (left_ok && right_ok) return true;
    ++pos;
  }
  return false;
}

bool AnyWord(const std::string& lower, std::initializer_list<std::string_view> words) {
  for (auto w : words) {
    if (ContainsWord(lower, w)) return true;
  }
  return false;
}

// Strips a bullet marker; reports whether there was one and whether it was an unchecked box.
std::string_view StripBullet(std::string_view line, bool* bullet, bool* unchecked) {
  *bullet = false;
  *unchecked = false;
  if (line.size() >= 2 && (line[0] == '-' || line[0] == '*' || line[0] == '+') &&
      line[1] == ' ') {
    *bullet = true;
    line = Trim(line.substr(2));
  } else {
    std::size_t i = 0;
    while (i < line.size() && i < 3 && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i > 0 && i + 1 < line.size() && (line[i] == '.' || line[i] == ')') &&
        line[i + 1] == ' ') {
      *bullet = true;
      line = Trim(line.substr(i + 2));
    }
  }
  if (line.rfind("[ ] ", 0) == 0) {
    *unchecked = true;
    *bullet = true;
    line = Trim(line.substr(4));
  } else if (line.rfind("[x] ", 0) == 0 || line.rfind("[X] ", 0) == 0) {
    *bullet = true;
    line = Trim(line.substr(4));
  }
  return line;
}

Section SectionFor(const std::string& label_lower) {
  if (AnyWord(label_lower, {"decision", "decisions", "decided"})) return Section::kDecisions;
  if (AnyWord(label_lower, {"open", "todo", "todos", "next", "follow-up", "follow-ups",
                            "followups", "remaining", "pending", "blockers", "blocker",
                            "questions", "question", "fixme", "tbd"})) {
    return Section::kOpen;
  }
  if (AnyWord(label_lower, {"files", "file"})) return Section::kFiles;
  if (AnyWord(label_lower, {"highlights"})) return Section::kHighlights;
  return Section::kOther;
}

bool IsOpenItem(const std::string& lower) {
  return AnyWord(lower, {"todo", "fixme", "tbd", "open question", "open item", "next step",
                         "next steps", "follow-up", "follow up", "still need", "still needs",
                         "needs to", "need to", "not yet", "unresolved", "pending",
                         "blocked on", "blocked by"});
}

bool IsDecision(const std::string& lower) {
  return AnyWord(lower, {"decided", "decision", "chose", "choose to", "agreed", "settled on",
                         "going with", "will use", "switched to", "opted", "adopted"});
}

void AddUnique(std::vector<std::string>& list, std::set<std::string>& seen,
               std::string_view text) {
  std::string t(Trim(text));
  if (t.empty()) return;
  if (seen.insert(NormalizeKey(t)).second) list.push_back(std::move(t));
}

std::string_view TrimToken(std::string_view t) {
  auto strip_front = [](char c) {
    return c == '(' || c == '[' || c == '{' || c == '<' || c == '"' || c == '\'' || c == '`' ||
           c == '*';
  };
  auto strip_back = [](char c) {
    return c == ')' || c == ']' || c == '}' || c == '>' || c == '"' || c == '\'' || c == '`' ||
           c == ',' || c == ';' || c == ':' || c == '.' || c == '!' || c == '?' || c == '*';
  };
  while (!t.empty() && strip_front(t.front())) t.remove_prefix(1);
  while (!t.empty() && strip_back(t.back())) t.remove_suffix(1);
  return t;
}

}  // namespace

bool LooksLikePath(std::string_view token) {
  if (token.size() < 3 || token.size() > 1024) return false;
  if (token.find("://") != std::string_view::npos) return false;
  for (char c : token) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || c == '|' || c == '=' || c == '$' || c == '\\') return false;
  }
  static const std::array<std::string_view, 4> kExactNames = {"Makefile", "Dockerfile",
                                                              "CMakeLists.txt", "Justfile"};
  const std::size_t slash = token.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? token : token.substr(slash + 1);
  for (auto n : kExactNames) {
    if (last == n) return true;
  }
  const std::size_t dot = last.rfind('.');
  const bool has_ext = dot != std::string_view::npos && dot > 0 && dot + 1 < last.size() &&
                       last.size() - dot - 1 <= 10 &&
                       std::all_of(last.begin() + static_cast<std::ptrdiff_t>(dot) + 1,
                                   last.end(), [](char c) {
                                     return std::isalnum(static_cast<unsigned char>(c)) != 0;
                                   }) &&
                       std::any_of(last.begin() + static_cast<std::ptrdiff_t>(dot) + 1,
                                   last.end(), [](char c) {
                                     return std::isalpha(static_cast<unsigned char>(c)) != 0;
                                   });
  if (slash != std::string_view::npos) {
    if (last.empty()) return false;
    const bool rooted = token.front() == '/' || token.rfind("./", 0) == 0 ||
                        token.rfind("../", 0) == 0 || token.rfind("~/", 0) == 0;
    return has_ext || (rooted && token.size() > 2);
  }
  if (!has_ext) return false;
  static const std::set<std::string, std::less<>> kExt = {
      "c",    "cc",   "cpp",  "cxx", "h",    "hh",   "hpp",  "hxx",  "ts",   "tsx",
      "js",   "jsx",  "mjs",  "cjs", "py",   "rs",   "go",   "java", "kt",   "swift",
      "rb",   "php",  "cs",   "md",  "json", "yaml", "yml",  "toml", "sql",  "sh",
      "bash", "zsh",  "txt",  "css", "scss", "html", "xml",  "lock", "cfg",  "ini",
      "cmake", "proto", "vue", "svelte", "lua", "dart", "scala", "gradle", "tf", "env"};
  return kExt.count(Lower(last.substr(dot + 1))) > 0;
}

std::vector<std::string> ExtractPaths(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
                               text[i] == '\r' || text[i] == ',')) {
      ++i;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' &&
           text[j] != '\r' && text[j] != ',') {
      ++j;
    }
    if (j > i) {
      std::string_view tok = TrimToken(text.substr(i, j - i));
      // "path:12" → "path" (line references).
      if (auto colon = tok.find(':'); colon != std::string_view::npos && colon > 0) {
        std::string_view rest = tok.substr(colon + 1);
        if (!rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
              return std::isdigit(static_cast<unsigned char>(c)) || c == ':' || c == '-';
            })) {
          tok = tok.substr(0, colon);
        }
      }
      if (LooksLikePath(tok)) out.emplace_back(tok);
    }
    i = j;
  }
  return out;
}

std::vector<std::string> SplitSentences(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if ((c == '.' || c == '!' || c == '?') && i + 1 < line.size() &&
        (line[i + 1] == ' ' || line[i + 1] == '\t')) {
      std::string_view piece = Trim(line.substr(start, i + 1 - start));
      if (!piece.empty()) out.emplace_back(piece);
      start = i + 1;
    }
  }
  std::string_view tail = Trim(line.substr(std::min(start, line.size())));
  if (!tail.empty()) out.emplace_back(tail);
  return out;
}

Facets ExtractFacets(std::string_view text) {
  Facets f;
  std::set<std::string> seen_d, seen_o, seen_f, seen_h;
  Section section = Section::kNone;

  auto add_files = [&](std::string_view unit) {
    for (auto& p : ExtractPaths(unit)) AddUnique(f.files, seen_f, p);
  };
  auto classify = [&](std::string_view unit, Section forced) {
    add_files(unit);
    switch (forced) {
      case Section::kDecisions:
        AddUnique(f.decisions, seen_d, unit);
        return;
      case Section::kOpen:
        AddUnique(f.open_items, seen_o, unit);
        return;
      case Section::kFiles:
        // A files section lists paths; a line there that names none is still kept as a
        // highlight so nothing is silently dropped.
        if (ExtractPaths(unit).empty()) AddUnique(f.highlights, seen_h, unit);
        return;
      case Section::kHighlights:
        AddUnique(f.highlights, seen_h, unit);
        return;
      default:
        break;
    }
    const std::string lower = Lower(unit);
    if (IsOpenItem(lower)) {
      AddUnique(f.open_items, seen_o, unit);
    } else if (IsDecision(lower)) {
      AddUnique(f.decisions, seen_d, unit);
    } else {
      AddUnique(f.highlights, seen_h, unit);
    }
  };

  // Inline label: "Decision: x", "TODO: x", "Files touched: a, b" (label <= 24 chars).
  auto handle_unit = [&](std::string_view unit, Section forced) {
    if (auto colon = unit.find(": "); colon != std::string_view::npos && colon <= 24) {
      std::string label = Lower(unit.substr(0, colon));
      const bool wordy = std::all_of(label.begin(), label.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) || c == ' ' || c == '-';
      });
      if (wordy) {
        const Section inline_section = SectionFor(label);
        std::string_view value = Trim(unit.substr(colon + 2));
        if (inline_section == Section::kFiles) {
          add_files(value);
          return;
        }
        if (inline_section == Section::kDecisions || inline_section == Section::kOpen) {
          classify(value, inline_section);
          return;
        }
      }
    }
    classify(unit, forced);
  };

  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view raw = Trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (raw.empty()) {
      if (nl >= text.size()) break;
      continue;
    }
    // Header: "## Decisions", "**Open items:**", "Decisions:".
    std::string_view h = raw;
    bool hashed = false;
    while (!h.empty() && h.front() == '#') {
      h.remove_prefix(1);
      hashed = true;
    }
    h = Trim(h);
    while (h.size() >= 2 && h.substr(0, 2) == "**") h = Trim(h.substr(2));
    while (h.size() >= 2 && h.substr(h.size() - 2) == "**") h = Trim(h.substr(0, h.size() - 2));
    const bool colon_end = !h.empty() && h.back() == ':';
    if ((hashed || colon_end) && h.size() <= 60 && raw.front() != '-' && raw.front() != '*') {
      std::string label(colon_end ? h.substr(0, h.size() - 1) : h);
      section = SectionFor(Lower(label));
      if (nl >= text.size()) break;
      continue;
    }
    bool bullet = false, unchecked = false;
    std::string_view body = StripBullet(raw, &bullet, &unchecked);
    if (body.empty()) continue;
    if (!bullet && section != Section::kFiles) section = Section::kNone;

    if (unchecked) {
      classify(body, Section::kOpen);
      continue;
    }
    if (section == Section::kFiles && !bullet) {
      add_files(body);
      continue;
    }
    if (bullet) {
      handle_unit(body, section == Section::kOther ? Section::kNone : section);
      continue;
    }
    for (const auto& sentence : SplitSentences(body)) handle_unit(sentence, Section::kNone);
    if (nl >= text.size()) break;
  }
  return f;
}

}  // namespace kioku::episodic
