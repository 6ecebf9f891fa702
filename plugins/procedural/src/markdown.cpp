#include "markdown.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "kioku/sdk/text.hpp"

namespace kioku::procedural {
namespace {

constexpr std::string_view kCommentOpen = "<!-- kioku:";
constexpr std::string_view kCommentClose = "-->";
/// Extra columns a nested item may sit past its parent's content column (CommonMark lets a
/// list item's content start up to 3 columns further; one more tolerates 4-space styles).
constexpr int kMaxExtraIndent = 4;

struct Line {
  int indent = 0;         ///< Columns of leading whitespace (tabs to multiples of 4).
  std::string_view rest;  ///< The line after its leading whitespace.
};

Line Measure(std::string_view raw) {
  Line l;
  std::size_t i = 0;
  for (; i < raw.size(); ++i) {
    if (raw[i] == ' ') {
      ++l.indent;
    } else if (raw[i] == '\t') {
      l.indent = (l.indent / 4 + 1) * 4;
    } else {
      break;
    }
  }
  l.rest = raw.substr(i);
  return l;
}

/// Width of a list marker at the start of `s` ("- ", "12. "), or 0.
std::size_t MarkerWidth(std::string_view s) {
  if (s.size() >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ') return 2;
  if (s.size() == 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+')) return 1;
  std::size_t d = 0;
  while (d < s.size() && d < 9 && std::isdigit(static_cast<unsigned char>(s[d])) != 0) ++d;
  if (d == 0 || d >= s.size() || (s[d] != '.' && s[d] != ')')) return 0;
  if (d + 1 == s.size()) return d + 1;
  return s[d + 1] == ' ' ? d + 2 : 0;
}

/// After the marker: "[ ] ", "[x] ", "[X] " (or the box alone at the end). Returns the
/// state and the box width, or nullopt when the item has no checkbox.
std::optional<std::pair<bool, std::size_t>> Checkbox(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.size() < 3 || s[0] != '[' || s[2] != ']') return std::nullopt;
  const char c = s[1];
  if (c != ' ' && c != 'x' && c != 'X') return std::nullopt;
  if (s.size() > 3 && s[3] != ' ') return std::nullopt;
  return std::make_pair(c != ' ', std::size_t{3});
}

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return std::string(s);
}

std::optional<int> ParseKey(std::string_view s, int line) {
  if (s.size() < 2 || (s[0] != 't' && s[0] != 'T')) return std::nullopt;
  int v = 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) == 0) return std::nullopt;
    v = v * 10 + (s[i] - '0');
    if (v > 1'000'000) throw MarkdownError(line, "task key '" + std::string(s) + "' is too large");
  }
  return v > 0 ? std::optional<int>(v) : std::nullopt;
}

/// Splits "title <!-- kioku:t3 after:t1,t2 state:doing reason: … -->" and fills the item.
void ReadAnnotation(std::string_view text, ParsedItem& item, std::optional<int>& key) {
  const auto open = text.rfind(kCommentOpen);
  const auto close = text.rfind(kCommentClose);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      Trim(text.substr(close + kCommentClose.size())) != "") {
    item.title = Trim(text);
    return;
  }
  item.title = Trim(text.substr(0, open));
  std::string_view body = text.substr(open + kCommentOpen.size(),
                                      close - open - kCommentOpen.size());
  if (const auto r = body.find("reason:"); r != std::string_view::npos) {
    item.reason = Trim(body.substr(r + 7));
    body = body.substr(0, r);
  }
  std::size_t pos = 0;
  bool first = true;
  while (pos < body.size()) {
    while (pos < body.size() && body[pos] == ' ') ++pos;
    std::size_t end = body.find(' ', pos);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view word = body.substr(pos, end - pos);
    pos = end;
    if (word.empty()) continue;
    if (first) {
      first = false;
      if (auto k = ParseKey(word, item.line)) {
        key = k;
        continue;
      }
    }
    if (word.rfind("after:", 0) == 0) {
      std::string_view list = word.substr(6);
      while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view ref = list.substr(0, comma);
        const auto k = ParseKey(ref, item.line);
        if (!k) {
          throw MarkdownError(item.line, "after: expects task keys like t1,t2; found '" +
                                             std::string(ref) + "'");
        }
        item.after.push_back(*k);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    } else if (word.rfind("state:", 0) == 0) {
      const auto s = ParseTaskState(word.substr(6));
      if (!s) {
        throw MarkdownError(item.line, "state: expects todo, doing, done or skipped; found '" +
                                           std::string(word.substr(6)) + "'");
      }
      item.state = *s;
    }
  }
}

bool IsFence(std::string_view rest) {
  return rest.rfind("```", 0) == 0 || rest.rfind("~~~", 0) == 0;
}

void AppendLine(std::string& to, std::string_view line) {
  if (!to.empty()) to += '\n';
  to += line;
}

