#include "graph.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kioku::procedural {

std::optional<std::vector<int>> FindCycle(const std::vector<DepNode>& nodes) {
  std::unordered_map<int, std::size_t> index;
  index.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].number, i);
  enum Colour : unsigned char { kWhite, kGrey, kBlack };
  std::vector<Colour> colour(nodes.size(), kWhite);
  // Explicit DFS stack: (node, next edge to follow).
  std::vector<std::pair<std::size_t, std::size_t>> stack;
  for (std::size_t root = 0; root < nodes.size(); ++root) {
    if (colour[root] != kWhite) continue;
    stack.push_back({root, 0});
    colour[root] = kGrey;
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      const auto& deps = nodes[node].depends_on;
      if (edge == deps.size()) {
        colour[node] = kBlack;
        stack.pop_back();
        continue;
      }
      const int target = deps[edge++];
      const auto it = index.find(target);
      if (it == index.end()) continue;
      const std::size_t next = it->second;
      if (colour[next] == kGrey) {
        std::vector<int> cycle;
        auto from = std::find_if(stack.begin(), stack.end(),
                                 [&](const auto& frame) { return frame.first == next; });
        for (; from != stack.end(); ++from) cycle.push_back(nodes[from->first].number);
        cycle.push_back(nodes[next].number);
        return cycle;
      }
      if (colour[next] == kWhite) {
        colour[next] = kGrey;
        stack.push_back({next, 0});
      }
    }
  }
  return std::nullopt;
}

std::string CycleText(const std::vector<int>& cycle) {
  std::string out;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    if (i > 0) out += " → ";
    out += TaskKey(cycle[i]);
  }
  return out;
}

namespace {

std::unordered_set<int> FinishedSet(const std::vector<Task>& tasks) {
  std::unordered_set<int> finished;
  for (const auto& t : tasks) {
    if (IsFinished(t.state)) finished.insert(t.number);
  }
  return finished;
}

}  // namespace

std::vector<int> ReadySet(const std::vector<Task>& tasks, const std::vector<int>& blocked) {
  const auto finished = FinishedSet(tasks);
  const std::unordered_set<int> blocked_set(blocked.begin(), blocked.end());
  std::vector<int> ready;
  for (const auto& t : tasks) {
    if (t.state != TaskState::kTodo || blocked_set.count(t.number) > 0) continue;
    const bool waiting = std::any_of(t.depends_on.begin(), t.depends_on.end(),
                                     [&](int d) { return finished.count(d) == 0; });
    if (!waiting) ready.push_back(t.number);
  }
  std::sort(ready.begin(), ready.end());
  return ready;
}

std::vector<int> UnfinishedDependencies(const Task& task, const std::vector<Task>& tasks) {
  std::unordered_map<int, TaskState> state;
  for (const auto& t : tasks) state.emplace(t.number, t.state);
  std::vector<int> out;
  for (int d : task.depends_on) {
    const auto it = state.find(d);
    if (it == state.end() || !IsFinished(it->second)) out.push_back(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kioku::procedural
