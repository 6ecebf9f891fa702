#include "query_terms.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "kioku/sdk/fts.hpp"
#include "recall.hpp"

namespace kioku::semantic {
namespace {

struct Expansion {
  std::vector<std::string_view> triggers;  // all must be query tokens (prefix match, ≥ 4)
  std::vector<std::string_view> adds;
};

// Category word → the tools agents actually name. Kept short on purpose: every rule is a
// gap seen in coding-agent questions, and each one costs a list of extra FTS terms.
const std::vector<Expansion>& Expansions() {
  static const std::vector<Expansion> kList = {
      {{"js", "depend"}, {"npm", "pnpm", "yarn", "bun"}},
      {{"javascript", "depend"}, {"npm", "pnpm", "yarn", "bun"}},
      {{"node", "depend"}, {"npm", "pnpm", "yarn", "bun"}},
      {{"js", "package"}, {"npm", "pnpm", "yarn", "bun"}},
      {{"node", "package"}, {"npm", "pnpm", "yarn", "bun"}},
      {{"package", "manager"}, {"npm", "pnpm", "yarn", "pip", "poetry", "uv", "cargo"}},
      {{"python", "depend"}, {"pip", "poetry", "uv", "pipenv"}},
      {{"formatter"}, {"prettier", "black", "ruff", "rustfmt", "gofmt", "clang-format"}},
      {{"format", "code"}, {"prettier", "black", "ruff", "rustfmt", "gofmt", "clang-format"}},
      {{"linter"}, {"eslint", "clippy", "ruff", "golangci-lint", "flake8", "pylint"}},
      {{"bundler"}, {"webpack", "vite", "esbuild", "rollup"}},
      {{"test", "framework"}, {"jest", "vitest", "pytest", "gtest", "catch2", "mocha"}},
      {{"unit", "test"}, {"jest", "vitest", "pytest", "gtest", "catch2"}},
      {{"end", "end", "test"}, {"playwright", "cypress", "selenium"}},
      {{"e2e"}, {"playwright", "cypress", "selenium"}},
      {{"reverse", "proxy"}, {"nginx", "caddy", "traefik", "haproxy"}},
      {{"message", "broker"}, {"rabbitmq", "kafka", "nats", "sqs"}},
      {{"message", "queue"}, {"rabbitmq", "kafka", "nats", "sqs"}},
      {{"container"}, {"docker", "podman"}},
      {{"orchestr"}, {"kubernetes", "k8s", "nomad"}},
      {{"version", "control"}, {"git"}},
      {{"database"}, {"postgres", "postgresql", "mysql", "sqlite", "mongodb"}},
      {{"cache"}, {"redis", "memcached"}},
      {{"continuous", "integration"}, {"ci", "github", "actions", "jenkins", "gitlab"}},
      {{"state", "management"}, {"redux", "zustand", "riverpod", "bloc", "mobx"}},
      {{"error", "tracking"}, {"sentry", "rollbar", "bugsnag"}},
      {{"monitoring"}, {"prometheus", "grafana", "datadog"}},
      {{"secret"}, {"vault", "sops"}},
  };
  return kList;
}

bool HasToken(const std::vector<std::string>& tokens, std::string_view stem) {
  return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) {
    return stem.size() < 4 ? t == stem : t.compare(0, stem.size(), stem) == 0;
  });
}

