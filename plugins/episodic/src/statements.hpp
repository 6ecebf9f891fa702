#pragma once
/// @file statements.hpp
/// Deterministic detection of durable statements in text the human typed (no LLM).
///
/// Input: one human message, already stripped of harness blocks (system reminders, IDE
/// context). Pasted material is removed first: fenced code blocks (```), lines quoted with
/// '>', indented blocks (4 spaces / tab) and log-looking lines (leading date/time or
/// log level). The rest is split into sentences (facets.hpp SplitSentences, also at
/// newlines) and each sentence is kept when:
///   trigger  — it starts (after "also,", "and", "ok,", "please" ...) with "from now on",
///              "going forward", "always", "never" (not "never mind"), "don't", "do not",
///              "remember that", "remember:", "the rule is", "make sure to always/never";
///              or contains "we decided", "we've decided", "we have decided", "we agreed",
///              "we settled on", "we've settled on", "from now on", "going forward",
///              "every time", "must never", "must always", "should never", "should always"
///              (the last four only after a subject that is not "I"/"we ... ?");
///   and none of the exclusions hold:
///     - a question (ends with '?', or starts with should/shall/can/could/would/do/does/
///       is/are/will + we/you/i);
///     - a hedge or musing: "not sure", "i wonder", "maybe", "perhaps", "might";
///     - first person about oneself or the past: starts with "I never"/"I always"/
///       "I don't"/"I didn't" or contains "i never", "i always";
///     - scoped to now: "right now", "for now", "this time", "this branch", "this pr",
///       "today", "for this task", "this session".
/// Kind: "we decided/agreed/settled", "must/should never|always", "never", "don't",
/// "the rule is" → decision; "remember that" → fact; otherwise preference.
/// The rules come from the examples and the sample transcripts' expectations
/// (shared/samples/transcripts/README.md §3).

#include <string>
#include <string_view>
#include <vector>

namespace kioku::episodic {

struct DurableStatement {
  std::string text;  ///< the sentence exactly as typed (trimmed)
  std::string kind;  ///< decision | preference | fact
};

/// Removes pasted code, quotes and log lines from a human message (see above).
std::string StripPastedMaterial(std::string_view text);

/// Durable statements of one human message, in order.
std::vector<DurableStatement> FindDurableStatements(std::string_view human_text);

}  // namespace kioku::episodic
