#pragma once
/// @file rivals.hpp
/// Rival detection for memories without a shared subject (issue 14, "Contradictions without
/// a subject"): two memories of the same kind and scope that talk about the same topic but
/// assert different values. Deterministic, no model; the same two texts always give the
/// same verdict. Pure functions, thread-safe.
///
/// A text is reduced to a TopicProfile:
///   terms      content words (ASCII lower-case, light plural/-ing/-ed stemming, stopwords
///              and value-like tokens removed) plus the subject's words;
///   values     value-like tokens: numbers and versions (the digit run of a token that
///              starts with a digit, "v<digit>" or holds '@': "v20" → "20", "4-space" → "4";
///              names with digits such as "m12" or "ec2" are terms, and so is a number after
///              a counter noun: "issue 12" → "issue#12"), file paths, and the words of an
///              explicit `value`;
///   categories members of a small lexicon of interchangeable choices (package managers,
///              test runners, bundlers, databases, build systems, branches, indentation, …)
///              found in the text, the value, or implied by the subject ("package-manager").
///              A member preceded within two words by a demoting word ("from", "not",
///              "instead of", "over", "than", "replaced", "stopped", "no", "without", …) is
///              mentioned but not asserted: "switched from pnpm to bun" asserts only bun.
///   negative   the text holds a negator (not, never, don't, avoid, …).
///
/// ClassifyPair(older, newer):
///   rival        (1) both assert members of one category and the asserted sets are
///                disjoint ("we use yarn now" vs "switched from pnpm to bun"); for weekdays
///                only when the two share a term (a day says when, not what: "backups run
///                on Mondays" vs "deploys go out on Fridays" are unrelated); or
///                (2) same topic — term Jaccard >= 0.5 with >= 2 shared terms — and either
///                the polarity differs or both carry values and the value sets are disjoint
///                ("Node 18" vs "Node 20", "indent 2 spaces" vs "indent 4 spaces");
///   restatement  same topic (category asserted sets equal, or the Jaccard rule) without a
///                value or polarity difference;
///   unrelated    otherwise; always when both memories carry a subject (the subject/value
///                key already decides those: memory_store.hpp ResolveSubject); and when both
///                name numbered things or names with digits and these differ ("issue#12" vs
///                "issue#13", "module cache_1" vs "module cache_17": two things, not two values);
///                when both name file paths and these differ, unless both say where something
///                is ("src/api/users.ts is generated" vs "src/api/orders.ts is generated": two
///                files; "config lives in config/app.yaml" vs "… in etc/app.yaml": a value); and
///                when a shared term has, right before it on each side, a term the other side
///                does not use ("the API server listens on 8080" vs "the admin server listens
///                on 9090": two servers).
/// Precision and recall on the labelled set tests/fixtures/rival_pairs.jsonl are printed
/// by the RivalPairs test (plugins/semantic/README.md "Rivals").

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kioku::semantic {

/// Words sorted ascending (std::string's order), each once: what a profile holds per field,
/// in one allocation where a std::set takes one per word.
using SortedWords = std::vector<std::string>;

/// Whether `words` (sorted, as SortedWords) holds `w`; a binary search.
bool Holds(const SortedWords& words, std::string_view w);

/// The members of one category a text names ("package-manager": "bun").
struct CategoryMembers {
  /// A category name of the lexicon in rivals.cpp (static storage: valid while the module
  /// that built the profile is loaded).
  std::string_view category;
  SortedWords members;  ///< may be empty in `mentioned` (a subject that names the category)
};
/// Categories sorted by name, each once.
using CategoryList = std::vector<CategoryMembers>;

/// The members `list` holds for `category`, or null when it does not name the category.
const SortedWords* MembersOf(const CategoryList& list, std::string_view category);

struct TopicProfile {
  std::string subject;  ///< Normalized subject key, "" = none.
  SortedWords terms;
  SortedWords numbered;  ///< the terms holding a digit or '#' ("cache_17", "issue#12")
  SortedWords values;
  SortedWords paths;     ///< file paths named in the text (also in `values`)
  bool locates = false;  ///< the text says where something is ("lives in", "moved to")
  /// (term, a term right before it), sorted, each pair once: "api server" → ("server", "api").
  std::vector<std::pair<std::string, std::string>> modifiers;
  CategoryList asserted;   ///< category → members asserted (never empty)
  CategoryList mentioned;  ///< category → members named
  bool negative = false;
};

/// Profile of a memory. `subject` is the normalized subject key ("" = none).
TopicProfile BuildTopicProfile(std::string_view text, std::string_view subject = {},
                               std::string_view value = {});

enum class PairKind { kUnrelated, kRestatement, kRival };

struct PairVerdict {
  PairKind kind = PairKind::kUnrelated;
  std::string reason;  ///< For rivals: "package-manager: yarn vs bun", "values 18 vs 20", …
};

/// Verdict for two memories already known to share kind and scope.
PairVerdict ClassifyPair(const TopicProfile& older, const TopicProfile& newer);

/// Jaccard similarity |a ∩ b| / |a ∪ b| of two sorted word sets (0 when both are empty).
double TermJaccard(const SortedWords& a, const SortedWords& b);

/// Words to find candidate rivals of `p` in the text index, at most `max` in all.
struct RivalTerms {
  std::vector<std::string> category;  ///< every member of the categories p names ("yarn" finds bun)
  std::vector<std::string> words;     ///< p's terms (values alone never make a rival)
};
RivalTerms RivalSearchTerms(const TopicProfile& p, std::size_t max = 32);

}  // namespace kioku::semantic