/// Text lines that would read back as list items or headings are escaped with '\'.
std::string Unescape(std::string_view s) {
  if (s.size() >= 2 && s[0] == '\\' && (MarkerWidth(s.substr(1)) > 0 || s[1] == '#')) {
    return std::string(s.substr(1));
  }
  return std::string(s);
}

}  // namespace

ParsedChecklist ParseChecklist(std::string_view text, std::size_t max_items) {
  ParsedChecklist out;
  struct Open {
    int indent;         // column of the marker
    int content;        // column where the item's text starts
    std::size_t item;   // index in out.items
  };
  std::vector<Open> stack;
  std::vector<std::optional<int>> explicit_keys;
  bool in_fence = false;
  bool saw_title = false;
  int line_no = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const Line l = Measure(raw);
    // Text or a plain bullet goes to the description of the innermost item it is indented
    // under, else to the goal; a line at or left of an open item's marker closes that item.
    auto add_text = [&](bool escaped) {
      while (!stack.empty() && l.indent <= stack.back().indent) stack.pop_back();
      if (!stack.empty()) {
        const int cut = std::min(l.indent, stack.back().content);
        std::string kept(static_cast<std::size_t>(l.indent - cut), ' ');
        kept += escaped ? Unescape(l.rest) : std::string(l.rest);
        AppendLine(out.items[stack.back().item].description, kept);
      } else {
        AppendLine(out.goal, escaped ? Unescape(Trim(raw)) : Trim(raw));
      }
    };
    if (IsFence(l.rest) || in_fence) {
      if (IsFence(l.rest)) in_fence = !in_fence;
      if (!l.rest.empty()) add_text(false);
      if (end == text.size()) break;
      continue;
    }
    if (l.rest.empty()) {
      if (end == text.size()) break;
      continue;
    }
    const std::size_t marker = MarkerWidth(l.rest);
    const auto box = marker > 0 ? Checkbox(l.rest.substr(marker)) : std::nullopt;
    if (box) {
      if (out.items.size() >= max_items) {
        throw MarkdownError(line_no, "more than " + std::to_string(max_items) +
                                         " task items; split the checklist into several plans");
      }
      while (!stack.empty() && l.indent < stack.back().indent) stack.pop_back();
      if (!stack.empty() && l.indent == stack.back().indent) {
        stack.pop_back();  // a sibling of the top item
      } else if (!stack.empty() && l.indent < stack.back().content) {
        std::string levels;
        for (const auto& o : stack) {
          levels += (levels.empty() ? "" : ", ") + std::to_string(o.indent);
        }
        throw MarkdownError(line_no,
                            "item indented " + std::to_string(l.indent) +
                                " columns matches no enclosing item (items open at columns " +
                                levels + "): align it with one of them, or indent it " +
                                std::to_string(stack.back().content) + " columns to nest it");
      } else if (!stack.empty() && l.indent >= stack.back().content + kMaxExtraIndent) {
        const auto& top = stack.back();
        throw MarkdownError(
            line_no, "item indented " + std::to_string(l.indent) + " columns under '" +
                         sdk::TruncateUtf8(out.items[top.item].title, 40) + "' (column " +
                         std::to_string(top.indent) + ") skips a level: indent a nested item " +
                         std::to_string(top.content) + " to " +
                         std::to_string(top.content + kMaxExtraIndent - 1) + " columns");
      } else if (stack.empty() && l.indent >= kMaxExtraIndent) {
        throw MarkdownError(line_no, "item indented " + std::to_string(l.indent) +
                                         " columns has no enclosing item: start top-level "
                                         "items at column 0");
      }
      ParsedItem item;
      item.line = line_no;
      item.state = box->first ? TaskState::kDone : TaskState::kTodo;
      if (!stack.empty()) item.parent = stack.back().item;
      std::string_view after_box = l.rest.substr(marker);
      while (!after_box.empty() && after_box.front() == ' ') after_box.remove_prefix(1);
      after_box.remove_prefix(std::min<std::size_t>(box->second, after_box.size()));
      std::optional<int> key;
      ReadAnnotation(after_box, item, key);
      if (item.state == TaskState::kSkipped || item.state == TaskState::kDone) {
        if (!box->first) {
          throw MarkdownError(line_no, "state:" + std::string(TaskStateName(item.state)) +
                                           " on an unchecked item: check it ([x]) or drop the "
                                           "state");
        }
      } else if (box->first) {
        throw MarkdownError(line_no, "state:" + std::string(TaskStateName(item.state)) +
                                         " on a checked item: uncheck it ([ ]) or drop the state");
      }
      if (item.title.empty()) {
        throw MarkdownError(line_no, "task item without a title: write the task after the box");
      }
      const int content = l.indent + static_cast<int>(marker);
      out.items.push_back(std::move(item));
      explicit_keys.push_back(key);
      stack.push_back({l.indent, content, out.items.size() - 1});
    } else if (l.rest.front() == '#' && stack.empty()) {
      std::size_t level = 0;
      while (level < l.rest.size() && l.rest[level] == '#') ++level;
      if (level == 1 && !saw_title && l.rest.size() > 1 && l.rest[1] == ' ') {
        out.title = Trim(l.rest.substr(1));
        saw_title = true;
      } else {
        AppendLine(out.goal, Trim(raw));
      }
    } else {
      add_text(true);
    }
    if (end == text.size()) break;
  }
  if (out.items.empty()) {
    throw MarkdownError(line_no, "no task items found: write tasks as '- [ ] title' lines");
  }
  // Keys: explicit ones, else the position; they must be unique.
  std::unordered_map<int, std::size_t> by_key;
  for (std::size_t i = 0; i < out.items.size(); ++i) {
    auto& item = out.items[i];
    item.key = explicit_keys[i].value_or(static_cast<int>(i + 1));
    if (!by_key.emplace(item.key, i).second) {
      throw MarkdownError(item.line, "task key " + TaskKey(item.key) + " is used twice (also line " +
                                         std::to_string(out.items[by_key[item.key]].line) +
                                         "): give each item its own key");
    }
  }
  for (const auto& item : out.items) {
    for (int k : item.after) {
      if (by_key.count(k) == 0) {
        throw MarkdownError(item.line, "after:" + TaskKey(k) + " names no item of this checklist");
      }
    }
  }
  return out;
}

