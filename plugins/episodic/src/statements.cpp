#include "statements.hpp"

#include <cctype>

#include "tool_support.hpp"
#include "facets.hpp"
#include "statement_values.hpp"

namespace kioku::episodic {

namespace {

using Phrases = std::initializer_list<std::string_view>;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '\''; }

std::size_t WordCount(std::string_view s) {
  std::size_t n = 0;
  bool in = false;
  for (char c : s) {
    const bool w = IsWordChar(c);
    if (w && !in) ++n;
    in = w;
  }
  return n;
}

// The words of `lower` as views (letters, digits, apostrophes).
std::vector<std::string_view> WordsOf(std::string_view lower) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < lower.size()) {
    while (i < lower.size() && !IsWordChar(lower[i])) ++i;
    std::size_t j = i;
    while (j < lower.size() && IsWordChar(lower[j])) ++j;
    if (j > i) out.push_back(lower.substr(i, j - i));
    i = j;
  }
  return out;
}

bool In(std::string_view w, Phrases set) {
  for (std::string_view s : set) {
    if (w == s) return true;
  }
  return false;
}

// Skips spaces and the punctuation that follows a lead ("ok, ", "no - ", "so: ").
std::size_t SkipPunct(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == ',' || s[i] == '.' || s[i] == '!' ||
                          s[i] == ':' || s[i] == ';' || s[i] == '-' || s[i] == '\t')) {
    ++i;
  }
  return i;
}

// ---- features ---------------------------------------------------------------------------

struct Clause {
  std::string text;   // original (folded apostrophes/dashes)
  std::string lower;  // same offsets as text
  bool actually = false;
  bool revised = false;
};

// Revision markers that also correct (the revised words are a correction).
constexpr std::string_view kCorrecting[] = {"actually no", "actually, no", "correction:"};

// Position after the last revision marker, or npos.
std::size_t AfterRevision(std::string_view lower) {
  static constexpr std::string_view kMarkers[] = {
      "scratch that",   "forget that",    "ignore that",   "ignore what i said",
      "disregard that", "on second thought", "on second thoughts", "change of plan",
      "change of plans", "actually no",   "actually, no",  "correction:",
      "i changed my mind", "i've changed my mind", "we changed our mind",
      "we've changed our minds", "we changed our minds", "not anymore"};
  std::size_t best = std::string_view::npos;
  for (std::string_view m : kMarkers) {
    std::size_t p = FindPhrase(lower, m);
    while (p != std::string_view::npos) {
      const std::size_t end = p + m.size();
      if (best == std::string_view::npos || end > best) best = end;
      p = FindPhrase(lower, m, p + 1);
    }
  }
  return best;
}

// Discourse openers that carry no meaning for the rule after them.
std::size_t SkipLeads(const std::string& lower, bool& actually) {
  static constexpr std::string_view kLeads[] = {
      "and also", "oh and", "and please", "one more thing", "one last thing", "as i said",
      "like i said", "as i mentioned", "i've said it before", "i said it before",
      "i told you before", "to be clear", "just to be clear", "to clarify", "thank you",
      "all right", "got it", "also", "and", "ok", "okay", "so", "please", "pls", "btw", "but",
      "oh", "no", "nope", "yes", "yeah", "yep", "right", "sure", "thanks", "thx", "cool",
      "great", "good", "perfect", "alright", "well", "hey", "hmm", "fine", "understood", "ah",
      "look", "listen", "anyway", "anyways", "then", "plus", "again", "fwiw", "honestly",
      "seriously", "important", "ps", "p.s", "nb", "and yes", "and no"};
  std::size_t i = 0;
  for (bool changed = true; changed;) {
    changed = false;
    const std::string_view rest = std::string_view(lower).substr(i);
    // "no need to ask", "no -verify", "please stop": the lead is part of the rule.
    if (StartsWithAny(rest, {"no need", "no more", "no longer", "no one", "nobody", "please stop",
                             "actually use", "good practice", "right before"})) {
      if (StartsWithAny(rest, {"please stop"})) {
        i += 7;  // keep "stop …"
        i = SkipPunct(lower, i);
      }
      break;
    }
    if (StartsWithAny(rest, {"actually", "correction", "wait"})) {
      actually = actually || !StartsWithAny(rest, {"wait"});
      i = SkipPunct(lower, i + rest.find_first_of(" ,:.-") );
      if (i >= lower.size()) break;
      changed = true;
      continue;
    }
    for (std::string_view l : kLeads) {
      if (StartsWithAny(rest, {l})) {
        const std::size_t next = SkipPunct(lower, i + l.size());
        if (next == i + l.size() && next < lower.size()) continue;  // "sounds" ≠ "so"
        i = next;
        changed = true;
        break;
      }
    }
  }
  return i;
}

