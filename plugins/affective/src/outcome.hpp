#pragma once
/// @file outcome.hpp
/// One tool outcome as the affective layer stores it, and the outcome vocabulary.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kioku::affective {

/// What happened when a tool ran. Matches sdk::ToolCallEvent::outcome plus `partial`.
enum class OutcomeKind { kSuccess = 0, kFailure = 1, kPartial = 2, kRejected = 3, kTimeout = 4 };

inline constexpr int kOutcomeKinds = 5;
inline constexpr std::array<std::string_view, kOutcomeKinds> kOutcomeNames = {
    "success", "failure", "partial", "rejected", "timeout"};

/// "success" → kSuccess, ...; nullopt for anything else (case-sensitive).
std::optional<OutcomeKind> ParseOutcome(std::string_view name);
std::string_view OutcomeName(OutcomeKind kind);

/// Success credit of one outcome for rates and routing scores: success 1, partial 0.5
/// (half a success, as issue 5 specifies), everything else 0.
double SuccessCredit(OutcomeKind kind);

/// Where a record came from (stored in `affective_outcomes.source`).
inline constexpr std::string_view kSourceRecord = "record";  ///< feedback_record tool
inline constexpr std::string_view kSourceEvent = "event";    ///< host tool.called event
inline constexpr std::string_view kSourceHook = "hook";      ///< `kioku hook post-tool-use`

/// A normalized outcome ready to store: strings are valid UTF-8, `error` is already
/// whitespace-collapsed, secret-redacted and truncated, `agent_id` is never empty.
/// Empty `model`/`project_id`/`session_id`/`error_class`/`source_id` mean "not given".
struct OutcomeRecord {
  std::string tool;
  OutcomeKind outcome = OutcomeKind::kSuccess;
  std::optional<double> latency_ms;  ///< >= 0
  std::optional<double> confidence;  ///< in [0, 1]
  std::string agent_id;
  std::string model;
  std::string project_id;
  std::string session_id;
  std::string error_class;
  std::string error;
  std::int64_t at_ms = 0;  ///< When the call finished, Unix ms.
  std::string source;      ///< kSourceRecord / kSourceEvent / kSourceHook
  std::string source_id;   ///< Caller's unique id for deduplication (e.g. a tool_use id).
};

}  // namespace kioku::affective
