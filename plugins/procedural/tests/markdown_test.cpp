#include "markdown.hpp"

#include <gtest/gtest.h>

namespace kioku::procedural {
namespace {

TEST(MarkdownTest, ParsesTitleGoalNestingAndStates) {
  const auto list = ParseChecklist(
      "# Release 2.0\n"
      "\n"
      "Ship the new API.\n"
      "\n"
      "- [x] Write changelog\n"
      "- [ ] Publish\n"
      "  - [ ] Tag the release\n"
      "    run git tag v2.0\n"
      "  * [X] Build artifacts\n"
      "1. [ ] Announce\n",
      100);
  EXPECT_EQ(list.title, "Release 2.0");
  EXPECT_EQ(list.goal, "Ship the new API.");
  ASSERT_EQ(list.items.size(), 5u);
  EXPECT_EQ(list.items[0].state, TaskState::kDone);
  EXPECT_EQ(list.items[1].title, "Publish");
  EXPECT_FALSE(list.items[1].parent.has_value());
  EXPECT_EQ(list.items[2].parent, std::optional<std::size_t>(1));
  EXPECT_EQ(list.items[2].description, "run git tag v2.0");
  EXPECT_EQ(list.items[3].parent, std::optional<std::size_t>(1));
  EXPECT_EQ(list.items[3].state, TaskState::kDone);
  EXPECT_FALSE(list.items[4].parent.has_value());
  EXPECT_EQ(list.items[4].key, 5);
}

TEST(MarkdownTest, SkipsFencedCode) {
  const auto list = ParseChecklist("- [ ] a\n```\n- [ ] not a task\n```\n- [ ] b\n", 10);
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[1].title, "b");
}

TEST(MarkdownTest, RefusesBrokenNesting) {
  // Between a parent's marker and its content column: matches no level.
  try {
    ParseChecklist("- [ ] a\n  - [ ] b\n   - [ ] c\n", 10);
    FAIL() << "accepted";
  } catch (const MarkdownError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("matches no enclosing item"), std::string::npos) << e.what();
  }
  // Skipping a level.
  try {
    ParseChecklist("- [ ] a\n          - [ ] b\n", 10);
    FAIL() << "accepted";
  } catch (const MarkdownError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("skips a level"), std::string::npos) << e.what();
  }
  // An indented first item has no parent.
  EXPECT_THROW(ParseChecklist("      - [ ] a\n", 10), MarkdownError);
  EXPECT_THROW(ParseChecklist("- [ ]\n", 10), MarkdownError);
  EXPECT_THROW(ParseChecklist("just text\n", 10), MarkdownError);
  EXPECT_THROW(ParseChecklist("- [ ] a <!-- kioku:t1 after:t7 -->\n", 10), MarkdownError);
  EXPECT_THROW(ParseChecklist("- [ ] a\n- [ ] b\n- [ ] c\n", 2), MarkdownError);
}

std::vector<Task> TasksFrom(const ParsedChecklist& list) {
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const auto& item = list.items[i];
    Task t;
    t.number = item.key;
    t.title = item.title;
    t.description = item.description;
    t.state = item.state;
    t.note = item.reason;
    if (item.parent) t.parent = list.items[*item.parent].key;
    t.depends_on = item.after;
    for (const auto& child : list.items) {
      if (child.parent && list.items[*child.parent].key == item.key) t.depends_on.push_back(child.key);
    }
    tasks.push_back(std::move(t));
  }
  return tasks;
}

TEST(MarkdownTest, RoundTripsTasksStatesDependenciesAndDescriptions) {
  std::vector<Task> tasks(5);
  for (int i = 0; i < 5; ++i) {
    tasks[i].number = i + 1;
    tasks[i].title = "Task " + std::to_string(i + 1);
  }
  tasks[0].state = TaskState::kDone;
  tasks[1].state = TaskState::kDoing;
  tasks[1].description = "line one\n- a plain bullet\n- [ ] looks like a task";
  tasks[2].parent = 2;
  tasks[2].state = TaskState::kSkipped;
  tasks[2].note = "not needed --> really";
  tasks[1].depends_on = {3};  // its child
  tasks[3].depends_on = {1, 2};
  tasks[4].title = "Task 1";  // duplicate title, told apart by key
  const std::string md = WriteChecklist("Plan", "Goal line\n# not a heading", tasks);
  const auto list = ParseChecklist(md, 100);
  EXPECT_EQ(list.title, "Plan");
  EXPECT_EQ(list.goal, "Goal line\n# not a heading");
  const auto back = TasksFrom(list);
  ASSERT_EQ(back.size(), tasks.size()) << md;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(back[i].number, tasks[i].number) << md;
    EXPECT_EQ(back[i].title, tasks[i].title) << md;
    EXPECT_EQ(back[i].state, tasks[i].state) << md;
    EXPECT_EQ(back[i].parent, tasks[i].parent) << md;
    EXPECT_EQ(back[i].description, tasks[i].description) << md;
    auto a = back[i].depends_on;
    auto b = tasks[i].depends_on;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << md;
  }
  EXPECT_EQ(back[2].note, "not needed -> really");
  // Writing it again gives the same text.
  EXPECT_EQ(WriteChecklist(list.title, list.goal, back), md);
}

}  // namespace
}  // namespace kioku::procedural