bool IsQuestion(std::string_view lower) {
  std::string_view t = lower;
  while (!t.empty() && (t.back() == ' ' || t.back() == '"' || t.back() == ')' ||
                        t.back() == '\'' || t.back() == '*')) {
    t.remove_suffix(1);
  }
  if (!t.empty() && t.back() == '?') return true;
  const auto words = WordsOf(lower);
  if (words.size() >= 2) {
    static const Phrases kAux = {"should", "shall", "can", "could", "would", "do", "does",
                                 "did", "is", "are", "was", "were", "will", "have", "has",
                                 "am", "may", "must", "isn't", "aren't", "shouldn't",
                                 "don't", "doesn't", "won't", "wouldn't", "can't"};
    static const Phrases kSubj = {"we", "you", "i", "it", "they", "there", "this", "that",
                                  "the", "our", "anyone", "everyone", "he", "she"};
    if (In(words[0], kAux) && In(words[1], kSubj)) return true;
    static const Phrases kWh = {"what", "why", "how", "which", "where", "who", "whats", "what's"};
    static const Phrases kAfterWh = {"do", "does", "did", "is", "are", "should", "would", "can",
                                     "could", "will", "about", "if", "was", "were", "have",
                                     "has", "kind", "else", "exactly"};
    if (In(words[0], kWh) && In(words[1], kAfterWh)) return true;
    if (words[0] == "when" && In(words[1], {"do", "does", "did", "should", "will", "is", "are"})) {
      return true;
    }
  }
  return HasAny(lower, {"or is it", "or should", "or not", "isn't it", "aren't we",
                        "don't you think", "wdyt", "what do you think", "any objections",
                        "does that make sense", "do you agree", "right?", "or would", "or do we",
                        "or is that", "thoughts"});
}

bool IsHedge(std::string_view lower) {
  return HasAny(lower, {"not sure", "unsure", "i wonder", "wondering", "maybe", "perhaps",
                        "i guess", "i suppose", "probably", "possibly", "i think", "i feel like",
                        "i reckon", "might", "not convinced", "thinking about", "thinking of",
                        "considering", "we could", "idk", "dunno", "not certain", "i'm torn",
                        "on the fence", "no idea", "debating", "undecided", "tbd",
                        "to be decided", "haven't decided", "have not decided", "still deciding",
                        "not decided", "open question", "i doubt", "who knows", "kinda", "sorta",
                        "hard to say", "not convinced", "i'm curious", "curious whether",
                        "curious if", "let me think", "need to think", "food for thought"});
}

bool IsHypothetical(std::string_view lower) {
  if (HasAny(lower, {"if we ever", "if ever", "if we decide", "if we were", "if we switch",
                     "if we move", "if we go", "if we end up", "if i ever", "if someday",
                     "suppose", "supposing", "imagine", "hypothetically", "what if",
                     "in a world where", "say we", "let's say", "assuming we", "were we to",
                     "would be nice", "would be great", "would be cool", "it'd be nice",
                     "it'd be great", "someday", "some day", "one day", "eventually",
                     "at some point", "in theory", "theoretically", "if it were up to me",
                     "in an ideal world", "ideally", "i wish", "we wish", "if only",
                     "if we had", "if we ever", "in case we ever", "if the team ever",
                     "if anyone ever", "would have", "could have", "should have"})) {
    return true;
  }
  // "would"/"'d" are conditional unless they make a first-person preference.
  for (std::size_t p = FindPhrase(lower, "would"); p != std::string_view::npos;
       p = FindPhrase(lower, "would", p + 1)) {
    const std::string_view before = lower.substr(p > 2 ? p - 2 : 0, p > 2 ? 2 : p);
    const std::string_view after = lower.substr(p + 5, 8);
    if (before != "i " || !(StartsWith(after, " prefer") || StartsWith(after, " rather") ||
                            StartsWith(after, " like"))) {
      return true;
    }
  }
  for (std::size_t p = lower.find("'d "); p != std::string_view::npos; p = lower.find("'d ", p + 1)) {
    const std::string_view who = lower.substr(p >= 1 ? p - 1 : 0, 1);
    const std::string_view after = lower.substr(p + 3, 7);
    if (who != "i" || !(StartsWith(after, "prefer") || StartsWith(after, "rather") ||
                        StartsWith(after, "like"))) {
      return true;
    }
  }
  return false;
}

bool IsReported(std::string_view lower) {
  if (HasAny(lower, {"according to", "apparently", "was told", "were told", "been told",
                     "rumor", "rumour", "'s rule", "'s policy", "'s preference",
                     "'s convention", "the docs say", "the readme says", "the wiki says",
                     "the guide says", "people say", "they say", "someone said",
                     "somebody said", "heard that", "i heard", "i read that", "keeps saying",
                     "kept saying", "keeps telling", "kept telling", "is always saying",
                     "always says", "always tells", "keeps insisting", "likes to say"})) {
    return true;
  }
  static const Phrases kVerbs = {"says", "said", "saying", "tells", "told", "thinks",
                                 "thought", "claims", "claimed", "argues", "argued",
                                 "suggested", "suggests", "mentioned", "mentions", "insists",
                                 "insisted", "reckons", "wrote", "posted",
                                 "complains", "complained", "proposed", "proposes",
                                 "recommends", "recommended", "swears", "believes", "believed",
                                 "wants", "asked", "asks", "warned", "warns", "quoted"};
  const auto words = WordsOf(lower);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (!In(words[i], kVerbs)) continue;
    // "I said", "we told them", "as I mentioned", "told you": the human's own word.
    bool own = false;
    for (std::size_t k = i >= 3 ? i - 3 : 0; k < i; ++k) {
      own = own || In(words[k], {"i", "we", "i've", "we've", "i'd", "i'm"});
    }
    if (i + 1 < words.size() && In(words[i + 1], {"you"}) && (own || i == 0)) continue;
    if (own) continue;
    if (words[i] == "wants" || words[i] == "asked" || words[i] == "asks") {
      // "the client wants us to …": reported; "nobody asked" is not a rule either.
      if (i + 1 < words.size() && In(words[i + 1], {"us", "me", "everyone", "that"})) return true;
      continue;
    }
    return true;
  }
  return false;
}