bool AllDigits(const std::string& t) {
  return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const std::set<std::string, std::less<>>& DateWords() {
  static const std::set<std::string, std::less<>> kWords = {
      "january", "february", "march", "april", "june", "july", "august", "september",
      "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
      "sep", "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday",
      "friday", "saturday", "sunday", "mondays", "tuesdays", "wednesdays", "thursdays",
      "fridays", "saturdays", "sundays", "yesterday", "tomorrow", "tonight", "weekend",
      "weekends", "daily", "weekly", "monthly", "nightly", "midnight", "noon", "am", "pm",
      "utc", "morning", "evening"};
  return kWords;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

}  // namespace

AnswerType QueryAnswerType(const std::vector<std::string>& tokens) {
  for (const std::string& t : tokens) {
    if (t == "who" || t == "whom" || t == "whose") return AnswerType::kPerson;
  }
  for (const std::string& t : tokens) {
    if (t == "when" || t == "date" || t == "day" || t == "month" || t == "year" ||
        t == "time" || t == "schedule" || t == "scheduled") {
      return AnswerType::kDate;
    }
  }
  return AnswerType::kAny;
}

bool HasDateExpression(std::string_view text) {
  sdk::FtsQueryOptions opt;
  opt.max_tokens = 128;
  for (const std::string& t : sdk::FtsTokens(text, opt)) {
    if (DateWords().count(t)) return true;
    // "25th", "1st", "4am", "10pm", "2026-03-01", "02:30" (FtsTokens keeps "02" "30").
    std::size_t digits = 0;
    while (digits < t.size() && IsDigit(t[digits])) ++digits;
    if (digits == 0) continue;
    const std::string_view rest = std::string_view(t).substr(digits);
    if (digits <= 2 && (rest == "st" || rest == "nd" || rest == "rd" || rest == "th" ||
                        rest == "am" || rest == "pm")) {
      return true;
    }
    if (digits == 4 && (rest.empty() || rest.front() == '-') && t[0] >= '1' && t[0] <= '2') {
      return true;  // a year or an ISO date
    }
  }
  for (std::size_t i = 0; i + 4 < text.size(); ++i) {  // clock time h:mm / hh:mm
    if (text[i + 2] == ':' && IsDigit(text[i]) && IsDigit(text[i + 1]) &&
        IsDigit(text[i + 3]) && IsDigit(text[i + 4])) {
      return true;
    }
  }
  for (const char* phrase : {"next week", "last week", "next month", "this week"}) {
    if (text.find(phrase) != std::string_view::npos) return true;
  }
  return false;
}

bool HasPersonName(std::string_view text) {
  bool clause_start = true;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '.' || c == '!' || c == '?' || c == ':' || c == '"') {
      clause_start = true;
      ++i;
      continue;
    }
    if (!IsUpper(c) && !IsLower(c)) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < text.size() && IsLower(text[end])) ++end;
    const bool word_end = end >= text.size() || !(IsUpper(text[end]) || IsDigit(text[end]));
    if (!clause_start && IsUpper(c) && end - i >= 2 && word_end) {
      std::string lower(text.substr(i, end - i));
      for (char& ch : lower) ch = static_cast<char>(ch | 0x20);
      if (!DateWords().count(lower) && !IsStopword(lower)) return true;
    }
    clause_start = false;
    while (end < text.size() && (IsUpper(text[end]) || IsLower(text[end]) || IsDigit(text[end]))) ++end;
    i = end;
  }
  return false;
}

bool IsQueryFiller(std::string_view w) {
  static const std::set<std::string, std::less<>> kFiller = {
      "happen", "happened", "happens", "kind",     "sort",  "called", "now",
      "currently", "much",  "many",    "ever",     "said",  "say",    "mention",
      "mentioned", "does",  "doing",   "thing",    "things", "someone", "something"};
  return kFiller.count(w) > 0;
}

std::vector<std::string> CuratedExpansions(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::set<std::string> seen(tokens.begin(), tokens.end());
  for (const Expansion& e : Expansions()) {
    if (!std::all_of(e.triggers.begin(), e.triggers.end(),
                     [&](std::string_view s) { return HasToken(tokens, s); })) {
      continue;
    }
    for (std::string_view add : e.adds) {
      if (out.size() >= 12) return out;
      if (seen.insert(std::string(add)).second) out.emplace_back(add);
    }
  }
  return out;
}

std::vector<std::string> FeedbackCandidates(const std::vector<FeedbackDoc>& docs,
                                            const std::vector<std::string>& query_tokens,
                                            std::size_t max_terms) {
  std::set<std::string> seen(query_tokens.begin(), query_tokens.end());
  std::vector<std::string> out;
  sdk::FtsQueryOptions opt;
  opt.min_token_chars = 3;
  opt.max_tokens = 64;
  for (const FeedbackDoc& d : docs) {
    for (const std::string& t : sdk::FtsTokens(d.text, opt)) {
      if (out.size() >= max_terms) return out;
      if (IsStopword(t) || IsQueryFiller(t) || AllDigits(t)) continue;
      if (t.find_first_of("_./-+#") != std::string::npos) continue;  // compounds: pieces only
      if (seen.insert(t).second) out.push_back(t);
    }
  }
  return out;
}

std::vector<std::string> SelectFeedbackTerms(const std::vector<FeedbackDoc>& docs,
                                             const std::vector<std::string>& candidates,
                                             const std::map<std::string, int>& dfs,
                                             double n_docs, std::size_t count) {
  std::vector<std::vector<std::string>> doc_tokens;
  for (const FeedbackDoc& d : docs) {
    sdk::FtsQueryOptions opt;
    opt.max_tokens = 256;
    doc_tokens.push_back(sdk::FtsTokens(d.text, opt));
  }
  std::vector<std::pair<double, std::size_t>> scored;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto df = dfs.find(candidates[i]);
    if (df == dfs.end() || df->second < 2) continue;
    double p = 0;
    for (std::size_t d = 0; d < docs.size(); ++d) {
      if (doc_tokens[d].empty()) continue;
      // FtsTokens yields each token once per document, so tf is 0 or 1 here: short turns
      // and memories rarely repeat a word.
      const bool has = std::find(doc_tokens[d].begin(), doc_tokens[d].end(), candidates[i]) !=
                       doc_tokens[d].end();
      if (has) p += docs[d].weight / static_cast<double>(doc_tokens[d].size());
    }
    if (p <= 0) continue;
    scored.emplace_back(p * std::log(1.0 + std::max(1.0, n_docs) / df->second), i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < count; ++i) {
    out.push_back(candidates[scored[i].second]);
  }
  return out;
}

}  // namespace kioku::semantic
