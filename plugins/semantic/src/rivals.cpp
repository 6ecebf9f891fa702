#include "rivals.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "normalize.hpp"
#include "recall.hpp"

namespace kioku::semantic {
namespace {

// Interchangeable choices: naming a different member of one list is a different value for
// the same question. Kept to lists where two members rarely hold at once in one scope
// (languages, for example, are left out: a repository mixes them).
const std::map<std::string, std::set<std::string>>& Categories() {
  static const std::map<std::string, std::set<std::string>> kCategories = {
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
  return kCategories;
}

// Subject keys that name a category ("package-manager" → package-manager).
std::string CategoryOfSubject(std::string_view subject) {
  static const std::map<std::string, std::string, std::less<>> kAliases = {
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
  const auto it = kAliases.find(subject);
  return it == kAliases.end() ? std::string() : it->second;
}

// Word classes: one hash lookup per word instead of one ordered-set lookup per class (the
// profile is built for every memory a write stores; ~32 k instructions per ~75-character
// text with the lookups it had). Keys view string literals, so they live as long as the map.
enum WordClass : unsigned {
  kNegator = 1u << 0,      // "not", "never", "don't": the text says the opposite
  kDemoter = 1u << 1,      // "from", "instead", "replaced": a member right after is not asserted
  kFiller = 1u << 2,       // carries no topic even where recall's stopwords keep it
  kCounterNoun = 1u << 3,  // "issue 12", "step 3": a number after it names a thing, not a value
  kLocationCue = 1u << 4,  // "lives", "moved", "path": a path in the text is where something is
};

const std::unordered_map<std::string_view, unsigned>& WordClasses() {
  static const auto kClasses = [] {
    std::unordered_map<std::string_view, unsigned> out;
    const auto add = [&](WordClass c, std::initializer_list<std::string_view> words) {
      for (std::string_view w : words) out[w] |= c;
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
    return out;
  }();
  return kClasses;
}

unsigned ClassesOf(std::string_view w) {
  const auto it = WordClasses().find(w);
  return it == WordClasses().end() ? 0u : it->second;
}



std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  const auto flush = [&] {
    while (!w.empty() && (w.back() == '.' || w.back() == '-' || w.back() == '\'' || w.back() == '/')) w.pop_back();
    while (!w.empty() && (w.front() == '.' || w.front() == '-' || w.front() == '\'')) w.erase(w.begin());
    if (!w.empty()) out.push_back(w);
    w.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    // U+2019 (right single quote) as an apostrophe: "don’t".
    if (u == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        static_cast<unsigned char>(text[i + 2]) == 0x99) {
      w += '\'';
      i += 2;
      continue;
    }
    if (std::isalnum(u) || u >= 0x80 || u == '.' || u == '_' || u == '-' || u == '/' ||
        u == '@' || u == '\'' || u == '+' || u == '#') {
      w += static_cast<char>(std::tolower(u));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

std::string Stem(std::string w) {
  if (w.size() > 2 && w.compare(w.size() - 2, 2, "'s") == 0) w.resize(w.size() - 2);
  if (w.size() > 4 && w.compare(w.size() - 3, 3, "ies") == 0) return w.substr(0, w.size() - 3) + "y";
  if (w.size() > 5 && w.compare(w.size() - 3, 3, "ing") == 0) return w.substr(0, w.size() - 3);
  if (w.size() > 4 && w.compare(w.size() - 2, 2, "ed") == 0) return w.substr(0, w.size() - 2);
  if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.pop_back();
  return w;
}

// The digit run of a value-like token ("v20.1" → "20.1", "4-space" → "4", "node@20" →
// "20"); "" when it has no digit or is a name with digits ("m12", "ec2", "s3").
std::string DigitRun(const std::string& w) {
  const bool numeric = !w.empty() && (std::isdigit(static_cast<unsigned char>(w[0])) ||
                                      (w.size() > 1 && w[0] == 'v' && std::isdigit(static_cast<unsigned char>(w[1]))) ||
                                      w.find('@') != std::string::npos);
  if (!numeric) return {};
  std::size_t b = 0;
  while (b < w.size() && !std::isdigit(static_cast<unsigned char>(w[b]))) ++b;
  if (b == w.size()) return {};
  std::size_t e = b;
  while (e < w.size() && (std::isdigit(static_cast<unsigned char>(w[e])) || w[e] == '.')) ++e;
  std::string run = w.substr(b, e - b);
  while (!run.empty() && run.back() == '.') run.pop_back();
  return run;
}


bool LooksLikePath(const std::string& w) {
  return w.find('/') != std::string::npos && w.find("//") == std::string::npos;
}

// member → the categories it belongs to ("bun": package-manager, js-runtime); one lookup
// per word instead of one per category.
const std::unordered_map<std::string, std::vector<std::string>>& MemberCategories() {
  static const auto kByMember = [] {
    std::unordered_map<std::string, std::vector<std::string>> out;
    for (const auto& [category, members] : Categories()) {
      for (const std::string& m : members) out[m].push_back(category);
    }
    return out;
  }();
  return kByMember;
}

void AddMember(TopicProfile& p, const std::string& word, bool demoted) {
  const auto it = MemberCategories().find(word);
  if (it == MemberCategories().end()) return;
  for (const std::string& category : it->second) {
    p.mentioned[category].insert(word);
    if (!demoted) p.asserted[category].insert(word);
  }
}

bool IsMember(const std::string& w) { return MemberCategories().count(w) > 0; }



}  // namespace

TopicProfile BuildTopicProfile(std::string_view text, std::string_view subject, std::string_view value) {
  TopicProfile p;
  p.subject = std::string(subject);
  const std::vector<std::string> words = Words(text);
  std::vector<unsigned> classes(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) classes[i] = ClassesOf(words[i]);
  // The previous word's stem when it can modify the term after it ("api" in "api server"):
  // a content word that is not a value, a path, a category member or a counter noun.
  std::optional<std::string> modifier;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const unsigned c = classes[i];
    std::optional<std::string> before = std::move(modifier);
    modifier.reset();
    if (c & kNegator) p.negative = true;
    if (IsMember(w)) {
      const bool demoted = (i >= 1 && (classes[i - 1] & kDemoter)) || (i >= 2 && (classes[i - 2] & kDemoter));
      AddMember(p, w, demoted);
      continue;
    }
    if (const std::string digits = DigitRun(w); !digits.empty()) {
      if (w[0] == '#') {
        p.terms.insert(w);
      } else if (i > 0 && (classes[i - 1] & kCounterNoun)) {
        p.terms.insert(words[i - 1] + "#" + digits);
      } else {
        p.values.insert(digits);
      }
      continue;
    }
    if (LooksLikePath(w)) {
      p.values.insert(w);
      p.paths.insert(w);
      continue;
    }
    if (c & kLocationCue) p.locates = true;
    if (w.size() < 2 || (c & (kNegator | kFiller)) || IsStopword(w)) continue;
    std::string stem = Stem(w);
    if (before) p.modifiers[stem].insert(std::move(*before));
    if (!(c & kCounterNoun)) modifier = stem;
    p.terms.insert(std::move(stem));
  }
  const std::string category = CategoryOfSubject(subject);
  if (!subject.empty()) {
    for (const std::string& part : Words(std::string(subject))) {
      std::string piece;
      for (char c : part + "-") {
        if (c == '-') {
          if (piece.size() >= 2 && !IsStopword(piece)) p.terms.insert(Stem(piece));
          piece.clear();
        } else {
          piece += c;
        }
      }
    }
  }
  for (const std::string& w : Words(value)) {
    if (IsMember(w)) {
      AddMember(p, w, false);
    } else if (const std::string digits = DigitRun(w); !digits.empty()) {
      p.values.insert(digits);
    } else if (!IsStopword(w)) {
      p.values.insert(w);
    }
    if (!category.empty()) {
      p.mentioned[category].insert(w);
      p.asserted[category].insert(w);
    }
  }
  if (!category.empty() && value.empty()) p.mentioned[category];
  // Members that are also everyday words count only next to a cue word ("main" names a
  // branch in "merge to main", not in "the main config file").
  static const std::map<std::string, std::set<std::string>> kCues = {
      {"branch", {"branch", "branches", "merge", "merged", "push", "pushed", "rebase", "checkout", "pr"}},
      {"indentation", {"indent", "indentation", "indented", "indenting", "whitespace"}},
      {"license", {"license", "licensed", "licence"}},
      {"js-runtime", {"runtime", "run", "runs", "execute", "server", "scripts", "script"}},
      {"editor", {"editor", "edit", "ide"}},
      {"log-level", {"log", "logs", "logging", "level", "loglevel", "verbosity", "logger"}},
  };
  for (const auto& [cat, cues] : kCues) {
    if (cat == category || p.mentioned.count(cat) == 0) continue;
    const bool cued = std::any_of(words.begin(), words.end(), [&](const std::string& w) { return cues.count(w) > 0; });
    if (!cued) {
      // An everyday word after all: it names the topic instead ("node version").
      for (const std::string& w : p.mentioned[cat]) {
        const bool elsewhere = std::any_of(p.mentioned.begin(), p.mentioned.end(), [&](const auto& other) {
          return other.first != cat && other.second.count(w) > 0;
        });
        if (!elsewhere) p.terms.insert(Stem(w));
      }
      p.mentioned.erase(cat);
      p.asserted.erase(cat);
    }
  }
  for (const std::string& t : p.terms) {
    if (std::any_of(t.begin(), t.end(), [](char c) { return c == '#' || std::isdigit(static_cast<unsigned char>(c)); })) {
      p.numbered.insert(t);
    }
  }
  return p;
}

double TermJaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 0;
  std::size_t shared = 0;
  for (const std::string& t : a) shared += b.count(t);
  return static_cast<double>(shared) / static_cast<double>(a.size() + b.size() - shared);
}

PairVerdict ClassifyPair(const TopicProfile& o, const TopicProfile& n) {
  PairVerdict v;
  if (!o.subject.empty() && !n.subject.empty()) return v;  // the subject key decides
  // A weekday says when, not what: two days are rival values only for one thing ("releases
  // are cut on Fridays" / "on Tuesdays"), not "backups run on Mondays" / "deploys go out on
  // Fridays".
  const auto shares_a_term = [&] {
    return std::any_of(o.terms.begin(), o.terms.end(), [&](const std::string& t) { return n.terms.count(t) > 0; });
  };
  bool category_restates = false;
  for (const auto& [category, mine] : n.asserted) {
    const auto it = o.asserted.find(category);
    if (it == o.asserted.end() || mine.empty() || it->second.empty()) continue;
    const std::set<std::string>& theirs = it->second;
    const bool disjoint = std::none_of(mine.begin(), mine.end(), [&](const std::string& m) { return theirs.count(m) > 0; });
    if (disjoint && category == "weekday" && !shares_a_term()) continue;
    if (disjoint) {
      v.kind = PairKind::kRival;
      v.reason = category + ": " + *mine.begin() + " vs " + *theirs.begin();
      return v;
    }
    if (mine == theirs) category_restates = true;
  }
  // Numbered things ("issue#12" vs "issue#13") and names with digits ("cache_1" vs
  // "cache_17", "m12" vs "m13") are different things, not rival values.
  if (!o.numbered.empty() && !n.numbered.empty() && o.numbered != n.numbered) return v;
  // Two files: both name paths, different ones, and not both as where something is.
  if (!o.paths.empty() && !n.paths.empty() && o.paths != n.paths && !(o.locates && n.locates)) return v;
  // Two things of one kind: a shared term modified on each side by a word the other side
  // does not use at all ("api server" vs "admin server"; "minimum version" vs "minimum
  // python version" modify it with words both use, so they may be one thing).
  for (const auto& [term, mods] : n.modifiers) {
    const auto it = o.modifiers.find(term);
    if (it == o.modifiers.end()) continue;
    const auto foreign = [](const std::set<std::string>& m, const std::set<std::string>& other_terms) {
      return std::none_of(m.begin(), m.end(), [&](const std::string& w) { return other_terms.count(w) > 0; });
    };
    if (foreign(mods, o.terms) && foreign(it->second, n.terms)) return v;
  }
  std::size_t shared = 0;
  for (const std::string& t : o.terms) shared += n.terms.count(t);
  const bool same_topic = shared >= 2 && TermJaccard(o.terms, n.terms) >= 0.5;
  if (same_topic) {
    if (o.negative != n.negative) {
      v.kind = PairKind::kRival;
      v.reason = "one says the opposite";
      return v;
    }
    if (!o.values.empty() && !n.values.empty() &&
        std::none_of(n.values.begin(), n.values.end(), [&](const std::string& x) { return o.values.count(x) > 0; })) {
      v.kind = PairKind::kRival;
      v.reason = "values " + *n.values.begin() + " vs " + *o.values.begin();
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
  const auto add = [&](std::vector<std::string>& into, const std::string& t) {
    const auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), t) != v.end(); };
    if (out.category.size() + out.words.size() < max && !has(out.category) && !has(out.words)) into.push_back(t);
  };
  for (const auto& [category, named] : p.mentioned) {
    (void)named;
    for (const std::string& m : Categories().count(category) ? Categories().at(category) : std::set<std::string>{}) {
      add(out.category, m);
    }
  }
  // Values are not looked up: ClassifyPair calls two memories rivals only through a
  // category or through shared terms (the same-topic rule), so a memory that shares only
  // values with `p` restates or is unrelated, never a rival. One FTS lookup less per value
  // (a path such as "src/auth/file5.ts" held a rare token of its own in every write).
  for (const std::string& t : p.terms) add(out.words, t);
  return out;
}

}  // namespace kioku::semantic
