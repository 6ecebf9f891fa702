#pragma once
/// @file statement_values.hpp
/// Subject/value pairs of durable statements that set a value ("the parser uses winnow",
/// "we use pnpm", "from now on use vitest, not jest"), so that semantic's subject/value
/// contradiction key lets a later statement supersede an earlier one (memory_suggest
/// {subject, value}; semantic README "Supersession").
///
/// Patterns, tried in order on the statement clause (lowered, apostrophes folded):
///   1. a choice verb and its object: use/using, prefer, switch(ed) to, move(d) to,
///      migrate(d) to, go/went/going with, settle(d) on, standardi[sz]e(d) on, stick(ing)
///      with, keep, default(s) to, decided on, chose/choose/picked, run … through;
///   2. an explicit subject and a copula or a setting verb: "<np> uses|is|are|lives in|
///      goes through|runs on|defaults to|is stored in|are stored in <value>" where <np>
///      is one to five words that are not a pronoun.
/// The value is cut at the first ',', ';', '.', '(' or one of " not ", " instead",
/// " rather than", " over ", " for ", " because", " since", " unless", " when", " and ",
/// " so ", " - ", and kept when it is one to four words.
/// The subject, first that applies: the category of a well-known value (package-manager
/// for npm/pnpm/yarn/bun, test-runner for jest/vitest/pytest…, database, formatter, linter,
/// bundler, orm, parser, merge-strategy, indentation, timezone…); the noun phrase after
/// " for " ("use `uv run` for Python commands" → python-commands); the explicit <np>.
/// Subjects are lowered with spaces as '-', determiners dropped (semantic NormalizeSubject
/// does the rest). No pair is returned when any part is missing.

#include <optional>
#include <string>
#include <string_view>

namespace kioku::episodic {

struct SubjectValue {
  std::string subject;
  std::string value;
};

/// The pair a statement clause sets, or nullopt. `clause` is the original text (case
/// kept in the value, backticks and quotes removed).
std::optional<SubjectValue> FindSubjectValue(std::string_view clause);

}  // namespace kioku::episodic