bool IsPreferencePhrase(std::string_view lower) {
  return StartsWithAny(lower, {"i prefer", "i'd prefer", "i would prefer", "i'd rather",
                               "i would rather", "i hate it when you", "i don't like it when you",
                               "i do not like it when you", "i like it when you", "i never want",
                               "i always want", "i want you to", "i'd like you to",
                               "i would like you to", "i need you to", "i expect you to",
                               "i don't want you to", "i do not want you to", "i want every",
                               "i want all", "i'd like every", "i'd like all", "i want the",
                               "i'd like the"});
}

bool IsSelfRemark(std::string_view lower) {
  if (HasAny(lower, {"i always forget", "i never remember", "i keep forgetting", "i tend to",
                     "i usually", "i often", "note to self", "remind myself", "my bad",
                     "i never got", "i never managed", "i always mess", "i always mix",
                     "i always end up", "i never know", "i can never", "i always have to",
                     "i don't want to always", "i never seem", "i always seem",
                     "i always get", "i never get", "i sometimes", "i forgot", "i always type",
                     "i always misspell", "i never liked", "i always liked", "i always hated",
                     "personally i", "me personally", "for me personally"})) {
    return true;
  }
  if (IsPreferencePhrase(lower)) return false;
  return StartsWithAny(lower, {"i", "i'm", "i've", "i'll", "i was", "im", "ive", "my",
                               "me", "myself"});
}

bool IsLimited(std::string_view lower) {
  std::string s(lower);
  // Durable starts that contain a limiter word.
  for (std::string_view keep : {"from today", "starting today", "as of today", "as of now",
                                "starting now", "from now", "till the end of time",
                                "until i say otherwise", "until i tell you otherwise",
                                "until further notice"}) {
    for (std::size_t p = FindPhrase(s, keep); p != std::string::npos; p = FindPhrase(s, keep)) {
      s.replace(p, keep.size(), std::string(keep.size(), '_'));
    }
  }
  if (HasAny(s, {"for now", "right now", "today", "tonight", "this time", "this once",
                 "just once", "for this one", "on this one", "at the moment", "for the moment",
                 "for the time being", "temporarily", "until i", "until we", "until tomorrow",
                 "until monday", "until after", "until sam", "until alex", "till", "yet", "for the demo", "before the demo",
                 "in this pass", "tomorrow", "later today", "for the rest of the day",
                 "as a one-off", "one-off", "one off", "quick hack", "just here",
                 "in this case", "for this case", "this afternoon", "this morning",
                 "this evening", "this week", "for a while", "for the next", "now that",
                 "for the moment", "currently", "in the meantime", "meanwhile",
                 "for this run", "while sam", "while alex", "while i'm", "while we're",
                 "while i am", "while we are", "before friday", "by friday", "before lunch",
                 "until release", "for the release", "this release", "next release"})) {
    return true;
  }
  static const Phrases kTaskNouns = {
      "branch", "branches", "pr", "mr", "ticket", "task", "session", "change", "changes",
      "commit", "run", "round", "iteration", "sprint", "fix", "bug", "issue", "feature",
      "refactor", "migration", "function", "test", "tests", "script", "module", "class",
      "method", "endpoint", "component", "pass", "patch", "diff", "experiment", "spike",
      "demo", "step", "part", "query", "story", "deploy", "deployment", "rollout", "hotfix",
      "review", "one", "pr's", "investigation", "conversation", "chat", "thread", "job",
      "screen", "page", "hook", "handler", "spec", "ticket's", "incident", "outage", "week",
      "rewrite", "prototype", "poc", "cleanup", "upgrade", "bump", "batch", "dataset",
      "file", "snippet", "loop", "helper", "example", "draft", "attempt", "try"};
  const auto words = WordsOf(s);
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    // Not "that": it is far more often a conjunction ("we agreed that feature flags …").
    if (!In(words[i], {"this", "these", "current", "today's"})) continue;
    if (!In(words[i + 1], kTaskNouns)) continue;
    // "not even for a hotfix like this one", "including this one": the limiter is negated.
    bool negated = false;
    for (std::size_t k = i >= 4 ? i - 4 : 0; k < i; ++k) {
      negated = negated || In(words[k], {"like", "even", "including", "incl", "every", "any"});
    }
    if (!negated) return true;
  }
  return false;
}

