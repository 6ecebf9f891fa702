#pragma once
/// @file conversation_eval.hpp
/// Conversational recall harness: multi-session conversations, each turn stored as one
/// memory, and questions whose answers sit in marked earlier turns (the shape of public
/// long-conversation memory benchmarks). Runs against the exact recall code the tool uses.
///
/// File: JSON Lines; blank lines and lines starting with '#' or '//' are ignored.
///
///   {"conversation": "c01", "title": "..."}
///      Optional header of a conversation (ignored by the loader; documents the file).
///   {"turn": {"conversation": "c01", "id": "c01:s1t3", "session": 1,
///             "date": "2026-01-08", "speaker": "Tom", "text": "...", "kind": "event"}}
///      One turn. Stored as a memory of `kind` (default "event") with text
///      "<speaker>: <text>", captured at `date` (RFC 3339 full-date or date-time, UTC) plus
///      one minute per earlier turn of the file, in the conversation's own project, so a
///      question only ever sees its own conversation's turns.
///   {"query": "...", "conversation": "c01", "evidence": ["c01:s1t3"], "type": "fact"}
///      A question. A result is relevant when it is one of the `evidence` turns. `type`
///      (free text: preference, fact, changed, date, name, paraphrase) groups the report.
///
/// Metrics: as golden_eval.hpp (hit@1, hit@5, MRR, recall@10 over the evidence turns).
/// The evaluation clock is 2026-06-01T00:00:00Z; turns must be dated before it.

#include <iosfwd>

#include "golden_eval.hpp"

namespace kioku::semantic {

/// Loads a conversation set into a private in-memory database and asks every question.
/// Throws std::runtime_error naming the line for malformed input, an unknown evidence id, a
/// duplicate turn id or a turn dated after the evaluation clock.
EvalReport RunConversationSet(std::istream& in, const Settings& settings,
                              EvalRanker ranker = EvalRanker::kRecall, EvalVectors* vectors = nullptr);

/// True when the text holds at least one "turn" line (a conversation set, not a golden set).
bool IsConversationSet(const std::string& text);

}  // namespace kioku::semantic