namespace {

std::string Escape(std::string_view line) {
  const Line l = Measure(line);
  if (l.rest.empty()) return std::string(line);
  if (MarkerWidth(l.rest) > 0 || l.rest.front() == '#' || IsFence(l.rest)) {
    return std::string(line.substr(0, line.size() - l.rest.size())) + "\\" + std::string(l.rest);
  }
  return std::string(line);
}

void WriteText(std::string& out, const std::string& text, const std::string& pad) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    if (Trim(line).empty()) {
      out += '\n';
    } else {
      out += pad + Escape(line) + "\n";
    }
    start = end + 1;
  }
}

}  // namespace

std::string WriteChecklist(const std::string& title, const std::string& goal,
                           const std::vector<Task>& tasks) {
  std::string out;
  if (!title.empty()) out += "# " + sdk::CollapseWhitespace(title) + "\n\n";
  if (!goal.empty()) {
    WriteText(out, goal, "");
    out += "\n";
  }
  std::map<int, std::vector<const Task*>> children;
  std::vector<const Task*> roots;
  std::unordered_map<int, const Task*> by_number;
  for (const auto& t : tasks) by_number.emplace(t.number, &t);
  for (const auto& t : tasks) {
    if (t.parent && by_number.count(*t.parent) > 0) {
      children[*t.parent].push_back(&t);
    } else {
      roots.push_back(&t);
    }
  }
  // Depth-first, iterative: (task, depth).
  std::vector<std::pair<const Task*, int>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, 0});
  int position = 0;
  while (!stack.empty()) {
    const auto [t, depth] = stack.back();
    stack.pop_back();
    ++position;
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    out += pad + (IsFinished(t->state) ? "- [x] " : "- [ ] ") + sdk::CollapseWhitespace(t->title);
    std::vector<int> after;
    const auto kids = children.find(t->number);
    for (int d : t->depends_on) {
      const bool child = kids != children.end() &&
                         std::any_of(kids->second.begin(), kids->second.end(),
                                     [&](const Task* c) { return c->number == d; });
      if (!child) after.push_back(d);
    }
    const bool marked = t->state == TaskState::kDoing || t->state == TaskState::kSkipped;
    if (!after.empty() || marked || position != t->number) {
      out += " <!-- kioku:" + TaskKey(t->number);
      if (!after.empty()) {
        out += " after:";
        for (std::size_t i = 0; i < after.size(); ++i) out += (i ? "," : "") + TaskKey(after[i]);
      }
      if (marked) out += " state:" + std::string(TaskStateName(t->state));
      if (t->state == TaskState::kSkipped && !t->note.empty()) {
        std::string reason = sdk::CollapseWhitespace(t->note);
        for (std::size_t p; (p = reason.find("-->")) != std::string::npos;) reason.replace(p, 3, "->");
        out += " reason: " + reason;
      }
      out += " -->";
    }
    out += "\n";
    if (!t->description.empty()) WriteText(out, t->description, pad + "  ");
    if (kids != children.end()) {
      for (auto it = kids->second.rbegin(); it != kids->second.rend(); ++it) {
        stack.push_back({*it, depth + 1});
      }
    }
  }
  return out;
}

}  // namespace kioku::procedural