bool IsPastNarrative(std::string_view lower) {
  return HasAny(lower, {"used to", "back when", "back then", "last time", "yesterday",
                        "last week", "last month", "last year", "never got", "never managed",
                        "never worked", "never figured", "never bothered", "has always been",
                        "have always been", "always been", "has never been", "have never been",
                        "never been", "never had", "always had", "was always", "were always",
                        "was never", "were never", "never did", "always did", "never heard",
                        "never seen", "we tried", "we had", "never used", "never really",
                        "always felt", "always thought", "never thought", "always wondered",
                        "never understood", "always hated", "never liked", "never noticed",
                        "always worked", "never finished", "never got around"});
}

bool IsNonRule(std::string_view lower) {
  return StartsWithAny(lower, {"never mind", "nevermind", "don't worry", "do not worry",
                               "no worries", "don't know", "don't think", "don't see",
                               "don't understand", "don't get", "don't remember", "don't care",
                               "don't really", "don't mind", "don't have", "dont worry",
                               "never heard", "never seen", "never again will i",
                               "don't panic", "don't sweat"}) ||
         (StartsWithAny(lower, {"don't bother"}) && !HasAny(lower, {"asking", "to ask"})) ||
         // A one-off reminder unless it carries a habit ("make sure to always …").
         (StartsWithAny(lower, {"don't forget", "do not forget", "remember to", "make sure",
                                "be sure to", "please make sure"}) &&
          !HasAny(lower, {"always", "never", "every time", "each time", "whenever", "every",
                          "from now on", "going forward", "in future", "in the future"})) ||
         HasAny(lower, {"always-on", "never-ending", "always on", "never ending",
                        "almost always", "nearly always", "not always", "not never",
                        "almost never", "hardly ever", "always fails", "always breaks",
                        "always times out", "never works", "never passes", "always crashes",
                        "always takes", "always flaky", "always red", "always slow",
                        "never loads", "never finishes", "always been"});
}

// "don't push it", "never do that": a prohibition whose object is the thing at hand.
bool IsDeicticProhibition(std::string_view lower) {
  const auto words = WordsOf(lower);
  std::size_t v = 0;
  if (!words.empty() && In(words[0], {"don't", "dont", "never"})) {
    v = 1;
  } else if (words.size() > 1 && words[0] == "do" && words[1] == "not") {
    v = 2;
  } else {
    return false;
  }
  if (v + 1 >= words.size()) return v + 1 > words.size() - 0;  // "don't do" alone
  if (!In(words[v + 1], {"it", "that", "this", "them", "those", "these", "yet", "now"})) {
    return false;
  }
  return !HasAny(lower, {"again", "ever", "anymore", "any more", "from now on", "going forward",
                         "in future", "in the future"});
}

// ---- positive features --------------------------------------------------------------------

const Phrases& ScopeWords() {
  static const Phrases k = {
      "from now on",      "from here on",       "from here on out",  "going forward",
      "moving forward",   "in future",          "in the future",     "for future",
      "henceforth",       "from this point on", "from this point",   "from today",
      "starting today",   "as of today",        "as of now",         "starting now",
      "in this repo",     "in this project",    "in this codebase",  "in this repository",
      "across the codebase", "across the repo", "in our repo",       "in our codebase",
      "in this monorepo", "everywhere in",      "project-wide",      "repo-wide",
      "in this workspace", "for this repo",     "for this project",  "for this codebase",
      "in this team",     "on this team",       "on this project",   "for all future",
      "from now",         "for the future",     "future sessions",   "next sessions",
      "any future",       "all future",         "whoever works on",  "until further notice"};
  return k;
}

bool HasLabel(std::string_view lower, std::string& label_kind, std::size_t& body_at) {
  const std::size_t colon = lower.find(':');
  if (colon == std::string_view::npos || colon > 70 || WordCount(lower.substr(0, colon)) > 8 ||
      colon + 2 >= lower.size()) {
    return false;
  }
  const std::string_view label = lower.substr(0, colon);
  if (HasAny(label, {"note to self", "todo", "to do", "for now", "today", "question", "q",
                     "update", "status", "error", "log", "output", "result", "here", "step",
                     "example", "e.g", "i.e"})) {
    return false;
  }
  body_at = SkipPunct(lower, colon + 1);
  if (HasAny(label, {"rule", "rules", "convention", "conventions", "policy", "policies",
                     "guideline", "guidelines", "settled", "decision", "decided", "standard",
                     "ground rule", "golden rule", "principle", "house style", "house rule",
                     "rule of thumb", "norm"})) {
    label_kind = HasAny(label, {"rule of thumb"}) ? "preference" : "decision";
    return true;
  }
  if (HasAny(label, {"preference", "preferences", "pref", "style", "tip", "pro tip", "protip",
                     "default", "defaults", "going forward", "from now on", "always", "never",
                     "permanent", "standing", "habit"})) {
    label_kind = "preference";
    return true;
  }
  if (HasAny(label, {"note for", "notes for", "for future", "future reference", "heads-up",
                     "heads up", "reminder", "fyi", "psa", "for the record", "for whoever",
                     "for next time", "next time", "lesson", "lesson learned", "lessons learned",
                     "takeaway", "important", "fact", "context", "background", "remember",
                     "keep in mind", "nb", "n.b", "note", "for context", "worth knowing",
                     "good to know", "for the future"})) {
    label_kind = "fact";  // refined from the body below
    return true;
  }
  return false;
}

