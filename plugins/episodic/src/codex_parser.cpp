// Codex CLI rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
#include <cctype>
#include <deque>

#include "tool_support.hpp"
#include "parser_common.hpp"
#include "transcript.hpp"

namespace kioku::episodic {

namespace {

using nlohmann::json;
using transcript::PendingCall;

// response_item user messages that the harness injected (README §2.4).
bool IsInjected(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\n')) t.remove_prefix(1);
  for (std::string_view p : {"<user_instructions>", "<environment_context>",
                             "# AGENTS.md instructions", "<INSTRUCTIONS>", "<permissions",
                             "<user_shell_command>", "<turn_aborted>"}) {
    if (t.substr(0, p.size()) == p) return true;
  }
  return false;
}

// Exit status of a function_call_output (README §2.4 table); nullopt = no status found.
std::optional<int> ExitCode(const std::string& out, std::string* text) {
  *text = out;
  if (!out.empty() && out.front() == '{') {
    json j = json::parse(out, nullptr, false);
    if (j.is_object()) {
      if (j.contains("output") && j["output"].is_string()) *text = j["output"].get<std::string>();
      if (j.contains("metadata") && j["metadata"].is_object() &&
          j["metadata"].contains("exit_code") && j["metadata"]["exit_code"].is_number_integer()) {
        return j["metadata"]["exit_code"].get<int>();
      }
    }
  }
  auto number_after = [&](std::string_view marker) -> std::optional<int> {
    const auto pos = out.find(marker);
    if (pos == std::string::npos || pos > 512) return std::nullopt;
    std::size_t i = pos + marker.size();
    bool neg = false;
    if (i < out.size() && out[i] == '-') {
      neg = true;
      ++i;
    }
    int v = 0;
    bool any = false;
    while (i < out.size() && std::isdigit(static_cast<unsigned char>(out[i])) && v < 100000) {
      v = v * 10 + (out[i++] - '0');
      any = true;
    }
    if (!any) return std::nullopt;
    return neg ? -v : v;
  };
  if (auto v = number_after("Exit code: ")) return v;
  if (auto v = number_after("Process exited with code ")) return v;
  return std::nullopt;
}

class CodexParser final : public TranscriptParser {
 public:
  explicit CodexParser(ParserContext ctx) : ctx_(std::move(ctx)) {}

