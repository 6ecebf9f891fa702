#include "hook.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <istream>
#include <ostream>

#include <nlohmann/json.hpp>

#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::affective {
namespace {

using nlohmann::json;

bool IsTrue(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

std::string StringField(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> NumberField(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!(v >= 0) || v > 86'400'000.0) return std::nullopt;
  return v;
}

// First text block of an MCP-style {content: [{type: "text", text}]} result.
std::string ContentText(const json& response) {
  auto it = response.find("content");
  if (it == response.end() || !it->is_array()) return {};
  for (const auto& block : *it) {
    if (block.is_object()) {
      if (auto text = StringField(block, "text"); !text.empty()) return text;
    }
  }
  return {};
}

std::string ReadAll(std::istream& in, bool& too_big) {
  std::string data;
  char buf[1 << 16];
  too_big = false;
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > kMaxEnvelopeBytes) {
      too_big = true;
      break;
    }
  }
  return data;
}

}  // namespace

std::string NormalizeToolName(std::string_view name, std::string* server) {
  constexpr std::string_view kPrefix = "mcp__";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::string(name);
  const std::string_view rest = name.substr(kPrefix.size());
  const auto sep = rest.find("__");
  if (sep == std::string_view::npos || sep == 0 || sep + 2 >= rest.size()) {
    return std::string(name);
  }
  if (server) *server = std::string(rest.substr(0, sep));
  return std::string(rest.substr(0, sep)) + "/" + std::string(rest.substr(sep + 2));
}

HookParse ParseHookEnvelope(std::string_view text, const std::string& agent_id,
                            const Settings& settings, const Recorder& recorder,
                            std::int64_t now_ms, const sdk::ProjectOptions& projects) {
  HookParse out;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.note = "empty stdin: expected a PostToolUse hook envelope (JSON)";
    return out;
  }
  json env = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (env.is_discarded() || !env.is_object()) {
    out.note = "stdin is not a JSON object: expected a PostToolUse hook envelope";
    return out;
  }
  const std::string event = StringField(env, "hook_event_name");
  const bool failure_event = event == "PostToolUseFailure";
  if (!event.empty() && event != "PostToolUse" && !failure_event) {
    out.note = "ignored hook event '" + sdk::TruncateUtf8(sdk::SanitizeUtf8(event), 64) +
               "': only PostToolUse and PostToolUseFailure are recorded";
    return out;
  }
  const std::string raw_tool = sdk::SanitizeUtf8(StringField(env, "tool_name"));
  if (raw_tool.empty()) {
    out.note = "envelope has no tool_name: nothing recorded";
    return out;
  }
  std::string server;
  OutcomeRecord r;
  r.tool = sdk::TruncateUtf8(NormalizeToolName(raw_tool, &server), kMaxToolNameChars, "");
  const auto& skip = settings.hook.skip_mcp_servers;
  if (!server.empty() && std::find(skip.begin(), skip.end(), server) != skip.end()) {
    out.note = "skipped " + raw_tool + ": MCP server '" + server +
               "' records its own calls (hook.skip_mcp_servers)";
    return out;
  }

  std::string error;
  r.outcome = OutcomeKind::kSuccess;
  auto response_it = env.find("tool_response");
  const json* response = response_it != env.end() ? &*response_it : nullptr;
  if (failure_event) {
    r.outcome = IsTrue(env, "is_interrupt") ? OutcomeKind::kTimeout : OutcomeKind::kFailure;
    if (IsTrue(env, "is_interrupt")) r.error_class = "interrupted";
    error = StringField(env, "error");
    if (error.empty()) error = StringField(env, "error_message");
  } else if (response && response->is_object()) {
    bool failed = IsTrue(*response, "is_error") || IsTrue(*response, "isError");
    if (auto it = response->find("success"); it != response->end() && it->is_boolean()) {
      failed = failed || !it->get<bool>();
    }
    if (auto it = response->find("error"); it != response->end()) {
      if (it->is_string() && !it->get<std::string>().empty()) {
        failed = true;
        error = it->get<std::string>();
      } else if (it->is_object() && !it->empty()) {
        failed = true;
        error = it->contains("message") && (*it)["message"].is_string()
                    ? (*it)["message"].get<std::string>()
                    : it->dump(-1, ' ', false, json::error_handler_t::replace);
      }
    }
    for (const char* key : {"exit_code", "exitCode"}) {
      if (auto it = response->find(key); it != response->end() && it->is_number_integer() &&
                                          it->get<std::int64_t>() != 0) {
        failed = true;
        r.error_class = "exit_" + std::to_string(it->get<std::int64_t>());
      }
    }
    if (IsTrue(*response, "interrupted")) {
      r.outcome = OutcomeKind::kTimeout;
      r.error_class = "interrupted";
    } else if (failed) {
      r.outcome = OutcomeKind::kFailure;
    }
    if (r.outcome != OutcomeKind::kSuccess && error.empty()) {
      error = StringField(*response, "stderr");
      if (error.empty()) error = ContentText(*response);
    }
  }

  r.latency_ms = NumberField(env, "duration_ms");
  if (!r.latency_ms && response && response->is_object()) {
    for (const char* key : {"duration_ms", "durationMs", "totalDurationMs"}) {
      if ((r.latency_ms = NumberField(*response, key))) break;
    }
  }
  r.agent_id = agent_id;
  r.session_id = sdk::TruncateUtf8(sdk::SanitizeUtf8(StringField(env, "session_id")), 200, "");
  // The same project the server gives a caller started in that folder (project_identity.hpp).
  const std::string cwd = sdk::SanitizeUtf8(StringField(env, "cwd"));
  r.project_id = sdk::TruncateUtf8(sdk::ProjectOfRecord({cwd, "", ""}, projects).id, 1000, "");
  r.source_id = sdk::TruncateUtf8(sdk::SanitizeUtf8(StringField(env, "tool_use_id")), 200, "");
  r.error = recorder.CleanError(error);
  r.at_ms = now_ms;
  r.source = std::string(kSourceHook);
  out.record = std::move(r);
  return out;
}

int RunHookCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                   std::ostream& err, ToolContext& ctx) {
  try {
    std::string event;
    std::string agent;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--help" || a == "-h") {
        out << kHookUsage;
        return 0;
      }
      if (a == "--agent" && i + 1 < args.size()) {
        agent = args[++i];
      } else if (a.rfind("--agent=", 0) == 0) {
        agent = a.substr(8);
      } else if (event.empty() && a.rfind("-", 0) != 0) {
        event = a;
      } else {
        err << "kioku hook: ignoring unknown argument '" << a << "'\n";
      }
    }
    if (event != "post-tool-use" && event != "post-tool-use-failure") {
      err << "kioku hook: unknown or missing event '" << event
          << "': use `kioku hook post-tool-use` (nothing recorded)\n";
      return 0;
    }
    if (agent.empty()) {
      if (const char* env = std::getenv("KIOKU_AGENT_ID"); env && *env) agent = env;
    }
    if (agent.empty()) agent = ctx.settings.hook.agent_id;
    agent = sdk::TruncateUtf8(sdk::SanitizeUtf8(agent), 200, "");

    bool too_big = false;
    const std::string data = ReadAll(in, too_big);
    if (too_big) {
      err << "kioku hook: envelope larger than " << (kMaxEnvelopeBytes >> 20)
          << " MiB; nothing recorded\n";
      return 0;
    }
    HookParse parsed =
        ParseHookEnvelope(data, agent, ctx.settings, ctx.recorder, ctx.host.GetClock().NowMs(),
                          ctx.host.Projects());
    if (!parsed.record) {
      err << "kioku hook: " << parsed.note << "\n";
      return 0;
    }
    const WriteStats stats = ctx.recorder.Record({std::move(*parsed.record)});
    if (stats.duplicates > 0) err << "kioku hook: this tool_use_id was already recorded\n";
  } catch (const std::exception& e) {
    err << "kioku hook: could not record the outcome: " << e.what() << "\n";
  } catch (...) {
    err << "kioku hook: could not record the outcome\n";
  }
  return 0;
}

}  // namespace kioku::affective
