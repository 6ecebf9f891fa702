#include "validation.hpp"

#include <algorithm>
#include <map>

#include "kioku/sdk/text.hpp"

namespace kioku::procedural {

ValidationReport ValidatePlan(const std::vector<Task>& tasks,
                              const std::vector<Blocker>& open_blockers) {
  ValidationReport report;
  if (tasks.empty()) {
    report.problems.push_back({"no_tasks", 0, "the plan has no tasks: nothing shows it is done"});
  }
  std::multimap<int, const Blocker*> blockers;
  for (const auto& b : open_blockers) blockers.emplace(b.task, &b);
  for (const auto& t : tasks) {
    const std::string key = TaskKey(t.number);
    const std::string title = sdk::TruncateUtf8(t.title, 60);
    if (!IsFinished(t.state)) {
      report.problems.push_back({"unfinished", t.number,
                                 key + " '" + title + "' is " + std::string(TaskStateName(t.state)) +
                                     ": finish it or skip it with a reason"});
    } else if (t.state == TaskState::kSkipped && sdk::CollapseWhitespace(t.note).empty()) {
      report.problems.push_back({"skip_reason", t.number,
                                 key + " '" + title +
                                     "' was skipped without a reason: set skipped again with a note"});
    }
    const auto [from, to] = blockers.equal_range(t.number);
    for (auto it = from; it != to; ++it) {
      report.problems.push_back({"blocker", t.number,
                                 key + " has an open blocker (" +
                                     sdk::TruncateUtf8(it->second->reason, 80) +
                                     "): clear it with plan_check unblock"});
    }
    for (const auto& c : t.criteria) {
      if (c.met) continue;
      report.problems.push_back({"criterion", t.number,
                                 key + " criterion " + std::to_string(c.number) + " not met (" +
                                     sdk::TruncateUtf8(c.text, 80) +
                                     "): mark it with plan_check met:[" +
                                     std::to_string(c.number) + "]"});
    }
  }
  report.passed = report.problems.empty();
  return report;
}

}  // namespace kioku::procedural
