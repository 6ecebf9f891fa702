#include "rivals.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <stdexcept>

#include "recall.hpp"

namespace kioku::semantic {
namespace {

struct Category {
  std::string_view name;
  std::vector<std::string_view> members;
};

// Interchangeable choices: naming a different member of one list is a different value for
// the same question. Kept to lists where two members rarely hold at once in one scope
// (languages, for example, are left out: a repository mixes them). Sorted by name, members
// too, once built: a profile lists categories in name order, and ClassifyPair names the
// first disjoint category and the first member of each side. At most 32 (a word's
// categories are a bit mask).
const std::vector<Category>& Categories() {
  static const std::vector<Category> kCategories = [] {
    std::vector<Category> out = {
        {"package-manager", {"npm", "pnpm", "yarn", "bun"}},
        {"python-package-manager", {"pip", "poetry", "uv", "pipenv", "conda", "pdm", "hatch"}},
        {"js-runtime", {"node", "nodejs", "deno", "bun"}},
        {"test-runner", {"jest", "vitest", "mocha", "jasmine", "ava", "pytest", "unittest", "nose",
                         "gtest", "googletest", "catch2", "doctest"}},
        {"bundler", {"webpack", "vite", "rollup", "esbuild", "parcel", "turbopack", "rspack"}},
        {"database", {"postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "mongo",
                      "dynamodb", "cockroachdb", "oracle"}},
        {"build-system", {"cmake", "bazel", "meson", "autotools", "scons", "buck", "premake"}},
        {"formatter", {"prettier", "biome", "black", "yapf", "autopep8", "dprint"}},
        {"linter", {"eslint", "oxlint", "tslint", "flake8", "pylint", "ruff"}},
        {"branch", {"main", "master", "develop", "trunk"}},
        {"indentation", {"tabs", "tab", "spaces", "space"}},
        {"ci", {"jenkins", "circleci", "travis", "buildkite", "drone", "teamcity"}},
        {"cloud", {"aws", "gcp", "azure"}},
        {"orm", {"prisma", "drizzle", "typeorm", "sequelize", "sqlalchemy", "knex"}},
        {"web-framework", {"express", "fastify", "koa", "hono", "nestjs", "flask", "django",
                           "fastapi"}},
        {"ui-framework", {"react", "vue", "svelte", "angular", "solid", "preact"}},
        {"license", {"mit", "apache", "gpl", "bsd", "mpl"}},
        {"container-runtime", {"docker", "podman"}},
        {"editor", {"vim", "neovim", "emacs", "vscode"}},
        {"log-level", {"trace", "debug", "info", "warn", "warning", "error", "fatal"}},
        {"weekday", {"monday", "mondays", "tuesday", "tuesdays", "wednesday", "wednesdays", "thursday",
                     "thursdays", "friday", "fridays", "saturday", "saturdays", "sunday", "sundays"}},
    };
    std::sort(out.begin(), out.end(), [](const Category& a, const Category& b) { return a.name < b.name; });
    for (Category& c : out) std::sort(c.members.begin(), c.members.end());
    // WordInfo holds a category set in 32 bits; checked in every build.
    if (out.size() > 32) throw std::logic_error("rivals.cpp Categories: more than 32 categories");
    return out;
  }();
  return kCategories;
}

constexpr int kNoCategory = -1;

int CategoryIndex(std::string_view name) {
  const std::vector<Category>& all = Categories();
  const auto it = std::lower_bound(all.begin(), all.end(), name,
                                   [](const Category& c, std::string_view n) { return c.name < n; });
  return it != all.end() && it->name == name ? static_cast<int>(it - all.begin()) : kNoCategory;
}

// Subject keys that name a category ("package-manager" → package-manager).
int CategoryOfSubject(std::string_view subject) {
  static const std::map<std::string_view, std::string_view, std::less<>> kAliases = {
      {"package-manager", "package-manager"}, {"pm", "package-manager"},
      {"js-package-manager", "package-manager"}, {"node-package-manager", "package-manager"},
      {"python-package-manager", "python-package-manager"}, {"runtime", "js-runtime"},
      {"js-runtime", "js-runtime"}, {"test-runner", "test-runner"},
      {"test-framework", "test-runner"}, {"bundler", "bundler"}, {"database", "database"},
      {"db", "database"}, {"build-system", "build-system"}, {"build-tool", "build-system"},
      {"formatter", "formatter"}, {"linter", "linter"}, {"default-branch", "branch"},
      {"branch", "branch"}, {"main-branch", "branch"}, {"indentation", "indentation"},
      {"indent", "indentation"}, {"ci", "ci"}, {"cloud", "cloud"}, {"orm", "orm"},
      {"license", "license"}, {"web-framework", "web-framework"}, {"framework", "web-framework"},
      {"ui-framework", "ui-framework"}, {"editor", "editor"}};
  if (subject.empty()) return kNoCategory;
  const auto it = kAliases.find(subject);
  return it == kAliases.end() ? kNoCategory : CategoryIndex(it->second);
}

// What the profile needs to know of a word, in one hash lookup per word (the profile is built
// for every memory a write stores): its classes, the categories it is a member of, and the
// categories it is a cue for.
enum WordClass : unsigned {
  kNegator = 1u << 0,      // "not", "never", "don't": the text says the opposite
  kDemoter = 1u << 1,      // "from", "instead", "replaced": a member right after is not asserted
  kFiller = 1u << 2,       // carries no topic even where recall's stopwords keep it
  kCounterNoun = 1u << 3,  // "issue 12", "step 3": a number after it names a thing, not a value
  kLocationCue = 1u << 4,  // "lives", "moved", "path": a path in the text is where something is
  kStopword = 1u << 5,     // recall's stopwords (IsStopword)
};

struct WordInfo {
  unsigned classes = 0;
  std::uint32_t categories = 0;  // bit i: a member of Categories()[i] ("bun": package-manager, js-runtime)
  std::uint32_t cues = 0;        // bit i: a word that makes members of Categories()[i] count
};

std::uint32_t Bit(int category) { return std::uint32_t{1} << category; }

// Members that are also everyday words count only next to a cue word ("main" names a
// branch in "merge to main", not in "the main config file").
const std::vector<std::pair<std::string_view, std::vector<std::string_view>>>& Cues() {
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> kCues = {
      {"branch", {"branch", "branches", "merge", "merged", "push", "pushed", "rebase", "checkout", "pr"}},
      {"indentation", {"indent", "indentation", "indented", "indenting", "whitespace"}},
      {"license", {"license", "licensed", "licence"}},
      {"js-runtime", {"runtime", "run", "runs", "execute", "server", "scripts", "script"}},
      {"editor", {"editor", "edit", "ide"}},
      {"log-level", {"log", "logs", "logging", "level", "loglevel", "verbosity", "logger"}},
  };
  return kCues;
}

// The categories whose members need a cue word.
std::uint32_t CuedCategories() {
  static const std::uint32_t kCued = [] {
    std::uint32_t out = 0;
    for (const auto& [category, cues] : Cues()) out |= Bit(CategoryIndex(category));
    return out;
  }();
  return kCued;
}

// Every word the profile has a class, a category or a cue for, in one open-addressing table
// (linear probing, at most half full): one short probe per word of a text, where a
// std::unordered_map hashed every byte and divided (~140 instructions a word). Keys view
// string literals, so they live as long as the table.
class Lexicon {
 public:
  Lexicon() {
    const auto add = [&](WordClass c, std::initializer_list<std::string_view> words) {
      for (std::string_view w : words) At(w).classes |= c;
    };
    add(kNegator,
        {"not", "never", "no", "don't", "dont", "doesn't", "doesnt", "avoid", "without", "nor",
         "shouldn't", "mustn't", "cannot", "can't", "isn't", "aren't", "won't", "stop", "disable",
         "disabled", "forbid", "forbidden"});
    add(kDemoter,
        {"from", "not", "instead", "over", "than", "replace", "replaced", "replaces", "replacing",
         "drop", "dropped", "dropping", "ditch", "ditched", "without", "no", "never", "abandon",
         "abandoned", "remove", "removed", "stop", "stopped", "leave", "left", "old", "former",
         "formerly", "previously", "was", "were", "deprecated", "away", "avoid", "don't", "dont",
         "off", "retired", "retire", "ex"});
    add(kFiller,
        {"actually", "now", "everything", "always", "please", "also", "really", "still", "new",
         "switched", "switch", "moved", "move", "one", "thing", "things", "like", "prefer",
         "prefers", "preferred", "want", "wants", "make", "sure", "here", "project", "repo",
         "repository", "team", "everywhere", "from", "onward", "onwards", "today", "anymore",
         "longer", "more", "must", "let", "let's", "lets", "instead", "over", "rather", "via",
         "each", "every", "only"});
    add(kCounterNoun,
        {"issue", "issues", "pr", "prs", "ticket", "bug", "step", "item", "line", "row", "case",
         "test", "task", "chapter", "section", "part", "phase", "memory", "note", "number", "no",
         "id", "job", "build", "run", "page", "figure", "table", "option", "rule", "story",
         "sprint", "week", "day"});
    add(kLocationCue,
        {"lives", "live", "located", "location", "stored", "store", "moved", "move", "kept", "keep",
         "resides", "path", "paths", "directory", "directories", "dir", "folder", "folders", "goes",
         "placed", "sits", "found", "relocated", "renamed"});
    for (std::string_view w : Stopwords()) At(w).classes |= kStopword;
    const std::vector<Category>& categories = Categories();
    for (std::size_t i = 0; i < categories.size(); ++i) {
      for (std::string_view m : categories[i].members) At(m).categories |= Bit(static_cast<int>(i));
    }
    for (const auto& [category, cues] : Cues()) {
      for (std::string_view w : cues) At(w).cues |= Bit(CategoryIndex(category));
    }
  }