bool StartsImperative(std::string_view lower) {
  return StartsWithAny(
      lower,
      {"use", "run", "keep", "put", "write", "add", "make", "prefer", "avoid", "name", "call",
       "prefix", "format", "commit", "push", "open", "link", "tag", "pin", "bump", "check",
       "test", "lint", "document", "mention", "include", "place", "store", "log", "wrap",
       "return", "stick", "treat", "route", "squash", "rebase", "merge", "label", "split",
       "target", "reply", "answer", "cc", "ping", "leave", "let", "skip", "ask", "tell",
       "show", "print", "send", "go", "start", "finish", "end", "default", "sign", "type",
       "annotate", "comment", "describe", "explain", "summarize", "summarise", "reference",
       "cite", "quote", "update", "regenerate", "rerun", "re-run", "verify", "validate",
       "double-check", "confirm", "review", "read", "look", "search", "grep", "pipe", "route",
       "deploy", "release", "ship", "publish", "build", "compile", "install", "import",
       "export", "declare", "define", "set", "configure", "enable", "disable", "turn",
       "lock", "sort", "order", "group", "batch", "cache", "retry", "throw", "raise", "catch",
       "handle", "validate", "escape", "sanitize", "quote", "write", "respond", "mark",
       "close", "delete", "remove", "rename", "move", "copy", "create", "generate", "follow",
       "stop", "quit", "favor", "favour", "choose", "pick", "reach", "work", "talk", "give"});
}

bool HasContrast(std::string_view lower) {
  return lower.find(", not ") != std::string_view::npos ||
         HasAny(lower, {"instead of", "rather than", "not the", "and not", "over the", "never the"}) ||
         ((HasPhrase(lower, "over") || HasPhrase(lower, "not")) &&
          StartsWithAny(lower, {"prefer", "use", "favor", "favour", "choose", "pick"}));
}

bool HasHabit(std::string_view lower) {
  return HasAny(lower, {"every time", "each time", "whenever", "every single time", "by default",
                        "as a rule", "unless i say otherwise", "unless i tell you otherwise",
                        "unless told otherwise", "unless i ask", "unless i say so",
                        "unless i explicitly", "unless asked", "unless i specifically",
                        "after every", "before every", "every commit", "every pr",
                        "every change", "every push", "every release", "every merge",
                        "every new", "at all times", "under no circumstances", "ever again",
                        "no matter what", "without exception", "each and every",
                        "in general", "generally", "as standard", "standard practice",
                        "any time you", "anytime you", "any time we", "anytime we",
                        "each new", "keep it that way", "keep it like that", "that's final",
                        "and that's final", "that's the rule", "no exceptions", "stays that way"});
}

bool HasPermission(std::string_view lower) {
  return HasAny(lower, {"you don't need to ask", "you do not need to ask", "no need to ask",
                        "you don't have to ask", "you needn't ask", "don't ask me before",
                        "don't ask before", "don't ask for permission", "don't ask for confirmation",
                        "do not ask before", "do not ask for", "don't bother asking",
                        "without asking", "feel free to", "you're allowed to", "you are allowed to",
                        "you have permission", "you have my permission", "you may always",
                        "you can always", "go ahead and", "no need to check with me",
                        "don't need my approval", "don't need approval", "no need for approval",
                        "you don't need permission", "you don't need my ok", "you don't need my okay",
                        "without checking with me", "without confirmation", "no need to confirm",
                        "you don't need to confirm", "don't wait for me", "default to",
                        "unless i say otherwise", "unless i tell you otherwise",
                        "each time you finish", "every time you finish", "whenever you finish",
                        "each time you're done", "whenever you're done", "every time you're done",
                        "once you finish any", "after you finish any", "each time you add",
                        "each time you change", "whenever you change", "whenever you add",
                        "whenever you touch", "each time you touch", "every time you touch"}) ||
         (StartsWithAny(lower, {"stop", "quit"}) && [&] {
           const auto words = WordsOf(lower);
           return words.size() > 1 && words[1].size() > 4 &&
                  words[1].substr(words[1].size() - 3) == "ing";
         }());
}

bool HasDecisionVerb(std::string_view lower) {
  return HasAny(lower, {"we decided", "we've decided", "we have decided", "we agreed",
                        "we've agreed", "we have agreed", "we settled on", "we've settled on",
                        "we have settled on", "we chose", "we've chosen", "we have chosen",
                        "we went with", "we're going with", "we are going with",
                        "we'll go with", "we will go with", "we standardized", "we standardised",
                        "we've standardized", "we've standardised", "we're sticking with",
                        "we are sticking with", "we stick with", "the decision is",
                        "the decision was", "the team decided", "the team agreed",
                        "it was decided", "we've switched to", "we switched to",
                        "we moved to", "we've moved to", "we migrated to", "we've migrated",
                        "it's settled", "it is settled", "that's settled", "this is settled",
                        "final decision", "we've committed to", "we committed to",
                        "signed off on", "we've adopted", "we adopted", "agreed with",
                        "we've landed on", "we landed on", "we made the call",
                        "the call is", "the call was", "we're standardizing",
                        "we are standardizing", "we're standardising", "decided that",
                        "decided to", "we voted"});
}

