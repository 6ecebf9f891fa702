#include "context_provider.hpp"

#include <algorithm>
#include <unordered_map>

#include "graph.hpp"
#include "kioku/sdk/text.hpp"
#include "plan_store.hpp"

namespace kioku::procedural {
namespace {

constexpr std::size_t kReadyLines = 3;

}  // namespace

sdk::ContextContribution ProvideContext(sdk::HostServices& host, const sdk::ContextRequest& request) {
  sdk::ContextContribution out;
  if (!request.query.empty()) return out;
  auto& db = host.Db();
  const auto id = LatestPlanId(db, request.caller.project_id);
  if (!id) return out;
  const auto plan = LoadPlan(db, *id);
  if (!plan) return out;
  const auto tasks = LoadTasks(db, *id);
  std::vector<int> blocked;
  for (const auto& b : OpenBlockers(db, *id)) blocked.push_back(b.task);
  const auto ready = ReadySet(tasks, blocked);
  std::unordered_map<int, const Task*> by_number;
  int finished = 0;
  for (const auto& t : tasks) {
    by_number.emplace(t.number, &t);
    if (t.state == TaskState::kDone || t.state == TaskState::kSkipped) ++finished;
  }
  const std::string plan_text = "plan \"" + sdk::TruncateUtf8(plan->title, 80) + "\" (" +
                                std::to_string(finished) + "/" + std::to_string(tasks.size()) + " done)";
  for (std::size_t i = 0; i < std::min(ready.size(), kReadyLines); ++i) {
    const Task& t = *by_number.at(ready[i]);
    std::string text = plan_text + ": " + TaskKey(t.number) + " " + sdk::TruncateUtf8(t.title, 120);
    if (i == 0) text += " (plan_check when done)";
    out.items.push_back({"task", i == 0 ? "next" : "ready", std::move(text), i == 0 ? 0.9 : 0.6});
  }
  if (!blocked.empty()) {
    out.items.push_back({"task", "blocked",
                         plan_text + ": " + std::to_string(blocked.size()) +
                             " open blocker(s) (plan_status plan:\"latest\")",
                         0.6});
  }
  return out;
}

}  // namespace kioku::procedural
