#include "statement_values.hpp"

#include <array>
#include <cctype>
#include <vector>

#include "statement_text.hpp"

namespace kioku::episodic {

namespace {

struct Category {
  std::string_view subject;
  std::initializer_list<std::string_view> values;
};

// Well-known values and the question they answer. A later "use yarn" must supersede an
// earlier "we use pnpm" although neither names "package manager".
const std::array<Category, 17>& Categories() {
  static const std::array<Category, 17> kCats = {{
      {"package-manager", {"npm", "pnpm", "yarn", "bun", "pip", "poetry", "pipenv", "conda"}},
      {"test-runner",
       {"jest", "vitest", "mocha", "pytest", "unittest", "ava", "rspec", "minitest", "nose",
        "ctest", "node:test"}},
      {"e2e-runner", {"playwright", "cypress", "puppeteer", "selenium"}},
      {"database",
       {"postgres", "postgresql", "sqlite", "mysql", "mariadb", "mongodb", "mongo",
        "cockroachdb", "dynamodb"}},
      {"formatter", {"prettier", "black", "clang-format", "gofmt", "rustfmt", "dprint", "yapf"}},
      {"linter",
       {"eslint", "ruff", "flake8", "pylint", "clippy", "clang-tidy", "golangci-lint", "biome",
        "oxlint", "mypy", "pyright"}},
      {"bundler", {"webpack", "vite", "esbuild", "rollup", "parcel", "turbopack", "rspack"}},
      {"orm",
       {"prisma", "drizzle", "typeorm", "sequelize", "sqlalchemy", "knex", "kysely", "diesel"}},
      {"http-client", {"axios", "httpx", "requests", "ky", "reqwest", "undici"}},
      {"parser", {"winnow", "nom", "pest", "chumsky", "lalrpop", "antlr", "tree-sitter"}},
      {"logging", {"spdlog", "pino", "winston", "loguru", "structlog", "bunyan", "tracing"}},
      {"merge-strategy",
       {"squash", "squash-merge", "squash merge", "squash merges", "squash-merges", "rebase",
        "rebase-merge", "merge commits", "fast-forward"}},
      {"indentation", {"tabs", "spaces", "2 spaces", "4 spaces", "two spaces", "four spaces"}},
      {"timezone", {"utc"}},
      {"container-runtime", {"docker", "podman"}},
      {"ci", {"github actions", "gitlab ci", "circleci", "jenkins", "buildkite"}},
      {"monorepo-tool", {"turborepo", "nx", "lerna", "bazel"}},
  }};
  return kCats;
}

std::string_view CategoryOf(std::string_view lower_value) {
  for (const auto& c : Categories()) {
    for (std::string_view v : c.values) {
      if (lower_value == v) return c.subject;
    }
  }
  return {};
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '`' || s.front() == '"' ||
                        s.front() == '\'' || s.front() == '*')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '`' || s.back() == '"' ||
                        s.back() == '\'' || s.back() == '*' || s.back() == ':' ||
                        s.back() == '!' || s.back() == '?')) {
    s.remove_suffix(1);
  }
  return s;
}

std::size_t Words(std::string_view s) {
  std::size_t n = 0;
  bool in = false;
  for (char c : s) {
    const bool w = c != ' ';
    if (w && !in) ++n;
    in = w;
  }
  return n;
}

// End of the value that starts at `from` in `lower`.
std::size_t ValueEnd(std::string_view lower, std::size_t from) {
  std::size_t end = lower.size();
  for (std::size_t i = from; i < lower.size(); ++i) {
    const char c = lower[i];
    if (c == ',' || c == ';' || c == '(' || c == ')' || c == ':' ||
        ((c == '.' || c == '!' || c == '?') && (i + 1 == lower.size() || lower[i + 1] == ' '))) {
      end = i;
      break;
    }
  }
  static constexpr std::string_view kStops[] = {
      " not ",   " instead", " rather than", " over ", " for ",  " because", " since ",
      " unless", " when",    " and ",        " so ",   " - ",    " in ",     " on ",
      " to ",    " from ",   " everywhere",  " as ",   " with ", " if ",     " whenever",
      " every ", " always",  " by ",         " only",  " here",  " now",     " going"};
  for (std::string_view s : kStops) {
    const std::size_t p = lower.find(s, from);
    if (p != std::string_view::npos && p < end) end = p;
  }
  return end;
}

std::string Subjectify(std::string_view lower_np) {
  std::string out;
  std::size_t i = 0;
  static constexpr std::string_view kDrop[] = {"the", "our", "all", "every", "any", "a",
                                               "an",  "its", "your", "my"};
  while (i < lower_np.size()) {
    while (i < lower_np.size() && lower_np[i] == ' ') ++i;
    std::size_t j = i;
    while (j < lower_np.size() && lower_np[j] != ' ') ++j;
    const std::string_view w = Trim(lower_np.substr(i, j - i));
    bool drop = w.empty();
    for (std::string_view d : kDrop) drop = drop || w == d;
    if (!drop) {
      if (!out.empty()) out += '-';
      out.append(w);
    }
    i = j;
  }
  return out;
}

