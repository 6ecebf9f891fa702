#pragma once
/// @file query_terms.hpp
/// Query-side text helpers of recall (recall.hpp), pure functions over tokens:
///
/// - Question filler: words of a question that say what kind of answer is wanted, not what
///   it is about ("what happened", "what kind of", "is it called now"). Dropped from the
///   word list like function words (IsStopword), unless nothing else is left.
/// - Curated expansions: a short, hand-written list of coding-agent vocabulary gaps
///   ("which JS dependency tool" → npm, pnpm, yarn, bun). Lexical recall cannot bridge a
///   category word to its members; vectors cover the general case (issue 16), this list
///   only the common ones. Each rule fires when all its trigger stems are in the query.
/// - Pseudo-relevance feedback: RM3-style expansion terms from the top hits (Lavrenko &
///   Croft, "Relevance-Based Language Models", SIGIR 2001; RM3 as in Abdul-Jaleel et al.,
///   "UMass at TREC 2004"): P(t|R) ≈ Σ_d w_d · tf(t,d)/|d| over the top documents d with
///   weights w_d, here times an IDF factor ln(1 + N/df) so a word in every turn (a speaker's
///   name) is not chosen; terms must occur in at least one other document (df ≥ 2), or they
///   could not find anything new.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::semantic {

/// What kind of answer a question asks for, from its words (lower-cased tokens):
/// kDate for when/date/day/month/year/time/schedule, kPerson for who/whom/whose.
enum class AnswerType { kAny, kDate, kPerson };
AnswerType QueryAnswerType(const std::vector<std::string>& tokens);

/// True when `text` holds a date or time expression: a month or weekday name, an ordinal
/// day ("25th"), a clock time ("02:30", "4am"), an ISO date, a relative day ("yesterday",
/// "weekend", "next week"). English only.
bool HasDateExpression(std::string_view text);

/// True when `text` names someone: a capitalised word (Upper + lower-case letters) that is
/// neither the first word of a sentence or clause (after . ! ? : or at the start) nor "I",
/// a month or a weekday. A heuristic (no NER model), English only.
bool HasPersonName(std::string_view text);

/// True for question filler (lower-case ASCII input); see the file comment.
bool IsQueryFiller(std::string_view lower_word);

/// Extra tokens for the lower-cased query `tokens` (sdk::FtsTokens output) from the curated
/// list, without tokens already in the query and without duplicates; at most 12.
std::vector<std::string> CuratedExpansions(const std::vector<std::string>& tokens);

/// One feedback document: its text and its weight w_d (e.g. 1/rank).
struct FeedbackDoc {
  std::string text;
  double weight = 1.0;
};

/// Candidate feedback terms: lower-cased tokens of `docs` of at least 3 characters, not
/// function words or filler, not digits only, not in `query_tokens`; first-seen order,
/// at most `max_terms`.
std::vector<std::string> FeedbackCandidates(const std::vector<FeedbackDoc>& docs,
                                            const std::vector<std::string>& query_tokens,
                                            std::size_t max_terms);

/// The `count` best candidates by Σ_d w_d·tf/|d| · ln(1 + n_docs/df), given each
/// candidate's document frequency `dfs` (terms missing from it or with df < 2 are skipped)
/// and the store size estimate `n_docs` (>= 1). Best first; ties keep candidate order.
std::vector<std::string> SelectFeedbackTerms(const std::vector<FeedbackDoc>& docs,
                                             const std::vector<std::string>& candidates,
                                             const std::map<std::string, int>& dfs,
                                             double n_docs, std::size_t count);

}  // namespace kioku::semantic