bool HasFactMarker(std::string_view lower) {
  return StartsWithAny(lower, {"remember that", "remember:", "remember,", "keep in mind",
                               "bear in mind", "be aware", "note that", "fyi", "just so you know",
                               "for context", "worth knowing", "good to know",
                               "for the record", "heads up", "heads-up", "for your information",
                               "important:", "don't forget that", "never forget that",
                               "always remember that", "remember the", "remember we",
                               "remember our", "please remember", "please note",
                               "keep it in mind", "note:"}) ||
         HasAny(lower, {"remember that", "keep in mind that", "bear in mind that"});
}

bool HasFraming(std::string_view lower) {
  return StartsWithAny(
      lower, {"the convention here is", "the convention is", "our convention is", "convention here",
              "the convention in", "our convention", "for future reference", "for the future",
              "for future sessions", "for next time", "for whoever", "heads-up for",
              "heads up for", "it's settled", "it is settled", "for the record", "as a rule",
              "as a general rule", "in general", "generally", "by default", "our policy is",
              "the policy is", "the policy here", "our policy", "the standard is",
              "the standard here", "house rule", "the rule is", "the rule here",
              "the rule of thumb", "rule of thumb", "the norm here", "the norm is",
              "the way we do it", "the way we do things", "the expectation is",
              "our practice is", "standard practice", "the default is", "our default is",
              "the default here", "we never", "we always", "we don't", "we do not",
              "we only", "we use", "we're using", "we are using", "we prefer", "we keep",
              "we squash", "we rebase", "we deploy", "we ship", "we name", "we write",
              "we pin", "we target", "we store", "we follow", "we're on", "we are on",
              "we run", "we require", "we test", "we lint", "we format", "we tag",
              "we version", "we release", "we review", "we merge", "we put", "we document",
              "we log", "we avoid", "we treat", "we support", "we host", "our rule",
              "everything goes", "everything must", "everything should", "all changes",
              "every change", "every pr", "every commit", "all prs", "all commits",
              "nothing goes", "nobody", "no one", "nothing gets", "only ever",
              "the general rule", "a standing rule", "standing rule", "standing order",
              "going forward", "from now on", "from here on", "moving forward", "henceforth",
              "in future", "in the future"});
}

// A rule in a later clause: "Since the client is committed, always regenerate it",
// "integration tests only run nightly, never on PRs", "the parser uses winnow, keep it".
bool HasClauseRule(std::string_view lower) {
  const bool reason = StartsWithAny(lower, {"since", "because", "given that", "given", "as",
                                            "seeing that", "seeing as"});
  for (std::size_t p = 0; (p = lower.find_first_of(",;", p)) != std::string_view::npos; ++p) {
    const std::size_t q = SkipPunct(lower, p + 1);
    const std::string_view rest = lower.substr(q);
    if (StartsWithAny(rest, {"always", "never", "don't", "do not", "please always",
                             "please never", "so always", "so never", "so don't",
                             "then always", "and always", "and never", "but never",
                             "but always"})) {
      return true;
    }
    if (reason && StartsImperative(rest)) return true;
  }
  return false;
}

// "release branches are never rebased", "secrets are always kept in vault".
bool HasPassiveRule(std::string_view lower) {
  static const Phrases kIrregular = {"done", "run", "written", "made", "kept", "built", "taken",
                                     "given", "shown", "sent", "set", "put", "read", "held",
                                     "thrown", "shipped", "split", "cut"};
  const auto words = WordsOf(lower);
  for (std::size_t i = 0; i + 2 < words.size(); ++i) {
    if (!In(words[i], {"is", "are", "gets", "get"}) || !In(words[i + 1], {"never", "always"})) continue;
    const std::string_view w = words[i + 2];
    if ((w.size() > 3 && w.substr(w.size() - 2) == "ed") || In(w, kIrregular)) return true;
  }
  return false;
}

bool HasModalRule(std::string_view lower) {
  return HasAny(lower, {"must", "mustn't", "must not", "shall", "shall not", "is required",
                        "are required", "is not allowed", "are not allowed", "aren't allowed",
                        "isn't allowed", "is forbidden", "are forbidden", "is off-limits",
                        "are off-limits", "is off limits", "are off limits", "is mandatory",
                        "are mandatory", "only ever", "goes through", "should always", "should never", "need to always",
                        "needs to always", "has to always", "have to always", "always needs",
                        "always need", "never needs", "is never allowed", "are never allowed",
                        "cannot ever", "can never", "can't ever", "always has to",
                        "always have to", "never gets", "never get", "always gets",
                        "always get", "always goes", "always go", "never go", "never goes",
                        "always lives", "always live", "always runs", "always run",
                        "never runs", "never run", "always use", "never use", "always uses",
                        "never uses", "always target", "always targets", "never touch",
                        "never touches", "never call", "never calls", "always call",
                        "always calls", "always be", "never be"});
}