bool IsPronounish(std::string_view np) {
  static constexpr std::string_view kPron[] = {
      "we", "i", "you", "it", "they", "this", "that", "there", "he", "she", "which", "who",
      "what", "everything", "nothing", "something", "anything", "one", "these", "those", "here"};
  for (std::string_view p : kPron) {
    if (np == p) return true;
  }
  return false;
}

// Noun phrase after " for " that starts at `pos` in `lower`.
std::string ForPhrase(std::string_view lower, std::size_t value_end) {
  const std::size_t f = lower.find(" for ", value_end);
  if (f == std::string_view::npos) return {};
  const std::size_t start = f + 5;
  const std::size_t end = ValueEnd(lower, start);
  const std::string_view np = Trim(lower.substr(start, end - start));
  if (np.empty() || Words(np) > 4 || IsPronounish(np)) return {};
  static constexpr std::string_view kNotSubjects[] = {"example", "instance", "now", "good",
                                                      "real",    "sure",     "us",  "me"};
  for (std::string_view n : kNotSubjects) {
    if (np == n) return {};
  }
  return Subjectify(np);
}

std::optional<SubjectValue> Make(std::string_view original, std::string_view lower,
                                 std::size_t vstart, std::string subject_hint,
                                 bool prefer_hint = false) {
  while (vstart < lower.size() && lower[vstart] == ' ') ++vstart;
  const std::size_t vend = ValueEnd(lower, vstart);
  std::string_view lv = Trim(lower.substr(vstart, vend - vstart));
  // Leading determiners are not part of the value ("the ops repo" → "ops repo").
  for (std::string_view det : {std::string_view("the "), std::string_view("a "), std::string_view("an ")}) {
    if (lv.substr(0, det.size()) == det) lv.remove_prefix(det.size());
  }
  if (lv.empty() || Words(lv) > 4 || lv.size() > 60 || IsPronounish(lv) ||
      IsPronounish(lv.substr(0, lv.find(' ')))) {
    return std::nullopt;
  }
  static constexpr std::string_view kNotValues[] = {"them", "both", "either", "that one",
                                                    "the same", "those", "him", "her"};
  for (std::string_view n : kNotValues) {
    if (lv == n) return std::nullopt;
  }
  // Original casing, same offsets (FoldText keeps ASCII offsets for ASCII text; fall back
  // to the lowered value when the clause held folded characters).
  std::string value(lv);
  if (original.size() == lower.size()) {
    const std::size_t off = static_cast<std::size_t>(lv.data() - lower.data());
    value.assign(original.substr(off, lv.size()));
  }
  // "pnpm workspaces", "vitest tests": a known first word is the value.
  std::string_view category = CategoryOf(lv);
  if (category.empty() && lv.find(' ') != std::string_view::npos) {
    category = CategoryOf(lv.substr(0, lv.find(' ')));
    if (!category.empty()) value.resize(lv.find(' '));
  }
  // "sqlx, not diesel": the refused alternative names the category too.
  if (category.empty()) {
    for (std::string_view alt : {std::string_view(" not "), std::string_view(" instead of "),
                                 std::string_view(" rather than "), std::string_view(" over ")}) {
      const std::size_t a = lower.find(alt, vend > 0 ? vend - 1 : 0);
      if (a == std::string_view::npos || a > vend + 3) continue;
      const std::size_t ws = a + alt.size();
      const std::size_t we = ValueEnd(lower, ws);
      category = CategoryOf(Trim(lower.substr(ws, we - ws)));
      if (category.empty()) {
        const std::string_view first = Trim(lower.substr(ws, we - ws));
        category = CategoryOf(first.substr(0, first.find(' ')));
      }
      if (!category.empty()) break;
    }
  }
  std::string subject = prefer_hint && !subject_hint.empty() ? subject_hint : std::string(category);
  if (subject.empty()) subject = ForPhrase(lower, vend);
  if (subject.empty()) subject = std::move(subject_hint);
  if (subject.empty()) return std::nullopt;
  return SubjectValue{std::move(subject), std::move(value)};
}

}  // namespace

