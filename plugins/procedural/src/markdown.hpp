#pragma once
/// @file markdown.hpp
/// Plans as Markdown checklists, so a plan written in a PR description or a TODO.md can be
/// loaded and written back.
///
/// Grammar (line based; GitHub task-list items, https://github.github.com/gfm/#task-list-items-extension-):
///   `# Title`                         first level-1 heading: the plan title
///   text outside the list             the plan goal
///   `- [ ] title` / `- [x] title`     a task (markers `-`, `*`, `+`, `1.`, `1)`; `[X]` too)
///   nested task items                 subtasks; the parent depends on its children
///   indented text / plain bullets     the enclosing task's description
///   `<!-- kioku:t3 after:t1,t2 state:doing reason: … -->` at the end of an item
///                                     optional: the task's key, its other dependencies,
///                                     doing/skipped, and the skip reason (written by the
///                                     exporter; hand-written lists need none of it)
/// Fenced code blocks are skipped. Tabs count to the next multiple of 4 columns.
/// Nesting is checked, not guessed: a nested item must be indented 1–4 columns past its
/// parent's marker column plus marker width, and a dedent must land on the column of an
/// enclosing item. CommonMark itself never rejects input (a mis-indented item silently
/// becomes paragraph text), which is why this is a dedicated parser and not cmark: a
/// checklist whose nesting is broken must be refused with the line, not half-imported.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace kioku::procedural {

/// Thrown for input that is not a well-formed checklist; `line` is 1-based.
class MarkdownError : public std::runtime_error {
 public:
  MarkdownError(int line, const std::string& message)
      : std::runtime_error("Markdown line " + std::to_string(line) + ": " + message),
        line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

/// One task read from a checklist. `key` is the task's number in the source (its
/// `kioku:tN` key, else its 1-based position among the items); `parent` indexes the
/// enclosing item in ParsedChecklist::items; `after` holds keys.
struct ParsedItem {
  int line = 0;
  int key = 0;
  std::optional<std::size_t> parent;
  std::string title;
  std::string description;
  TaskState state = TaskState::kTodo;
  std::string reason;
  std::vector<int> after;
};

struct ParsedChecklist {
  std::string title;
  std::string goal;
  std::vector<ParsedItem> items;
};

/// Parses a checklist. Throws MarkdownError for: broken nesting, an empty task title, a
/// duplicate key, an `after:` naming no item of the list, more than `max_items` items, or
/// no task item at all.
ParsedChecklist ParseChecklist(std::string_view text, std::size_t max_items);

/// Writes a plan as a checklist that ParseChecklist reads back to the same titles, goal,
/// nesting, states, descriptions, dependencies and skip reasons. Tasks are written depth
/// first under their parents, in number order.
std::string WriteChecklist(const std::string& title, const std::string& goal,
                           const std::vector<Task>& tasks);

}  // namespace kioku::procedural
