#include "cli/marked_block.hpp"

#include <stdexcept>

namespace kioku::host::cli {
namespace {

constexpr const char* kBegin = "<!-- kioku:begin";
constexpr const char* kEnd = "<!-- kioku:end -->";

struct Span {
  std::size_t begin = std::string::npos;  // start of the begin-marker line
  std::size_t end = std::string::npos;    // one past the end-marker line (its newline included)
};

Span Find(const std::string& text) {
  Span s;
  std::size_t at = text.find(kBegin);
  while (at != std::string::npos && at != 0 && text[at - 1] != '\n') at = text.find(kBegin, at + 1);
  if (at == std::string::npos) return s;
  s.begin = at;
  std::size_t end = text.find(kEnd, at);
  if (end == std::string::npos) return s;
  std::size_t nl = text.find('\n', end);
  s.end = nl == std::string::npos ? text.size() : nl + 1;
  return s;
}

}  // namespace

std::string AgentInstructionsBlock() {
  return "<!-- kioku:begin (written by `kioku init`; `kioku uninstall` removes it) -->\n"
         "## Memory (kioku MCP server)\n"
         "- Starting a task: `memory_recall` what is known about it; `session_recall` what happened last time.\n"
         "- Learned a fact, decision, preference, correction or lesson worth keeping: `memory_remember` (one idea "
         "each). Wrong or stale: `memory_edit` or `memory_forget`; a rule that must always apply: `memory_pin`.\n"
         "- Other agents: `workspace_status` shows who is here, `workspace_claim` takes the task; `file_claim` "
         "before editing shared files, "
         "`file_release` after; hand work over with `handoff_write`, pick it up with `handoff_inbox` and "
         "`handoff_claim`; blocked on a decision: `question_add`.\n"
         "- Choosing a tool or approach that may have failed before: `feedback_route`.\n"
         "- Ending a session or handing over: `workspace_dump` saves a summary the next session finds.\n"
         "<!-- kioku:end -->\n";
}

bool HasMarkedBlock(const std::string& text) { return Find(text).begin != std::string::npos; }

std::string SetMarkedBlock(const std::string& text, const std::string& block) {
  Span s = Find(text);
  if (s.begin != std::string::npos && s.end != std::string::npos) {
    return text.substr(0, s.begin) + block + text.substr(s.end);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return block;
  return text + (text.back() == '\n' ? "\n" : "\n\n") + block;
}

std::string RemoveMarkedBlock(const std::string& text, const std::string& label) {
  Span s = Find(text);
  if (s.begin == std::string::npos) return text;
  if (s.end == std::string::npos) {
    throw std::runtime_error(label + ": the kioku block has no end line (" + kEnd + "); remove it by hand");
  }
  std::size_t begin = s.begin;
  if (begin >= 2 && text[begin - 1] == '\n' && text[begin - 2] == '\n') --begin;
  std::string out = text.substr(0, begin) + text.substr(s.end);
  return out.find_first_not_of(" \t\r\n") == std::string::npos ? "" : out;
}

}  // namespace kioku::host::cli
