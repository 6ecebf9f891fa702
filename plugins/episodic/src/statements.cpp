#include "statements.hpp"

#include <cctype>

#include "facets.hpp"

namespace kioku::episodic {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  // Typographic apostrophes as typed on phones/macOS.
  std::string fixed;
  fixed.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 3, "\xE2\x80\x99") == 0) {
      fixed += '\'';
      i += 2;
    } else {
      fixed += out[i];
    }
  }
  return fixed;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// Word-boundary "contains".
bool HasWord(const std::string& s, std::string_view w) {
  std::size_t pos = 0;
  while ((pos = s.find(w, pos)) != std::string::npos) {
    const bool l = pos == 0 || !std::isalnum(static_cast<unsigned char>(s[pos - 1]));
    const std::size_t e = pos + w.size();
    const bool r = e >= s.size() || !std::isalnum(static_cast<unsigned char>(s[e]));
    if (l && r) return true;
    ++pos;
  }
  return false;
}

bool IsLogLine(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  std::string_view t = line.substr(i);
  // 2025-11-11T08:59:58Z ..., 2025-11-11 08:59 ..., 08:59:58 ...
  auto digits = [&](std::size_t at, std::size_t n) {
    if (at + n > t.size()) return false;
    for (std::size_t k = 0; k < n; ++k) {
      if (!std::isdigit(static_cast<unsigned char>(t[at + k]))) return false;
    }
    return true;
  };
  if (digits(0, 4) && t.size() > 4 && t[4] == '-' && digits(5, 2)) return true;
  if (digits(0, 2) && t.size() > 5 && t[2] == ':' && digits(3, 2) && t[5] == ':' &&
      digits(6, 2)) {
    return true;  // 08:59:58 … (a bare "02:00 is fine" is prose)
  }
  static const char* kLevels[] = {"INFO ", "WARN ", "WARNING ", "ERROR ", "DEBUG ", "TRACE ",
                                  "FATAL ", "[INFO]", "[WARN]", "[ERROR]", "[DEBUG]",
                                  "Traceback ", "    at ", "E   "};
  for (const char* lvl : kLevels) {
    if (StartsWith(t, lvl)) return true;
  }
  return false;
}

std::string_view StripLead(std::string_view s) {
  // Discourse openers before a rule: "Also, we decided…", "OK, from now on…", "Please always…".
  static const char* kLeads[] = {"also, ", "also ", "and ", "ok, ", "ok ", "okay, ", "so ",
                                 "so, ", "please, ", "please ", "btw, ", "but ", "oh, ",
                                 "and also ", "one more thing: ", "note: "};
  bool changed = true;
  std::string lower;
  while (changed) {
    changed = false;
    lower = Lower(s);
    for (const char* l : kLeads) {
      if (StartsWith(lower, l)) {
        s.remove_prefix(std::string_view(l).size());
        changed = true;
        break;
      }
    }
  }
  return s;
}

bool IsQuestion(const std::string& lower) {
  std::string_view t = lower;
  while (!t.empty() && (t.back() == ' ' || t.back() == '"' || t.back() == ')')) t.remove_suffix(1);
  if (!t.empty() && t.back() == '?') return true;
  static const char* kAux[] = {"should", "shall", "can", "could", "would", "do", "does",
                               "is", "are", "will", "did"};
  static const char* kSubj[] = {" we ", " you ", " i ", " it ", " they "};
  for (const char* a : kAux) {
    const std::string_view aux = a;
    if (!StartsWith(lower, aux) || lower.size() <= aux.size() || lower[aux.size()] != ' ') continue;
    for (const char* s : kSubj) {
      if (StartsWith(std::string_view(lower).substr(aux.size()), s)) return true;
    }
  }
  return false;
}

}  // namespace

std::string StripPastedMaterial(std::string_view text) {
  std::string out;
  bool in_fence = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::string_view trimmed = line.substr(i);
    if (StartsWith(trimmed, "```") || StartsWith(trimmed, "~~~")) {
      in_fence = !in_fence;
      out += '\n';
    } else if (in_fence || StartsWith(trimmed, ">") || StartsWith(line, "    ") ||
               StartsWith(line, "\t") || IsLogLine(line)) {
      out += '\n';  // keep a sentence break where the pasted block was
    } else {
      out.append(line);
      out += '\n';
    }
    if (nl >= text.size()) break;
  }
  return out;
}

