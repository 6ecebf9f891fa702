#include "model.hpp"

#include <array>

namespace kioku::procedural {
namespace {

constexpr std::array<std::string_view, 4> kTaskStates = {"todo", "doing", "done", "skipped"};
constexpr std::array<std::string_view, 4> kPlanStatuses = {"active", "blocked", "done",
                                                           "archived"};

}  // namespace

std::string_view TaskStateName(TaskState state) {
  return kTaskStates[static_cast<std::size_t>(state)];
}

std::optional<TaskState> ParseTaskState(std::string_view name) {
  for (std::size_t i = 0; i < kTaskStates.size(); ++i) {
    if (kTaskStates[i] == name) return static_cast<TaskState>(i);
  }
  return std::nullopt;
}

std::string TaskKey(int number) { return "t" + std::to_string(number); }

std::string_view PlanStatusName(PlanStatus status) {
  return kPlanStatuses[static_cast<std::size_t>(status)];
}

std::optional<PlanStatus> ParsePlanStatus(std::string_view name) {
  for (std::size_t i = 0; i < kPlanStatuses.size(); ++i) {
    if (kPlanStatuses[i] == name) return static_cast<PlanStatus>(i);
  }
  return std::nullopt;
}

int Progress::Percent() const {
  if (total <= 0) return 0;
  return static_cast<int>((static_cast<std::int64_t>(done + skipped) * 100) / total);
}

PlanStatus PlanStatusOf(const PlanHeader& plan, const Progress& progress) {
  if (plan.archived) return PlanStatus::kArchived;
  if (progress.open_blockers > 0) return PlanStatus::kBlocked;
  if (progress.total > 0 && progress.done + progress.skipped == progress.total) {
    return PlanStatus::kDone;
  }
  return PlanStatus::kActive;
}

double RunStats::Smoothed() const {
  return (static_cast<double>(successes) + 1.0) / (static_cast<double>(runs) + 2.0);
}

}  // namespace kioku::procedural
