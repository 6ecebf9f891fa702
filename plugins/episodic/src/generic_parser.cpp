// Generic {role, content, timestamp} JSONL.
#include "parser_common.hpp"
#include "transcript.hpp"

namespace kioku::episodic {

namespace {

using nlohmann::json;

class GenericParser final : public TranscriptParser {
 public:
  explicit GenericParser(ParserContext ctx) : ctx_(std::move(ctx)) {}

  bool Feed(const json& line, std::int64_t line_no, ParsedBatch& out) override {
    if (!line.is_object() || !line.contains("role") || !line["role"].is_string()) return false;
    std::int64_t at = 0;
    json ts = line.value("timestamp", line.value("time", line.value("created_at", json())));
    if (auto t = transcript::Time(ts); t) {
      at = *t;
      last_at_ = std::max(last_at_, at);
    } else {
      ++out.bad_timestamps;
      at = last_at_;
      if (at == 0) return false;
    }
    std::string sid = ctx_.default_session_id;
    for (const char* key : {"session_id", "sessionId", "session"}) {
      if (line.contains(key) && line[key].is_string() && !line[key].get<std::string>().empty()) {
        sid = line[key].get<std::string>();
        break;
      }
    }
    if (sid.empty()) return false;
    SessionDelta& s = out.Touch(sid, at);
    s.agent = line.contains("agent") && line["agent"].is_string() ? line["agent"].get<std::string>()
                                                                   : "generic";
    if (line.contains("model") && line["model"].is_string()) s.model = line["model"];
    if (line.contains("cwd") && line["cwd"].is_string() && s.cwd.empty()) s.cwd = line["cwd"];
    if (line.contains("title") && line["title"].is_string() && s.title.empty()) {
      s.title = transcript::Brief(line["title"].get<std::string>(), 200);
    }
    const std::string role = line["role"].get<std::string>();
    const std::string text = transcript::ContentText(line.value("content", json()));
    if (role == "user" || role == "human") {
      const std::string clean = transcript::StripHarnessBlocks(text);
      if (clean.find_first_not_of(" \t\r\n") == std::string::npos) return true;
      ++s.messages;
      out.human.push_back({sid, at, line_no, clean});
    } else if (role == "assistant") {
      ++s.messages;
      if (!text.empty()) s.last_message = transcript::Brief(text, 600);
    } else if (role == "tool") {
      std::string tool;
      for (const char* key : {"tool", "name", "tool_name"}) {
        if (line.contains(key) && line[key].is_string()) {
          tool = line[key].get<std::string>();
          break;
        }
      }
      if (tool.empty()) return true;
      std::string outcome = "success";
      if (line.value("is_error", false)) outcome = "failure";
      if (line.contains("outcome") && line["outcome"].is_string()) {
        const std::string o = line["outcome"];
        if (o == "failure" || o == "rejected" || o == "success") outcome = o;
      }
      transcript::PendingCall call;
      call.tool = tool;
      call.session_id = sid;
      call.at = at;
      if (line.contains("latency_ms") && line["latency_ms"].is_number()) {
        call.at = at - line["latency_ms"].get<std::int64_t>();
      }
      if (line.contains("path") && line["path"].is_string()) {
        call.paths.push_back(line["path"]);
        call.action = line.value("action", "modified") == "read" ? "read" : "modified";
      }
      transcript::Resolve(line.value("call_id", "line-" + std::to_string(line_no)), call, outcome,
                          transcript::Brief(text, 300), at, line_no, out);
    }
    return true;
  }

  json SaveState() const override { return {{"last_at", last_at_}}; }
  void LoadState(const json& state) override {
    if (state.is_object()) last_at_ = state.value("last_at", std::int64_t{0});
  }

 private:
  ParserContext ctx_;
  std::int64_t last_at_ = 0;
};

}  // namespace

std::unique_ptr<TranscriptParser> MakeGenericParser(ParserContext ctx) {
  return std::make_unique<GenericParser>(std::move(ctx));
}

std::unique_ptr<TranscriptParser> MakeClaudeParser(ParserContext ctx);
std::unique_ptr<TranscriptParser> MakeCodexParser(ParserContext ctx);

std::unique_ptr<TranscriptParser> MakeParser(Format format, ParserContext context) {
  switch (format) {
    case Format::kClaudeCode:
      return MakeClaudeParser(std::move(context));
    case Format::kCodex:
      return MakeCodexParser(std::move(context));
    case Format::kGeneric:
      return MakeGenericParser(std::move(context));
    default:
      return nullptr;
  }
}

}  // namespace kioku::episodic
