// Claude Code session files (~/.claude/projects/<cwd>/<session>.jsonl).
#include <set>

#include "tool_support.hpp"
#include "parser_common.hpp"
#include "transcript.hpp"

namespace kioku::episodic {

namespace {

using nlohmann::json;
using transcript::PendingCall;

// User-line text that is a harness marker or command echo, not the human's words.
bool IsMarker(std::string_view t) {
  static const char* kStarts[] = {"<command-name>",       "<command-message>",
                                  "<command-args>",       "<local-command-stdout>",
                                  "<local-command-stderr>", "<bash-input>",
                                  "<bash-stdout>",        "<bash-stderr>",
                                  "[Request interrupted by user", "Caveat: The messages below",
                                  "<user-prompt-submit-hook>", "<task-notification>"};
  for (const char* s : kStarts) {
    if (t.substr(0, std::string_view(s).size()) == s) return true;
  }
  return false;
}

std::string Trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string CallDetail(const std::string& tool, const json& input) {
  if (!input.is_object()) return {};
  for (const char* key : {"command", "file_path", "notebook_path", "pattern", "description",
                          "url", "query"}) {
    if (input.contains(key) && input[key].is_string()) {
      return transcript::Brief(input[key].get<std::string>(), 160);
    }
  }
  (void)tool;
  return {};
}

class ClaudeParser final : public TranscriptParser {
 public:
  explicit ClaudeParser(ParserContext ctx) : ctx_(std::move(ctx)) {}

  bool Feed(const json& line, std::int64_t line_no, ParsedBatch& out) override {
    if (!line.is_object()) return false;
    const std::string type = line.value("type", "");
    if (type == "summary") {
      if (line.contains("summary") && line["summary"].is_string()) {
        title_ = transcript::Brief(line["summary"].get<std::string>(), 200);
        if (!current_.empty() && out.sessions.count(current_) &&
            out.sessions[current_].title.empty()) {
          out.sessions[current_].title = title_;
        }
      }
      return true;
    }
    if (type != "user" && type != "assistant" && type != "system") {
      // file-history-snapshot, progress, queue-operation, attachment …: not messages.
      return DetectLineFormat(line) == Format::kClaudeCode || line.contains("type");
    }
    const std::string sid = line.contains("sessionId") && line["sessionId"].is_string()
                                ? line["sessionId"].get<std::string>()
                                : std::string();
    if (sid.empty()) return false;
    const std::string uuid =
        line.contains("uuid") && line["uuid"].is_string() ? line["uuid"].get<std::string>() : "";
    if (!uuid.empty()) {
      if (batch_seen_.count(uuid) || (ctx_.seen && ctx_.seen(uuid))) {
        ++out.duplicates;
        return true;
      }
      batch_seen_.insert(uuid);
      out.seen_keys.push_back(uuid);
    }
    std::int64_t at = 0;
    if (auto t = transcript::Time(line.value("timestamp", json())); t) {
      at = *t;
      last_at_ = std::max(last_at_, at);
    } else {
      ++out.bad_timestamps;
      at = last_at_;
      if (at == 0) return false;
    }
    SessionDelta& s = out.Touch(sid, at);
    s.agent = "claude-code";
    current_ = sid;
    if (s.cwd.empty() && line.contains("cwd") && line["cwd"].is_string()) s.cwd = line["cwd"];
    if (line.contains("gitBranch") && line["gitBranch"].is_string() &&
        !line["gitBranch"].get<std::string>().empty()) {
      s.branch = line["gitBranch"];
    }
    if (line.contains("version") && line["version"].is_string()) s.version = line["version"];
    if (s.title.empty() && !title_.empty()) s.title = title_;
    if (type == "system") return true;
    const bool sidechain = line.value("isSidechain", false);
    if (!line.contains("message") || !line["message"].is_object()) return false;
    const json& msg = line["message"];
    const json content = msg.value("content", json());

    if (type == "assistant") {
      const std::string model = msg.value("model", "");
      if (!model.empty() && model != "<synthetic>" && !sidechain) s.model = model;
      const std::string id = msg.value("id", uuid);
      if (!sidechain && id != last_msg_id_[sid]) {
        ++s.messages;
        last_msg_id_[sid] = id;
      }
      if (!content.is_array()) return true;
      for (const auto& block : content) {
        if (!block.is_object()) continue;
        const std::string bt = block.value("type", "");
        if (bt == "text" && !sidechain && block.contains("text") && block["text"].is_string()) {
          const std::string t = Trimmed(block["text"].get<std::string>());
          if (!t.empty()) s.last_message = transcript::Brief(t, 600);
        } else if (bt == "tool_use" && block.contains("id") && block["id"].is_string()) {
          PendingCall call;
          call.tool = block.value("name", "unknown");
          const json input = block.value("input", json::object());
          call.session_id = sid;
          call.detail = CallDetail(call.tool, input);
          call.at = at;
          call.line = line_no;
          call.sidechain = sidechain;
          if (call.tool == "Read") call.action = "read";
          if (call.tool == "Edit" || call.tool == "MultiEdit" || call.tool == "Write" ||
              call.tool == "NotebookEdit") {
            call.action = "modified";
          }
          for (const char* key : {"file_path", "notebook_path"}) {
            if (input.is_object() && input.contains(key) && input[key].is_string()) {
              call.paths.push_back(input[key].get<std::string>());
            }
          }
          pending_.Add(block["id"].get<std::string>(), std::move(call));
        }
      }
      return true;
    }

    // type == "user"
    bool tool_results = false;
    if (content.is_array()) {
      for (const auto& block : content) {
        if (!block.is_object() || block.value("type", "") != "tool_result") continue;
        tool_results = true;
        const std::string id = block.value("tool_use_id", "");
        PendingCall call;
        if (id.empty() || !pending_.Take(id, &call)) continue;  // call before our offset
        // A resumed session's file repeats earlier lines; when their uuids were rewritten
        // the tool_use id still names the call (README "Resumed sessions").
        if (SeenElsewhere("tool_result:" + id, out)) continue;
        const std::string text = transcript::ContentText(block.value("content", json()));
        std::string outcome = "success";
        if (block.value("is_error", false)) {
          const bool refused = text.find("doesn't want to proceed") != std::string::npos ||
                               text.find("tool use was rejected") != std::string::npos ||
                               text.find("<tool_use_error>") != std::string::npos;
          outcome = refused ? "rejected" : "failure";
        }
        std::string error = transcript::StripHarnessBlocks(text);
        for (const char* tag : {"<tool_use_error>", "</tool_use_error>"}) {
          for (std::size_t p; (p = error.find(tag)) != std::string::npos;) {
            error.erase(p, std::string_view(tag).size());
          }
        }
        transcript::Resolve(id, call, outcome, transcript::Brief(error, 300), at, line_no, out);
      }
    }
    if (tool_results || sidechain || line.value("isMeta", false) ||
        line.value("isCompactSummary", false)) {
      return true;
    }
    std::string text;
    if (content.is_string()) {
      text = content.get<std::string>();
    } else if (content.is_array()) {
      // Join text blocks; a harness block is dropped whole, the rest of the message kept.
      for (const auto& block : content) {
        if (!block.is_object() || block.value("type", "") != "text" || !block.contains("text") ||
            !block["text"].is_string()) {
          continue;
        }
        std::string t = Trimmed(transcript::StripHarnessBlocks(block["text"].get<std::string>()));
        if (t.empty()) continue;
        if (!text.empty()) text += ' ';
        text += t;
      }
    }
    text = Trimmed(transcript::StripHarnessBlocks(text));
    // An image alone keeps its placeholder: it is still a prompt.
    if (std::string words = Trimmed(transcript::StripImagePlaceholders(text)); !words.empty()) text = std::move(words);
    if (text.empty() || IsMarker(text)) return true;
    // The same words at the same instant are a carried-over copy, whatever its uuid.
    if (SeenElsewhere("human:" + std::to_string(at) + ":" +
                          NormalizeKey(text).substr(0, 160),
                      out)) {
      return true;
    }
    ++s.messages;
    out.human.push_back({sid, at, line_no, std::move(text)});
    return true;
  }