std::optional<SubjectValue> FindSubjectValue(std::string_view clause) {
  const std::string original = FoldText(clause, false);
  const std::string lower = FoldText(clause, true);
  static constexpr std::string_view kChoice[] = {
      "switch to",      "switched to",     "switching to",   "move to",       "moved to",
      "moving to",      "migrate to",      "migrated to",    "go with",       "went with",
      "going with",     "settle on",       "settled on",     "standardize on", "standardise on",
      "standardized on", "standardised on", "stick with",     "sticking with", "stick to",
      "default to",     "defaults to",     "decided on",     "chose",         "choose",
      "picked",         "prefer",          "keep using",     "decided to keep", "use",
      "using",          "uses",            "run everything through"};
  std::size_t best = std::string::npos;
  std::size_t best_end = 0;
  for (std::string_view v : kChoice) {
    const std::size_t p = FindPhrase(lower, v);
    if (p != std::string::npos && p < best) {
      best = p;
      best_end = p + v.size();
    }
  }
  // "<np> uses X": the words before the verb name the subject ("the parser uses winnow").
  auto np_before = [&](std::size_t verb_at) -> std::string {
    std::string_view head = std::string_view(lower).substr(0, verb_at);
    // Only the clause the verb is in: after the last ',', ';', ':' or "that".
    for (std::string_view cut : {std::string_view(","), std::string_view(";"),
                                 std::string_view(":"), std::string_view(" that ")}) {
      const std::size_t c = head.rfind(cut);
      if (c != std::string_view::npos) head = head.substr(c + cut.size());
    }
    for (std::string_view lead : {std::string_view("from now on "), std::string_view("going forward "),
                                  std::string_view("in this repo "), std::string_view("here ")}) {
      const std::size_t c = head.find(lead);
      if (c != std::string_view::npos) head = head.substr(c + lead.size());
    }
    head = Trim(head);
    for (std::string_view modal : {std::string_view(" always"), std::string_view(" should"),
                                   std::string_view(" must"), std::string_view(" will"),
                                   std::string_view(" only")}) {
      if (head.size() > modal.size() && head.substr(head.size() - modal.size()) == modal) {
        head = Trim(head.substr(0, head.size() - modal.size()));
      }
    }
    if (head.empty() || Words(head) > 5 || IsPronounish(head)) return {};
    // A clause head with a pronoun or a verb is not a noun phrase ("we decided to").
    static constexpr std::string_view kNotNp[] = {
        "we", "i", "you", "they", "to", "should", "must", "will", "always", "never", "please",
        "let's", "lets", "don't", "do", "decided", "agreed", "remember", "and", "is", "are",
        "it", "also", "just", "but", "so", "if", "when", "not", "can", "could", "would",
        "was", "were", "has", "have", "had", "be", "stop", "start", "make", "sure", "i'd",
        "i'm", "i'll", "we'd", "we're", "you're", "you'd", "me", "us", "please"};
    std::size_t i = 0;
    while (i < head.size()) {
      std::size_t j = head.find(' ', i);
      if (j == std::string_view::npos) j = head.size();
      const std::string_view w = head.substr(i, j - i);
      for (std::string_view n : kNotNp) {
        if (w == n) return {};
      }
      i = j + 1;
    }
    return Subjectify(head);
  };
  // "never use npm", "we don't use yarn", "stop using moment": the object is refused.
  bool refused = false;
  if (best != std::string::npos) {
    const std::string_view before =
        std::string_view(lower).substr(best > 24 ? best - 24 : 0, best > 24 ? 24 : best);
    refused = HasAny(before, {"never", "not", "don't", "dont", "avoid", "stop", "no longer",
                              "quit", "without", "instead of"});
  }
  if (best != std::string::npos && !refused) {
    const std::string hint = np_before(best);
    if (auto sv = Make(original, lower, best_end, hint)) return sv;
  }
  // Only verbs that set a value; a bare "is"/"are" states properties far more often
  // ("the staging DB is read-only", "money is stored as cents").
  static constexpr std::string_view kCopula[] = {
      " are stored in ", " is stored in ", " lives in ", " live in ", " defaults to ",
      " default to "};
  for (std::string_view c : kCopula) {
    const std::size_t p = lower.find(c);
    if (p == std::string::npos) continue;
    std::string np = np_before(p);
    if (np.empty()) continue;
    std::string_view cs = Trim(c);
    if (cs == "lives in" || cs == "live in") np += "-location";
    if (cs == "is stored in" || cs == "are stored in") np += "-storage";
    if (auto sv = Make(original, lower, p + c.size(), np, /*prefer_hint=*/true)) {
      // "X is never …", "X are not …": a prohibition or a property, not a value.
      const std::string lv = FoldText(sv->value, true);
      const std::string first = lv.substr(0, lv.find(' '));
      static constexpr std::string_view kNotFirst[] = {
          "never", "not", "always", "only", "to", "be", "being", "also", "still", "just",
          "very", "so", "too", "fine", "ok", "okay", "done", "broken", "wrong", "right",
          "there", "here", "in", "on", "at", "no", "what", "how", "why", "really", "pretty",
          "quite", "usually", "often", "sometimes", "currently", "now", "already"};
      for (std::string_view n : kNotFirst) {
        if (first == n) return std::nullopt;
      }
      return sv;
    }
    break;
  }
  return std::nullopt;
}

}  // namespace kioku::episodic
