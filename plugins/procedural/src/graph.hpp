#pragma once
/// @file graph.hpp
/// The dependency graph of a plan's tasks: cycle detection that names the cycle, the ready
/// set, and the dependencies a task still waits for. Tasks are identified by their number;
/// every function is linear in tasks + edges (iterative, so a 10,000-deep chain cannot
/// overflow the stack).

#include <optional>
#include <string>
#include <vector>

#include "model.hpp"

namespace kioku::procedural {

/// Edges of one task: `number` waits for every task in `depends_on`.
struct DepNode {
  int number = 0;
  std::vector<int> depends_on;
};

/// A dependency cycle as the task numbers along it, first repeated at the end
/// ({2, 5, 2} = t2 waits for t5, which waits for t2), or nullopt when the graph is acyclic.
/// Edges to numbers that are not nodes are ignored (callers reject them first). Depth-first
/// search with three colours (Cormen et al., "Introduction to Algorithms", §22.3: a back
/// edge closes a cycle).
std::optional<std::vector<int>> FindCycle(const std::vector<DepNode>& nodes);

/// "t2 → t5 → t2".
std::string CycleText(const std::vector<int>& cycle);

/// Tasks that can start now: state todo, every dependency finished (done or skipped), no
/// open blocker on the task. In task-number order. `blocked` lists tasks with an open
/// blocker.
std::vector<int> ReadySet(const std::vector<Task>& tasks, const std::vector<int>& blocked);

/// Dependencies of `task` that are not finished yet, in number order.
std::vector<int> UnfinishedDependencies(const Task& task, const std::vector<Task>& tasks);

}  // namespace kioku::procedural