std::vector<DurableStatement> FindDurableStatements(std::string_view human_text) {
  std::vector<DurableStatement> found;
  const std::string clean = StripPastedMaterial(human_text);
  std::size_t pos = 0;
  while (pos < clean.size()) {
    std::size_t nl = clean.find('\n', pos);
    if (nl == std::string::npos) nl = clean.size();
    const std::string_view line = std::string_view(clean).substr(pos, nl - pos);
    pos = nl + 1;
    for (const std::string& sentence : SplitSentences(line)) {
      const std::string_view core = StripLead(sentence);
      const std::string lower = Lower(core);
      const std::string whole = Lower(sentence);
      if (lower.size() < 8) continue;

      bool trigger = false;
      std::string kind = "preference";
      static const char* kStartPref[] = {"from now on", "going forward", "always ",
                                         "make sure to always", "in future", "in the future"};
      static const char* kStartRule[] = {"never ", "don't ", "do not ", "dont ",
                                         "the rule is", "make sure to never", "under no circumstances"};
      for (const char* p : kStartPref) {
        if (StartsWith(lower, p)) trigger = true;
      }
      for (const char* p : kStartRule) {
        if (StartsWith(lower, p)) {
          trigger = true;
          kind = "decision";
        }
      }
      if (StartsWith(lower, "never mind") || StartsWith(lower, "don't worry") ||
          StartsWith(lower, "do not worry") || StartsWith(lower, "don't bother")) {
        trigger = false;
      }
      if (StartsWith(lower, "remember that") || StartsWith(lower, "remember:") ||
          StartsWith(lower, "keep in mind that") || StartsWith(lower, "note that")) {
        trigger = true;
        kind = "fact";
      }
      static const char* kDecided[] = {"we decided", "we've decided", "we have decided",
                                       "we agreed", "we've agreed", "we settled on",
                                       "we've settled on", "we have settled on",
                                       "the decision is", "we chose"};
      for (const char* p : kDecided) {
        if (HasWord(lower, p)) {
          trigger = true;
          kind = "decision";
        }
      }
      if (HasWord(lower, "from now on") || HasWord(lower, "going forward") ||
          HasWord(lower, "every time")) {
        trigger = true;
      }
      static const char* kModal[] = {"must never", "must always", "should never",
                                     "should always", "must not", "shall never"};
      for (const char* p : kModal) {
        if (HasWord(lower, p)) {
          trigger = true;
          kind = "decision";
        }
      }
      if (!trigger) continue;

      // Exclusions.
      if (IsQuestion(lower) || IsQuestion(whole)) continue;
      static const char* kHedges[] = {"not sure", "i wonder", "maybe", "perhaps", "might ",
                                      "i'm wondering", "not certain", "i guess"};
      bool hedged = false;
      for (const char* h : kHedges) {
        if (Contains(lower, h)) hedged = true;
      }
      if (hedged) continue;
      if (StartsWith(lower, "i never") || StartsWith(lower, "i always") ||
          StartsWith(lower, "i don't") || StartsWith(lower, "i didn't") ||
          HasWord(lower, "i never") || HasWord(lower, "i always") ||
          StartsWith(lower, "i ") || StartsWith(lower, "i'm ") || StartsWith(lower, "i've ")) {
        // "I never remember…", "I don't want to always…": about the speaker, not a rule.
        if (!HasWord(lower, "we decided") && !HasWord(lower, "from now on")) continue;
      }
      static const char* kNow[] = {"right now", "for now", "this time", "this branch",
                                   "this pr", "today", "for this task", "this session",
                                   "at the moment"};
      bool scoped = false;
      for (const char* n : kNow) {
        if (HasWord(lower, n)) scoped = true;
      }
      if (scoped) continue;
      if (HasWord(lower, "always-on")) {
        // An adjective, not a rule ("always-on in the app layer").
        if (!HasWord(lower, "we decided")) continue;
      }
      std::string text = sentence;
      while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
      found.push_back({std::move(text), kind});
    }
  }
  return found;
}

}  // namespace kioku::episodic