  json SaveState() const override {
    return {{"pending", pending_.Save()},
            {"last_at", last_at_},
            {"title", title_},
            {"current", current_},
            {"last_msg_id", last_msg_id_}};
  }

  void LoadState(const json& state) override {
    if (!state.is_object()) return;
    pending_.Load(state.value("pending", json::object()));
    last_at_ = state.value("last_at", std::int64_t{0});
    title_ = state.value("title", "");
    current_ = state.value("current", "");
    last_msg_id_ = state.value("last_msg_id", std::map<std::string, std::string>{});
  }

 private:
  // True when `key` was recorded before (this batch or an earlier ingest); otherwise it is
  // remembered and false is returned.
  bool SeenElsewhere(const std::string& key, ParsedBatch& out) {
    if (batch_seen_.count(key) || (ctx_.seen && ctx_.seen(key))) {
      ++out.duplicates;
      return true;
    }
    batch_seen_.insert(key);
    out.seen_keys.push_back(key);
    return false;
  }

  ParserContext ctx_;
  transcript::PendingCalls pending_;
  std::int64_t last_at_ = 0;
  std::string title_;
  std::string current_;
  std::map<std::string, std::string> last_msg_id_;
  std::set<std::string> batch_seen_;
};

}  // namespace

std::unique_ptr<TranscriptParser> MakeClaudeParser(ParserContext ctx) {
  return std::make_unique<ClaudeParser>(std::move(ctx));
}

}  // namespace kioku::episodic