bool IsProhibition(std::string_view lower) {
  return StartsWithAny(lower, {"never", "don't", "dont", "do not", "no more", "no longer",
                               "under no circumstances", "nobody", "no one", "nothing"}) ||
         HasAny(lower, {"must not", "mustn't", "must never", "should never", "not allowed",
                        "forbidden", "off-limits", "off limits", "is never", "are never",
                        "can never", "cannot ever", "never push", "never merge", "never commit",
                        "never delete", "never deploy", "never run", "never touch",
                        "never use", "never call", "never edit", "never write", "never skip",
                        "never force"});
}

// "Just so you know, prefer streaming writes": the marker introduces an instruction.
bool MarkerIntroducesImperative(std::string_view lower) {
  const std::size_t cut = lower.find_first_of(",:");
  if (cut == std::string_view::npos || cut > 40) return false;
  const std::string_view rest = lower.substr(SkipPunct(lower, cut + 1));
  return StartsImperative(rest) || StartsWithAny(rest, {"always", "never", "don't", "do not"});
}

std::string Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '-' ||
                        s.front() == '*' || s.front() == '"')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '"')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

bool IsInjectedMessage(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
  const std::string head = FoldText(text.substr(i, 120), true);
  return StartsWithAny(head, {"# agents.md", "<user_instructions>", "<instructions>",
                              "<environment_context>", "# claude.md", "contents of ",
                              "this session is being continued from a previous conversation",
                              "<system-reminder>", "<permissions instructions>",
                              "# repository guidelines", "caveat: the messages below",
                              "<command-name>", "<local-command-stdout>", "<bash-input>",
                              "<bash-stdout>", "[request interrupted", "<user-prompt-submit-hook>",
                              "<task-notification>", "<developer>", "<system>"});
}

