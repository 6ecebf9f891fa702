#include "outcome.hpp"

namespace kioku::affective {

std::optional<OutcomeKind> ParseOutcome(std::string_view name) {
  for (int i = 0; i < kOutcomeKinds; ++i) {
    if (kOutcomeNames[static_cast<std::size_t>(i)] == name) return static_cast<OutcomeKind>(i);
  }
  return std::nullopt;
}

std::string_view OutcomeName(OutcomeKind kind) {
  return kOutcomeNames[static_cast<std::size_t>(kind)];
}

double SuccessCredit(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kSuccess:
      return 1.0;
    case OutcomeKind::kPartial:
      return 0.5;
    default:
      return 0.0;
  }
}

}  // namespace kioku::affective