  WordInfo Find(std::string_view w) const {
    if (w.size() > longest_) return {};
    for (std::size_t i = Hash(w) & kMask;; i = (i + 1) & kMask) {
      const Slot& s = slots_[i];
      if (s.word.empty()) return {};
      if (s.word == w) return s.info;
    }
  }

 private:
  static constexpr std::size_t kSlots = 1024, kMask = kSlots - 1;
  struct Slot {
    std::string_view word;  // "" = free
    WordInfo info;
  };

  // The first and the last 8 bytes (4, or three single bytes, in a shorter word) and the
  // length: every byte of a word up to 16 bytes, longer than any word of the table.
  static std::size_t Hash(std::string_view w) {
    std::uint64_t a = 0, b = 0;
    const char* p = w.data();
    const std::size_t n = w.size();
    if (n >= 8) {
      std::memcpy(&a, p, 8);
      std::memcpy(&b, p + n - 8, 8);
    } else if (n >= 4) {
      std::uint32_t x, y;
      std::memcpy(&x, p, 4);
      std::memcpy(&y, p + n - 4, 4);
      a = x;
      b = y;
    } else if (n > 0) {
      a = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) << 8 |
          static_cast<unsigned char>(p[n - 1]) << 16;
    }
    const std::uint64_t h = (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^ n;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }

  WordInfo& At(std::string_view w) {
    for (std::size_t i = Hash(w) & kMask;; i = (i + 1) & kMask) {
      Slot& s = slots_[i];
      if (s.word == w) return s.info;
      if (s.word.empty()) {
        // At most half full, or a probe for a missing word could run on and on; checked in
        // every build, since only adding words to the lists can break it.
        if (++used_ > kSlots / 2) throw std::logic_error("rivals.cpp Lexicon: more words than kSlots / 2");
        s.word = w;
        longest_ = std::max(longest_, w.size());
        return s.info;
      }
    }
  }

  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
  std::size_t longest_ = 0;
  std::size_t used_ = 0;
};

WordInfo InfoOf(std::string_view w) {
  static const Lexicon kLexicon;
  return kLexicon.Find(w);
}

// A word is a run of ASCII letters and digits, bytes >= 0x80 and . _ - / @ ' + #; the table
// gives each such byte lower-cased (ASCII), 0 for any other.
constexpr std::array<char, 256> kWordByte = [] {
  std::array<char, 256> t{};
  for (int u = 0; u < 256; ++u) {
    const bool alnum = (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
    if (alnum || u >= 0x80 || u == '.' || u == '_' || u == '-' || u == '/' || u == '@' || u == '\'' || u == '+' ||
        u == '#') {
      t[u] = static_cast<char>(u >= 'A' && u <= 'Z' ? u - 'A' + 'a' : u);
    }
  }
  return t;
}();

// Bytes that DigitRun and LooksLikePath look for: a word without any skips them.
enum WordMark : unsigned char { kDigit = 1, kSlash = 2 };
constexpr std::array<unsigned char, 256> kWordMark = [] {
  std::array<unsigned char, 256> t{};
  for (int u = '0'; u <= '9'; ++u) t[u] = kDigit;
  t['/'] = kSlash;
  return t;
}();

struct Word {
  std::string_view text;
  unsigned char marks = 0;  // WordMark bits of its bytes (before the ends were trimmed)
};

// The words of `text`, lower-cased, without leading . - ' or trailing . - ' /: views into
// `buf`, which this overwrites (one buffer per text, no string per word).
void Words(std::string_view text, std::string& buf, std::vector<Word>& out) {
  out.clear();
  buf.resize(text.size());  // the words never outgrow the text (U+2019 is one byte in them)
  char* const base = buf.data();
  std::size_t n = 0, start = 0;
  unsigned char marks = 0;
  const auto flush = [&] {
    std::size_t b = start, e = n;
    while (e > b && (base[e - 1] == '.' || base[e - 1] == '-' || base[e - 1] == '\'' || base[e - 1] == '/')) --e;
    while (b < e && (base[b] == '.' || base[b] == '-' || base[b] == '\'')) ++b;
    if (b < e) out.push_back({std::string_view(base + b, e - b), marks});
    start = n;
    marks = 0;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    // U+2019 (right single quote) as an apostrophe: "don’t".
    if (u == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        static_cast<unsigned char>(text[i + 2]) == 0x99) {
      base[n++] = '\'';
      i += 2;
    } else if (const char c = kWordByte[u]; c != 0) {
      base[n++] = c;
      marks |= kWordMark[u];
    } else if (n != start) {
      flush();
    }
  }
  flush();
}

// Light stemming: a prefix of `w`, or for "-ies" the prefix and 'y' in a string of `composed`.
std::string_view Stem(std::string_view w, std::deque<std::string>& composed) {
  if (w.size() > 2 && w.ends_with("'s")) w.remove_suffix(2);
  if (w.size() > 4 && w.ends_with("ies")) {
    std::string& stem = composed.emplace_back(w.substr(0, w.size() - 3));
    stem += 'y';
    return stem;
  }
  if (w.size() > 5 && w.ends_with("ing")) return w.substr(0, w.size() - 3);
  if (w.size() > 4 && w.ends_with("ed")) return w.substr(0, w.size() - 2);
  if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.remove_suffix(1);
  return w;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The digit run of a value-like token ("v20.1" → "20.1", "4-space" → "4", "node@20" →
// "20"); "" when it has no digit or is a name with digits ("m12", "ec2", "s3").
std::string_view DigitRun(const Word& word) {
  const std::string_view w = word.text;
  if (!(word.marks & kDigit)) return {};
  const bool numeric = IsDigit(w[0]) || (w.size() > 1 && w[0] == 'v' && IsDigit(w[1])) ||
                       w.find('@') != std::string_view::npos;
  if (!numeric) return {};
  std::size_t b = 0;
  while (b < w.size() && !IsDigit(w[b])) ++b;
  if (b == w.size()) return {};
  std::size_t e = b;
  while (e < w.size() && (IsDigit(w[e]) || w[e] == '.')) ++e;
  while (e > b && w[e - 1] == '.') --e;
  return w.substr(b, e - b);
}

bool LooksLikePath(const Word& word) {
  return (word.marks & kSlash) && word.text.find('/') != std::string_view::npos &&
         word.text.find("//") == std::string_view::npos;
}

// Sorts and deduplicates `views` and copies them into `out`.
void Keep(std::vector<std::string_view>& views, SortedWords& out) {
  std::sort(views.begin(), views.end());
  views.erase(std::unique(views.begin(), views.end()), views.end());
  out.reserve(views.size());
  for (const std::string_view v : views) out.emplace_back(v);
}

// A category member a text or value names; `word` views the text's or the value's words.
struct Named {
  int category;
  std::string_view word;
  bool asserted;
};

// What a build uses besides the profile, kept per thread so that a build allocates only
// the profile's own vectors (BuildTopicProfile runs for every memory a write stores); it
// keeps the capacity of the longest text the thread profiled. The words are views into the
// three buffers; a stem or term that is not a piece of a word ("studies" → "study",
// "issue#12") is a string of `composed`, whose elements a deque never moves.
struct Scratch {
  std::string text, subject, value;
  std::vector<Word> words, subject_words, value_words;
  std::deque<std::string> composed;
  std::vector<std::string_view> terms, values, paths, members;
  std::vector<Named> named;
  std::vector<std::pair<std::size_t, std::size_t>> modifiers;  // (term, the term before it), indices in terms
  std::vector<std::pair<std::string_view, std::string_view>> modifier_words;

  void Clear() {
    composed.clear();
    terms.clear();
    values.clear();
    paths.clear();
    named.clear();
    modifiers.clear();
    modifier_words.clear();
  }
};

// Builds a profile: the words go into unsorted vectors of views, sorted, deduplicated and
// copied into the profile once at the end (Finish), where a std::set allocated a node per
// word.
class ProfileBuilder {
 public:
  ProfileBuilder(TopicProfile& p, Scratch& s) : p_(p), s_(s) { s_.Clear(); }

  void Text(std::string_view text) {
    Words(text, s_.text, s_.words);
    const std::vector<Word>& words = s_.words;
    // The previous word's stem (its index in terms) when it can modify the term after it
    // ("api" in "api server"): a content word that is not a value, a path, a category
    // member or a counter noun.
    std::size_t modifier = kNone;
    unsigned prev1 = 0, prev2 = 0;  // the classes of the two words before
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::string_view w = words[i].text;
      const WordInfo info = InfoOf(w);
      const unsigned c = info.classes;
      cues_ |= info.cues;
      const std::size_t before = modifier;
      modifier = kNone;
      if (c & kNegator) p_.negative = true;
      if (info.categories != 0) {
        const bool demoted = (i >= 1 && (prev1 & kDemoter)) || (i >= 2 && (prev2 & kDemoter));
        AddMember(info.categories, w, !demoted);
      } else if (const std::string_view digits = DigitRun(words[i]); !digits.empty()) {
        if (w[0] == '#') {
          s_.terms.push_back(w);
        } else if (i > 0 && (prev1 & kCounterNoun)) {
          std::string& numbered = s_.composed.emplace_back(words[i - 1].text);
          numbered += '#';
          numbered += digits;
          s_.terms.push_back(numbered);
        } else {
          s_.values.push_back(digits);
        }
      } else if (LooksLikePath(words[i])) {
        s_.values.push_back(w);
        s_.paths.push_back(w);
      } else {
        if (c & kLocationCue) p_.locates = true;
        if (w.size() >= 2 && !(c & (kNegator | kFiller | kStopword))) {
          const std::size_t term = s_.terms.size();
          s_.terms.push_back(Stem(w, s_.composed));
          if (before != kNone) s_.modifiers.emplace_back(term, before);
          if (!(c & kCounterNoun)) modifier = term;
        }
      }
      prev2 = prev1;
      prev1 = c;
    }
  }

  void Subject(std::string_view subject) {
    subject_category_ = CategoryOfSubject(subject);
    if (subject.empty()) return;
    Words(subject, s_.subject, s_.subject_words);
    for (const Word& word : s_.subject_words) {
      std::string_view part = word.text;
      while (true) {
        const std::size_t dash = part.find('-');
        const std::string_view piece = part.substr(0, dash);
        if (piece.size() >= 2 && !(InfoOf(piece).classes & kStopword)) s_.terms.push_back(Stem(piece, s_.composed));
        if (dash == std::string_view::npos) break;
        part.remove_prefix(dash + 1);
      }
    }
  }

  // After Subject: the value's words are members of the subject's category.
  void Value(std::string_view value) {
    Words(value, s_.value, s_.value_words);
    for (const Word& word : s_.value_words) {
      const std::string_view w = word.text;
      const WordInfo info = InfoOf(w);
      if (info.categories != 0) {
        AddMember(info.categories, w, true);
      } else if (const std::string_view digits = DigitRun(word); !digits.empty()) {
        s_.values.push_back(digits);
      } else if (!(info.classes & kStopword)) {
        s_.values.push_back(w);
      }
      if (subject_category_ != kNoCategory) {
        s_.named.push_back({subject_category_, w, true});
        mentioned_ |= Bit(subject_category_);
      }
    }
    if (subject_category_ != kNoCategory && value.empty()) mentioned_ |= Bit(subject_category_);
  }

  void Finish() {
    DropUncuedCategories();
    const std::vector<Category>& categories = Categories();
    for (std::uint32_t left = mentioned_; left != 0; left &= left - 1) {
      const int category = std::countr_zero(left);
      const std::string_view name = categories[static_cast<std::size_t>(category)].name;
      for (const bool asserted : {false, true}) {
        s_.members.clear();
        for (const Named& n : s_.named) {
          if (n.category == category && (n.asserted || !asserted)) s_.members.push_back(n.word);
        }
        if (asserted && s_.members.empty()) continue;
        CategoryList& list = asserted ? p_.asserted : p_.mentioned;
        Keep(s_.members, list.emplace_back(CategoryMembers{name, {}}).members);
      }
    }
    for (const auto& [term, before] : s_.modifiers) s_.modifier_words.emplace_back(s_.terms[term], s_.terms[before]);
    std::sort(s_.modifier_words.begin(), s_.modifier_words.end());
    s_.modifier_words.erase(std::unique(s_.modifier_words.begin(), s_.modifier_words.end()), s_.modifier_words.end());
    p_.modifiers.reserve(s_.modifier_words.size());
    for (const auto& [term, before] : s_.modifier_words) p_.modifiers.emplace_back(term, before);
    Keep(s_.terms, p_.terms);
    Keep(s_.values, p_.values);
    Keep(s_.paths, p_.paths);
    for (const std::string& t : p_.terms) {
      if (std::any_of(t.begin(), t.end(), [](char c) { return c == '#' || IsDigit(c); })) p_.numbered.push_back(t);
    }
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  void AddMember(std::uint32_t categories, std::string_view word, bool asserted) {
    mentioned_ |= categories;
    for (; categories != 0; categories &= categories - 1) s_.named.push_back({std::countr_zero(categories), word, asserted});
  }

  // A member of a category that needs a cue, in a text without one, is an everyday word after
  // all: it names the topic instead ("node version"), and the category goes. In name order,
  // each dropped category no longer counting as "elsewhere" for the next.
  void DropUncuedCategories() {
    for (std::uint32_t left = CuedCategories() & mentioned_; left != 0; left &= left - 1) {
      const int category = std::countr_zero(left);
      if (category == subject_category_ || (cues_ & Bit(category))) continue;
      for (const Named& n : s_.named) {
        if (n.category != category) continue;
        const bool elsewhere = std::any_of(s_.named.begin(), s_.named.end(), [&](const Named& other) {
          return other.category != category && (mentioned_ & Bit(other.category)) && other.word == n.word;
        });
        if (!elsewhere) s_.terms.push_back(Stem(n.word, s_.composed));
      }
      mentioned_ &= ~Bit(category);
    }
  }

  TopicProfile& p_;
  Scratch& s_;
  std::uint32_t mentioned_ = 0;  // bit i: Categories()[i] is mentioned (maybe without members)
  std::uint32_t cues_ = 0;       // the categories the text's words cue
  int subject_category_ = kNoCategory;
};

// Whether two sorted word lists share a word; how many they share.
bool Intersect(const SortedWords& a, const SortedWords& b) {
  auto x = a.begin(), y = b.begin();
  while (x != a.end() && y != b.end()) {
    const int c = x->compare(*y);
    if (c == 0) return true;
    c < 0 ? ++x : ++y;
  }
  return false;
}

std::size_t Shared(const SortedWords& a, const SortedWords& b) {
  std::size_t shared = 0;
  auto x = a.begin(), y = b.begin();
  while (x != a.end() && y != b.end()) {
    const int c = x->compare(*y);
    if (c == 0) {
      ++shared;
      ++x;
      ++y;
    } else {
      c < 0 ? ++x : ++y;
    }
  }
  return shared;
}

bool NoneHeld(const SortedWords& words, auto begin, auto end) {
  return std::none_of(begin, end, [&](const auto& m) { return Holds(words, m.second); });
}

}  // namespace

bool Holds(const SortedWords& words, std::string_view w) {
  const auto it = std::lower_bound(words.begin(), words.end(), w,
                                   [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
  return it != words.end() && *it == w;
}

const SortedWords* MembersOf(const CategoryList& list, std::string_view category) {
  for (const CategoryMembers& c : list) {
    if (c.category == category) return &c.members;
  }
  return nullptr;
}

TopicProfile BuildTopicProfile(std::string_view text, std::string_view subject, std::string_view value) {
  thread_local Scratch scratch;
  TopicProfile p;
  p.subject = std::string(subject);
  ProfileBuilder b(p, scratch);
  b.Text(text);
  b.Subject(subject);
  b.Value(value);
  b.Finish();
  return p;
}

double TermJaccard(const SortedWords& a, const SortedWords& b) {
  if (a.empty() && b.empty()) return 0;
  const std::size_t shared = Shared(a, b);
  return static_cast<double>(shared) / static_cast<double>(a.size() + b.size() - shared);
}

PairVerdict ClassifyPair(const TopicProfile& o, const TopicProfile& n) {
  PairVerdict v;
  if (!o.subject.empty() && !n.subject.empty()) return v;  // the subject key decides
  bool category_restates = false;
  for (const CategoryMembers& mine : n.asserted) {
    const SortedWords* theirs = MembersOf(o.asserted, mine.category);
    if (theirs == nullptr || mine.members.empty() || theirs->empty()) continue;
    const bool disjoint = !Intersect(mine.members, *theirs);
    // A weekday says when, not what: two days are rival values only for one thing
    // ("releases are cut on Fridays" / "on Tuesdays"), not "backups run on Mondays" /
    // "deploys go out on Fridays".
    if (disjoint && mine.category == "weekday" && !Intersect(o.terms, n.terms)) continue;
    if (disjoint) {
      v.kind = PairKind::kRival;
      v.reason = std::string(mine.category) + ": " + mine.members.front() + " vs " + theirs->front();
      return v;
    }
    if (mine.members == *theirs) category_restates = true;
  }
  // Numbered things ("issue#12" vs "issue#13") and names with digits ("cache_1" vs
  // "cache_17", "m12" vs "m13") are different things, not rival values.
  if (!o.numbered.empty() && !n.numbered.empty() && o.numbered != n.numbered) return v;
  // Two files: both name paths, different ones, and not both as where something is.
  if (!o.paths.empty() && !n.paths.empty() && o.paths != n.paths && !(o.locates && n.locates)) return v;
  // Two things of one kind: a shared term modified on each side by a word the other side
  // does not use at all ("api server" vs "admin server"; "minimum version" vs "minimum
  // python version" modify it with words both use, so they may be one thing).
  for (auto x = n.modifiers.begin(), y = o.modifiers.begin(); x != n.modifiers.end() && y != o.modifiers.end();) {
    const int c = x->first.compare(y->first);
    if (c != 0) {
      c < 0 ? ++x : ++y;
      continue;
    }
    const auto x_end = std::find_if(x, n.modifiers.end(), [&](const auto& m) { return m.first != x->first; });
    const auto y_end = std::find_if(y, o.modifiers.end(), [&](const auto& m) { return m.first != y->first; });
    if (NoneHeld(o.terms, x, x_end) && NoneHeld(n.terms, y, y_end)) return v;
    x = x_end;
    y = y_end;
  }
  const std::size_t shared = Shared(o.terms, n.terms);
  const bool same_topic =
      shared >= 2 && static_cast<double>(shared) / static_cast<double>(o.terms.size() + n.terms.size() - shared) >= 0.5;
  if (same_topic) {
    if (o.negative != n.negative) {
      v.kind = PairKind::kRival;
      v.reason = "one says the opposite";
      return v;
    }
    if (!o.values.empty() && !n.values.empty() && !Intersect(n.values, o.values)) {
      v.kind = PairKind::kRival;
      v.reason = "values " + n.values.front() + " vs " + o.values.front();
      return v;
    }
    v.kind = PairKind::kRestatement;
    return v;
  }
  if (category_restates) v.kind = PairKind::kRestatement;
  return v;
}

RivalTerms RivalSearchTerms(const TopicProfile& p, std::size_t max) {
  RivalTerms out;
  const auto add = [&](std::vector<std::string>& into, const auto& t) {
    const auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), t) != v.end(); };
    if (out.category.size() + out.words.size() < max && !has(out.category) && !has(out.words)) into.emplace_back(t);
  };
  for (const CategoryMembers& named : p.mentioned) {
    const int category = CategoryIndex(named.category);
    if (category == kNoCategory) continue;
    for (std::string_view m : Categories()[static_cast<std::size_t>(category)].members) add(out.category, m);
  }
  // Values are not looked up: ClassifyPair calls two memories rivals only through a
  // category or through shared terms (the same-topic rule), so a memory that shares only
  // values with `p` restates or is unrelated, never a rival. One FTS lookup less per value
  // (a path such as "src/auth/file5.ts" held a rare token of its own in every write).
  for (const std::string& t : p.terms) add(out.words, t);
  return out;
}

}  // namespace kioku::semantic
