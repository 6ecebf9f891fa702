#pragma once
/// @file statements.hpp
/// Deterministic extraction of durable statements from text the human typed (no LLM):
/// standing preferences, rules, decisions, facts to remember and corrections.
///
/// Input: one human message, already stripped of harness blocks by the parser (system
/// reminders, IDE context). A message that is itself injected text (AGENTS.md / CLAUDE.md
/// contents, <user_instructions>, environment context, a compaction summary that reached
/// a user line) yields nothing. Pasted material is removed (statement_text.hpp); the rest
/// is split into sentences (facets.hpp SplitSentences, also at newlines) and each sentence
/// is classified on features (README "Transcript extraction" justifies each one):
///   revision   "scratch that", "on second thought", "change of plan", "correction:" …:
///              only the words after the last marker are the statement (X is dropped,
///              Y is kept in "we decided on X, but scratch that: from now on Y");
///   leads      discourse openers are skipped ("also", "ok", "no -", "so", "as I said" …);
///   positive   a label or framing ("Rule of thumb:", "Note for future sessions:", "The
///              convention here is", "It's settled:"); scope words ("from now on", "going
///              forward", "in this repo", "for future"); habitual markers in imperative or
///              modal position ("always …", "never …", "every time", "each time you",
///              "whenever", "by default"); prohibitions ("don't …", "must not"); decision
///              and agreement verbs with "we" ("we decided", "we agreed with X that", "we
///              settled on", "we use"); "remember that" / "keep in mind"; permission and
///              delegation ("you don't need to ask before", "default to … unless I say
///              otherwise", "please stop …ing", "feel free to"); first-person preferences
///              addressed to the agent ("I prefer", "I'd rather", "I want you to always");
///              an imperative with a contrast ("use X, not Y"); a correction ("actually,
///              X, not Y");
///   negative   a question ('?', or aux+subject / wh+aux first); a hedge or musing
///              ("not sure", "maybe", "I think", "might"); a hypothetical ("if we ever",
///              "what if", "would"); reported speech (a reporting verb whose subject is not
///              I/we: "sam keeps saying", "the docs say", "we were told"); a remark about
///              the human ("I always forget", "I never got … to work", "note to self");
///              a temporal or task limiter ("for now", "today", "yet", "this branch", "for
///              this one", "right now" — not "like this one"/"not even … this one");
///              past narrative ("used to", "has always been") unless a decision verb;
///              a prohibition of a deictic object ("don't do that", "don't push it").
///   Any negative feature vetoes; otherwise one positive feature makes it durable.
/// Kind, first that applies: correction (a correction marker with a contrast); decision
/// (decision/agreement verbs, rule/policy/convention labels and framings, prohibitions,
/// must); fact ("remember that", "keep in mind", "FYI", "heads-up", an agreement with a
/// third party, a declarative body under a note label); preference (the rest).
/// Subject/value: statement_values.hpp. Within one message a later statement with the
/// same subject replaces an earlier one, and the same text is returned once.
///
/// Seam for an optional LLM pass (not built: no chat provider yet): a proposer would
/// return candidate sentences; each must occur verbatim in StripPastedMaterial(message)
/// and is then run through ClassifyStatement's kind/subject logic and lands pending like
/// these. The deterministic pass stays the default and the only one inside a hook.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statement_text.hpp"

namespace kioku::episodic {

struct DurableStatement {
  std::string text;     ///< the statement as typed (trimmed; revised part only)
  std::string kind;     ///< preference | decision | fact | correction
  std::string subject;  ///< contradiction key ("package-manager"), "" when none
  std::string value;    ///< its value ("pnpm"), "" when none
  std::string why;      ///< the features that decided, e.g. "scope+imperative"
};

/// True for a whole message that is harness text, not the human (AGENTS.md/CLAUDE.md
/// contents, <user_instructions>, <environment_context>, a compaction summary).
bool IsInjectedMessage(std::string_view text);

/// Classifies one sentence; nullopt when it is not a durable statement.
std::optional<DurableStatement> ClassifyStatement(std::string_view sentence);

/// Durable statements of one human message, in order.
std::vector<DurableStatement> FindDurableStatements(std::string_view human_text);

}  // namespace kioku::episodic