std::optional<DurableStatement> ClassifyStatement(std::string_view sentence) {
  Clause c;
  c.text = FoldText(sentence, false);
  c.lower = FoldText(sentence, true);
  // A revision keeps only what comes after it.
  std::size_t start = 0;
  if (const std::size_t r = AfterRevision(c.lower); r != std::string::npos) {
    const std::size_t body = SkipPunct(c.lower, r);
    if (WordCount(std::string_view(c.lower).substr(body)) >= 3) {
      start = body;
      c.revised = true;
      for (std::string_view m : kCorrecting) {
        c.actually = c.actually || (r >= m.size() && c.lower.compare(r - m.size(), m.size(), m) == 0);
      }
    }
  }
  // The statement keeps its opener as typed ("Also, we decided …"); the features are read
  // without it.
  const std::string text = Trimmed(std::string_view(c.text).substr(start));
  std::string lower_rest = c.lower.substr(start);
  const std::size_t lead = SkipLeads(lower_rest, c.actually);
  const std::string lower = Trimmed(std::string_view(lower_rest).substr(lead));
  if (WordCount(lower) < 3) return std::nullopt;

  std::string label_kind;
  std::size_t body_at = 0;
  const bool label = HasLabel(lower, label_kind, body_at);
  const std::string_view body = label ? std::string_view(lower).substr(body_at) : std::string_view(lower);
  bool body_actually = false;
  std::string body_lead_free(body.substr(SkipLeads(std::string(body), body_actually)));

  const bool decision_verb = HasDecisionVerb(lower);

  std::string why;
  auto add = [&](const char* f) {
    if (!why.empty()) why += '+';
    why += f;
  };
  const bool correction =
      (c.actually || StartsWithAny(body_lead_free, {"that's wrong", "that is wrong",
                                                    "that's not right", "not quite",
                                                    "you got it wrong", "that's incorrect",
                                                    "wrong"})) &&
      (HasContrast(lower) || HasAny(lower, {"not", "isn't", "aren't", "doesn't", "don't"}));
  if (label) add("label");
  if (HasFraming(body_lead_free)) add("framing");
  if (HasAny(lower, ScopeWords())) add("scope");
  if (decision_verb) add("decision-verb");
  if (HasFactMarker(body_lead_free)) add("remember");
  if (HasPermission(body_lead_free)) add("permission");
  const bool imperative = StartsImperative(body_lead_free);
  const bool starts_habit = StartsWithAny(body_lead_free, {"always", "never", "don't", "dont",
                                                           "do not", "every time", "each time",
                                                           "whenever"});
  if (starts_habit) add("habitual-imperative");
  if (HasModalRule(lower)) add("modal");
  if (HasClauseRule(body_lead_free)) add("clause-rule");
  if (HasPassiveRule(lower)) add("passive-rule");
  if (HasAny(lower, {"under no circumstances", "no matter what", "at all times", "without exception",
                     "in all cases", "in every case"})) {
    add("absolute");
  }
  if (HasAny(lower, {"keep it that way", "keep it like that", "that's final", "that's the rule",
                     "no exceptions", "stays that way", "for good"})) {
    add("standing");
  }
  if (imperative && (HasHabit(lower) || HasContrast(lower))) add("imperative+habit");
  if (StartsWithAny(body_lead_free, {"prefer", "favor", "favour"})) add("prefer");
  if (IsPreferencePhrase(body_lead_free) &&
      (StartsWithAny(body_lead_free, {"i prefer", "i'd prefer", "i would prefer", "i'd rather",
                                      "i would rather", "i hate it when you", "i don't like it when you",
                                      "i do not like it when you", "i like it when you",
                                      "i never want", "i always want"}) ||
       HasHabit(lower) || HasAny(lower, ScopeWords()) || HasAny(lower, {"always", "never"}))) {
    add("first-person-preference");
  }
  if (HasHabit(lower) && !imperative && (HasPhrase(lower, "you") || HasPhrase(lower, "we"))) {
    add("habit");
  }
  if (correction) add("correction");
  // Positive features first: most sentences have none and stop here (ingest speed).
  if (why.empty()) return std::nullopt;
  // Vetoes, on the whole clause (a label does not make a question a rule).
  if (IsQuestion(lower) || IsHedge(lower) || IsHypothetical(lower) || IsReported(lower) ||
      IsSelfRemark(body_lead_free) || IsLimited(lower) || IsNonRule(body_lead_free) ||
      IsDeicticProhibition(body_lead_free)) {
    return std::nullopt;
  }
  if (IsPastNarrative(lower) && !decision_verb) return std::nullopt;

  DurableStatement st;
  st.text = text;
  st.why = why;
  // "Don't add dependencies without asking" forbids; "don't ask before …" permits.
  const bool permission =
      HasPermission(body_lead_free) &&
      (!IsProhibition(body_lead_free) ||
       StartsWithAny(body_lead_free, {"don't ask", "do not ask", "don't bother asking",
                                      "don't wait for me", "don't need", "do not need"}));
  if (correction) {
    st.kind = "correction";
  } else if (label && label_kind == "decision") {
    st.kind = "decision";
  } else if (decision_verb && HasAny(lower, {"agreed with", "signed off on"}) &&
             !HasAny(lower, {"we agreed that", "we've agreed that", "we agreed to"})) {
    st.kind = "fact";  // an agreement with a third party: a fact the agent must respect
  } else if (decision_verb || (!permission && IsProhibition(body_lead_free)) ||
             StartsWithAny(body_lead_free, {"we use", "we're using", "we are using", "we deploy",
                                            "we only", "we never", "we don't", "we do not"}) ||
             HasAny(lower, {"from now on we use", "going forward we use", "from now on we're",
                            "going forward we're"}) ||
             HasAny(lower, {"must", "the rule is", "the rule here", "our rule", "policy",
                            "it's settled", "it is settled", "the convention"})) {
    st.kind = "decision";
  } else if ((HasFactMarker(body_lead_free) && !MarkerIntroducesImperative(body_lead_free)) ||
             (label && label_kind == "fact" && !imperative && !starts_habit && !permission) ||
             (StartsWithAny(body_lead_free, {"the", "our"}) && !imperative && !permission) ||
             (StartsWithAny(body_lead_free, {"for future reference", "for the record", "for context",
                                             "heads-up", "heads up", "fyi", "note for"}) &&
              !StartsImperative(std::string_view(body_lead_free).substr(
                  SkipPunct(body_lead_free, body_lead_free.find_first_of(",:") == std::string::npos
                                                ? body_lead_free.size()
                                                : body_lead_free.find_first_of(",:") + 1))))) {
    st.kind = "fact";
  } else {
    st.kind = "preference";
  }
  if (auto sv = FindSubjectValue(text)) {
    st.subject = std::move(sv->subject);
    st.value = std::move(sv->value);
  }
  return st;
}

std::vector<DurableStatement> FindDurableStatements(std::string_view human_text) {
  std::vector<DurableStatement> found;
  if (IsInjectedMessage(human_text)) return found;
  const std::string clean = StripPastedMaterial(human_text);
  std::size_t pos = 0;
  while (pos < clean.size()) {
    std::size_t nl = clean.find('\n', pos);
    if (nl == std::string::npos) nl = clean.size();
    const std::string_view line = std::string_view(clean).substr(pos, nl - pos);
    pos = nl + 1;
    for (const std::string& sentence : SplitSentences(line)) {
      auto st = ClassifyStatement(sentence);
      if (!st) continue;
      const std::string key = NormalizeKey(st->text);
      bool dup = false;
      for (auto it = found.begin(); it != found.end();) {
        if (NormalizeKey(it->text) == key) {
          dup = true;
          break;
        }
        // A later value for the same subject replaces the earlier one ("… but use Y").
        if (!st->subject.empty() && it->subject == st->subject) {
          it = found.erase(it);
        } else {
          ++it;
        }
      }
      if (!dup) found.push_back(std::move(*st));
    }
  }
  return found;
}

}  // namespace kioku::episodic
