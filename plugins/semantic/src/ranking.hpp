#pragma once
/// @file ranking.hpp
/// The multipliers applied to a memory's fused (RRF) score in memory_recall:
///
///   score = rrf × decay × importance × strength × trust
///
/// rrf       Σ_i w_i / (k + rank_i), k = 60 — Cormack, Clarke & Büttcher, SIGIR 2009
///           (sdk::ReciprocalRankFusion); lists and weights in settings.hpp ListWeights.
/// decay     Power-law forgetting curve of FSRS (Free Spaced Repetition Scheduler, FSRS-4.5,
///           https://github.com/open-spaced-repetition/fsrs4anki/wiki/The-Algorithm):
///             R(t) = (1 + F·t/S)^C,  C = -0.5,  F = 19/81  (so R(S) = 0.9)
///           We parameterize by the half-life h (R(h) = 0.5) per kind instead of FSRS's
///           stability S: S = F·h / (0.5^(1/C) − 1), which for C = -0.5 is S = F·h/3.
///           t = days since the memory was last stated (captured, reaffirmed or edited).
///           Recalls do not reset t — they feed `strength` instead — so the memories a
///           recall happens to return do not stay fresh forever. Pinned memories: R = 1.
///           Why power law, not exponential: human and agent memory retention follows a
///           power function of time (Wixted & Ebbesen 1991, "On the form of forgetting";
///           FSRS-4.5 switched from exponential to power for the same reason). The half-lives
///           (decision/preference 180 d, correction/lesson 120 d, fact 90 d, observation 30 d,
///           event/todo 14 d) are our defaults: durable choices outlive transient events.
/// importance  m = 1 + w·(importance − 5)/5, w = 0.3 → 0.76 (1) … 1.3 (10). Linear in the
///           1–10 scale agenr uses for extracted entries (agenr seed, "Extract").
/// strength  m = 1 + w·ln(1 + recalls + reaffirms), w = 0.15, for a text query only when the
///           memory matches every word of the query (ScoreInput::usage_counts); each use strengthens with
///           diminishing returns, as ACT-R base-level learning grows with the log of practice
///           count (Anderson & Schooler 1991, "Reflections of the environment in memory";
///           agenr seed: "Entries that get recalled often grow stronger").
/// trust     status multiplier (active 1, pinned 1.15, pending 0.6, contested 0.5,
///           superseded 0.3) × (0.5 + 0.5·confidence): unconfirmed memories rank below
///           confirmed ones and are labelled (token-goat-mem seed, "Recall with trust
///           levels").

#include <cstdint>
#include <string>

#include "memory.hpp"
#include "settings.hpp"

namespace kioku::semantic {

/// FSRS factor F = 19/81 (FSRS-4.5: chosen so that R(S, S) = 0.9).
inline constexpr double kFsrsFactor = 19.0 / 81.0;

/// R(t) for `elapsed_days` >= 0 and half-life `half_life_days` > 0, exponent `c` < 0.
/// Returns 1 at t = 0 and 0.5 at t = half_life_days.
double Retrievability(double elapsed_days, double half_life_days, double c = -0.5);

/// Per-memory parts of the score (each multiplier, then their product with rrf).
struct ScoreParts {
  double rrf = 0;
  double decay = 1;
  double importance = 1;
  double strength = 1;
  double trust = 1;
  double total = 0;
};

/// The fields of a memory the multipliers read.
struct ScoreInput {
  std::string kind;
  int importance = 5;
  double confidence = 1.0;
  std::int64_t updated_at = 0;
  int recall_count = 0;
  int reaffirm_count = 0;
  /// False: strength is 1 whatever the counts. Recall sets it for text queries to "matches
  /// every query word", so usage orders exact matches among themselves but never lifts a
  /// partial match above an exact one (at 100k rows, rows shown often had climbed above
  /// exact matches: issue 16).
  bool usage_counts = true;
};

/// Computes the multipliers at time `now_ms`, given `status` (the status the memory had at
/// the time asked about; may differ from the stored one for as_of queries).
ScoreParts Score(const ScoreInput& in, const std::string& status, double rrf,
                 std::int64_t now_ms, const MultiplierSettings& s);

/// Score() over a full memory.
ScoreParts ScoreMemory(const Memory& m, const std::string& status, double rrf,
                       std::int64_t now_ms, const MultiplierSettings& s);

}  // namespace kioku::semantic
