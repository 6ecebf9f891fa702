#pragma once
/// @file validation.hpp
/// Whether a plan is finished, and what is missing when it is not. A plan passes when it
/// has at least one task, every task is done or skipped with a reason, no blocker is open,
/// and every acceptance criterion is marked met. (Unlike dokoro's plan_validate, a plan at
/// 0 % — or an empty one — never passes.)

#include <string>
#include <vector>

#include "model.hpp"

namespace kioku::procedural {

struct Problem {
  std::string kind;  ///< no_tasks | unfinished | skip_reason | blocker | criterion
  int task = 0;      ///< 0 for the plan itself.
  std::string text;  ///< What is missing and what to send, one line.
};

struct ValidationReport {
  bool passed = false;
  std::vector<Problem> problems;  ///< Every problem, in task order.
};

ValidationReport ValidatePlan(const std::vector<Task>& tasks,
                              const std::vector<Blocker>& open_blockers);

}  // namespace kioku::procedural
