#include "graph.hpp"

#include <gtest/gtest.h>

namespace kioku::procedural {
namespace {

Task MakeTask(int n, TaskState s, std::vector<int> deps = {}) {
  Task t;
  t.number = n;
  t.title = "task " + std::to_string(n);
  t.state = s;
  t.depends_on = std::move(deps);
  return t;
}

TEST(GraphTest, FindsNoCycleInADag) {
  EXPECT_FALSE(FindCycle({{1, {}}, {2, {1}}, {3, {1, 2}}}).has_value());
}

TEST(GraphTest, NamesTheCycle) {
  const auto cycle = FindCycle({{1, {}}, {2, {3}}, {3, {4}}, {4, {2}}});
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(CycleText(*cycle), "t2 → t3 → t4 → t2");
}

TEST(GraphTest, SelfDependencyIsACycle) {
  const auto cycle = FindCycle({{1, {1}}});
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(CycleText(*cycle), "t1 → t1");
}

TEST(GraphTest, DeepChainDoesNotOverflow) {
  std::vector<DepNode> nodes;
  for (int i = 1; i <= 100000; ++i) nodes.push_back({i, i > 1 ? std::vector<int>{i - 1} : std::vector<int>{}});
  EXPECT_FALSE(FindCycle(nodes).has_value());
  nodes[0].depends_on = {100000};
  EXPECT_TRUE(FindCycle(nodes).has_value());
}

TEST(GraphTest, ReadySetFollowsDependencies) {
  std::vector<Task> tasks = {MakeTask(1, TaskState::kDone), MakeTask(2, TaskState::kTodo, {1}),
                             MakeTask(3, TaskState::kTodo, {2}),
                             MakeTask(4, TaskState::kTodo, {1}),
                             MakeTask(5, TaskState::kDoing), MakeTask(6, TaskState::kTodo)};
  EXPECT_EQ(ReadySet(tasks, {}), (std::vector<int>{2, 4, 6}));
  // A blocker takes a task out of the ready set.
  EXPECT_EQ(ReadySet(tasks, {4}), (std::vector<int>{2, 6}));
  // Skipped satisfies a dependency like done.
  tasks[1].state = TaskState::kSkipped;
  EXPECT_EQ(ReadySet(tasks, {}), (std::vector<int>{3, 4, 6}));
  EXPECT_EQ(UnfinishedDependencies(tasks[2], tasks), std::vector<int>{});
  EXPECT_EQ(UnfinishedDependencies(MakeTask(9, TaskState::kTodo, {5, 1, 6}), tasks),
            (std::vector<int>{5, 6}));
}

}  // namespace
}  // namespace kioku::procedural