  bool Feed(const json& line, std::int64_t line_no, ParsedBatch& out) override {
    if (!line.is_object() || !line.contains("payload") || !line["payload"].is_object()) {
      return false;
    }
    const std::string type = line.value("type", "");
    const json& p = line["payload"];
    std::int64_t at = 0;
    if (auto t = transcript::Time(line.value("timestamp", json())); t) {
      at = *t;
      last_at_ = std::max(last_at_, at);
    } else {
      ++out.bad_timestamps;
      at = last_at_;
      if (at == 0) return false;
    }
    if (type == "session_meta") {
      if (!p.contains("id") || !p["id"].is_string()) return false;
      current_ = p["id"].get<std::string>();
      SessionDelta& s = out.Touch(current_, at);
      s.agent = "codex";
      if (p.contains("cwd") && p["cwd"].is_string()) cwd_ = s.cwd = p["cwd"];
      if (p.contains("cli_version") && p["cli_version"].is_string()) s.version = p["cli_version"];
      if (p.contains("git") && p["git"].is_object() && p["git"].contains("branch") &&
          p["git"]["branch"].is_string()) {
        s.branch = p["git"]["branch"];
      }
      if (p.contains("git") && p["git"].is_object() && p["git"].contains("repository_url") &&
          p["git"]["repository_url"].is_string()) {
        remote_ = s.git_remote = p["git"]["repository_url"];
      }
      return true;
    }
    if (current_.empty()) current_ = ctx_.default_session_id;
    if (current_.empty()) return false;
    SessionDelta& s = out.Touch(current_, at);
    s.agent = "codex";
    if (s.cwd.empty()) s.cwd = cwd_;
    if (s.git_remote.empty()) s.git_remote = remote_;
    if (!model_.empty() && s.model.empty()) s.model = model_;
    const std::string ptype = p.value("type", "");

    if (type == "turn_context") {
      if (p.contains("model") && p["model"].is_string()) model_ = s.model = p["model"];
      if (p.contains("cwd") && p["cwd"].is_string()) cwd_ = p["cwd"];
      if (s.cwd.empty()) s.cwd = cwd_;
      return true;
    }
    if (type == "event_msg") {
      if (ptype == "user_message" && p.contains("message") && p["message"].is_string()) {
        std::string text = p["message"].get<std::string>();
        if (text.find_first_not_of(" \t\r\n") == std::string::npos) return true;
        // The same words arrived a moment earlier as a response_item: that line is where
        // the human said it (README §2.6, "store each once").
        HumanMessage m{current_, at, line_no, text};
        const std::string key = NormalizeKey(text);
        for (auto it = user_items_.begin(); it != user_items_.end(); ++it) {
          if (it->key == key) {
            m.at = it->at;
            m.line = it->line;
            user_items_.erase(it);
            break;
          }
        }
        ++s.messages;
        out.human.push_back(std::move(m));
      }
      return true;  // agent_message, token_count, … are duplicates or bookkeeping
    }
    if (type == "compacted" || type != "response_item") return true;

    if (ptype == "message") {
      const std::string role = p.value("role", "");
      const std::string text = transcript::ContentText(p.value("content", json()));
      if (role == "user" && !IsInjected(text)) {
        user_items_.push_back({NormalizeKey(text), at, line_no});
        if (user_items_.size() > 32) user_items_.pop_front();
      } else if (role == "assistant") {
        ++s.messages;
        if (!text.empty()) s.last_message = transcript::Brief(text, 600);
      }
      return true;
    }
    if (ptype == "function_call" || ptype == "custom_tool_call" || ptype == "local_shell_call") {
      const std::string call_id = p.value("call_id", p.value("id", ""));
      if (call_id.empty()) return true;
      PendingCall call;
      call.tool = p.value("name", ptype == "local_shell_call" ? "local_shell" : "unknown");
      call.session_id = current_;
      call.at = at;
      call.line = line_no;
      std::string script, patch;
      if (ptype == "custom_tool_call") {
        if (p.contains("input") && p["input"].is_string()) patch = p["input"];
      } else {
        json args = p.contains("arguments") && p["arguments"].is_string()
                        ? json::parse(p["arguments"].get<std::string>(), nullptr, false)
                        : p.value("action", json::object());
        if (args.is_object()) {
          const json cmd = args.value("command", args.value("cmd", json()));
          if (cmd.is_array() && !cmd.empty()) {
            if (cmd[0].is_string() && cmd[0] == "apply_patch") {
              call.tool = "apply_patch";
              if (cmd.size() > 1 && cmd[1].is_string()) patch = cmd[1];
            } else if (cmd.back().is_string()) {
              script = cmd.back();
            }
          } else if (cmd.is_string()) {
            script = cmd;
          }
        }
      }
      if (call.tool == "apply_patch" || !patch.empty()) {
        call.paths = transcript::PatchPaths(patch);
        call.action = "modified";
        call.detail = transcript::Brief(
            call.paths.empty() ? std::string("patch") : "patch " + call.paths.front(), 160);
      } else if (!script.empty()) {
        call.detail = transcript::Brief(script, 160);
        call.reads = transcript::ShellReadPaths(script);
        if (script.rfind("apply_patch", 0) == 0) {
          call.paths = transcript::PatchPaths(script);
          call.action = "modified";
        }
      }
      pending_.Add(call_id, std::move(call));
      return true;
    }
    if (ptype == "function_call_output" || ptype == "custom_tool_call_output") {
      const std::string call_id = p.value("call_id", "");
      PendingCall call;
      if (call_id.empty() || !pending_.Take(call_id, &call)) return true;
      const json output = p.value("output", json());
      const std::string raw = output.is_string() ? output.get<std::string>() : output.dump();
      std::string text;
      const auto code = ExitCode(raw, &text);
      std::string outcome = "success";
      if ((code && *code != 0) || raw.rfind("aborted by user", 0) == 0 ||
          raw.find("apply_patch verification failed") != std::string::npos) {
        outcome = "failure";
      }
      std::string error = text;
      if (code && *code != 0) error = "exit code " + std::to_string(*code) + ": " + text;
      transcript::Resolve(call_id, call, outcome, transcript::Brief(error, 300), at, line_no, out);
      return true;
    }
    return true;  // reasoning, ghost_snapshot, web_search_call …
  }

  json SaveState() const override {
    json items = json::array();
    for (const auto& u : user_items_) items.push_back({u.key, u.at, u.line});
    return {{"pending", pending_.Save()}, {"last_at", last_at_}, {"current", current_},
            {"cwd", cwd_},                {"model", model_},     {"user_items", items},
            {"git_remote", remote_}};
  }

  void LoadState(const json& state) override {
    if (!state.is_object()) return;
    pending_.Load(state.value("pending", json::object()));
    last_at_ = state.value("last_at", std::int64_t{0});
    current_ = state.value("current", "");
    cwd_ = state.value("cwd", "");
    remote_ = state.value("git_remote", "");
    model_ = state.value("model", "");
    user_items_.clear();
    for (const auto& u : state.value("user_items", json::array())) {
      if (u.is_array() && u.size() == 3) {
        user_items_.push_back({u[0].get<std::string>(), u[1].get<std::int64_t>(),
                               u[2].get<std::int64_t>()});
      }
    }
  }

 private:
  struct UserItem {
    std::string key;
    std::int64_t at;
    std::int64_t line;
  };
  ParserContext ctx_;
  transcript::PendingCalls pending_;
  std::int64_t last_at_ = 0;
  std::string current_;
  std::string cwd_;
  std::string remote_;  // session_meta.git.repository_url
  std::string model_;
  std::deque<UserItem> user_items_;
};

}  // namespace

std::unique_ptr<TranscriptParser> MakeCodexParser(ParserContext ctx) {
  return std::make_unique<CodexParser>(std::move(ctx));
}

}  // namespace kioku::episodic
