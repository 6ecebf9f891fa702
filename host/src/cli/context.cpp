// `kioku context`: the block a SessionStart / UserPromptSubmit hook injects, or a human
// reads. Fails open: whatever goes wrong, stdout stays empty, stderr gets one line and the
// exit code is 0, so a hook never blocks or breaks the agent's session.

#include <cstdlib>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "context/context_block.hpp"
#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::host::cli {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxEnvelopeBytes = 8u << 20;

constexpr const char* kUsage =
    "usage: kioku context [--query TEXT] [--budget TOKENS] [--project DIR|KEY] [--agent ID]\n"
    "                     [--hook-stdin] [--format text|json]\n"
    "Prints what kioku knows for this project: pinned and top-ranked memories, the last\n"
    "session's summary, open handoffs, live file claims by others, open questions, the\n"
    "active plan's next tasks; each line labelled [kind|trust], with a footer counting what\n"
    "was withheld. At most 10,000 characters and --budget tokens (default server.context.\n"
    "token_budget, 2000; tokens = characters / 4); whole items only.\n"
    "  --query TEXT   only what is relevant to TEXT (prints nothing when nothing is)\n"
    "  --hook-stdin   read a hook envelope (JSON) on stdin: SessionStart prints the block,\n"
    "                 UserPromptSubmit (Gemini CLI: BeforeAgent) uses `prompt` as the query;\n"
    "                 the project comes from the envelope's cwd; output is the hook JSON\n"
    "                 {\"hookSpecificOutput\": {\"hookEventName\", \"additionalContext\"}}\n"
    "  --format F     text (default without --hook-stdin) or json (the hook JSON)\n"
    "Project: --project, else KIOKU_PROJECT_ROOT, else CLAUDE_PROJECT_DIR (hooks), else the\n"
    "envelope's cwd, else the working directory — identified as the server identifies it;\n"
    "--project also takes a project key as memory_list shows it (github.com/acme/webapp).\n"
    "Agent: --agent, else KIOKU_AGENT_ID. Never fails: errors go to stderr, exit code 0.\n";

struct Args {
  std::string query;
  std::optional<std::size_t> budget;
  std::optional<std::string> project;  ///< --project, if given
  std::string agent;
  std::string format;
  bool hook_stdin = false;
  bool help = false;
};

Args ParseArgs(const std::vector<std::string>& args) {
  Args a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(std::string(name) + " needs a value");
      return args[++i];
    };
    if (arg == "--help" || arg == "-h") {
      a.help = true;
    } else if (arg == "--hook-stdin") {
      a.hook_stdin = true;
    } else if (arg == "--query") {
      a.query = value("--query");
    } else if (arg == "--project") {
      a.project = value("--project");
    } else if (arg == "--agent") {
      a.agent = value("--agent");
    } else if (arg == "--format") {
      a.format = value("--format");
      if (a.format != "text" && a.format != "json") throw std::invalid_argument("--format is text or json");
    } else if (arg == "--budget") {
      const std::string v = value("--budget");
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 7) {
        throw std::invalid_argument("--budget is a number of tokens, e.g. 2000");
      }
      a.budget = std::stoul(v);
    } else {
      throw std::invalid_argument("unknown argument '" + sdk::TruncateUtf8(arg, 80) + "'");
    }
  }
  return a;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

struct Envelope {
  std::string event;
  std::string prompt;
  std::string cwd;
  std::string session_id;
};

Envelope ReadEnvelope(std::istream& in) {
  std::string data;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > kMaxEnvelopeBytes) throw std::runtime_error("hook envelope larger than 8 MiB");
  }
  json env = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (env.is_discarded() || !env.is_object()) {
    throw std::runtime_error("stdin is not a JSON object: expected a SessionStart or UserPromptSubmit hook envelope");
  }
  auto str = [&](const char* key) {
    auto it = env.find(key);
    return it != env.end() && it->is_string() ? sdk::SanitizeUtf8(it->get<std::string>()) : std::string();
  };
  return Envelope{str("hook_event_name"), str("prompt"), str("cwd"), str("session_id")};
}

}  // namespace

int Context(const GlobalOptions& global, const std::vector<std::string>& args, std::istream& in,
            std::ostream& out, std::ostream& err) {
  try {
    const Args a = ParseArgs(args);
    if (a.help) {
      out << kUsage;
      return 0;
    }
    Envelope envelope;
    std::string query = a.query;
    if (a.hook_stdin) {
      envelope = ReadEnvelope(in);
      const std::string& e = envelope.event;
      if (e == "UserPromptSubmit" || e == "BeforeAgent") {
        query = envelope.prompt;
        if (sdk::CollapseWhitespace(query).empty()) return 0;  // nothing to match
      } else if (!e.empty() && e != "SessionStart") {
        err << "kioku context: hook event '" << sdk::TruncateUtf8(e, 64)
            << "' adds no context (use it on SessionStart or UserPromptSubmit)\n";
        return 0;
      }
    }
    std::optional<std::string> root = a.project;
    const auto fallback = [&root](const std::string& value) {
      if (!root && !value.empty()) root = value;
    };
    fallback(Env("KIOKU_PROJECT_ROOT"));
    if (a.hook_stdin) fallback(Env("CLAUDE_PROJECT_DIR"));
    if (a.hook_stdin) fallback(envelope.cwd);

    Loaded loaded = LoadRuntime(global, StartMode::kServe, /*one_shot=*/true);
    // KIOKU_AGENT_ID, else unknown; the project exactly as the server names its folder.
    sdk::Caller caller = LocalCaller("", loaded.config.projects);
    if (!a.agent.empty()) caller.agent_id = a.agent;
    if (root) sdk::UseCommandLineProject(caller, root, loaded.config.projects);
    caller.session_id = envelope.session_id;

    ContextOptions options;
    options.query = query;
    options.token_budget = a.budget.value_or(loaded.config.context_token_budget);
    options.max_chars = loaded.config.context_max_chars;
    const ContextBlock block = BuildContext(*loaded.runtime, caller, options);
    EndOneShot(loaded);
    if (block.text.empty()) {
      // A hook stays silent (nothing to inject is the common case); a person at the command
      // line is told the empty answer is one.
      if (!a.hook_stdin) {
        err << "kioku context: nothing to show"
            << (query.empty() ? std::string(" for this project") : " relevant to \"" + sdk::TruncateUtf8(query, 80) + "\"")
            << " (no memory, session or plan matched)\n";
      }
      return 0;
    }

    const bool as_json = a.format.empty() ? a.hook_stdin : a.format == "json";
    std::string text = block.text;
    if (as_json) {
      const std::string event = envelope.event.empty() ? "SessionStart" : envelope.event;
      text = sdk::DumpJson(json{{"hookSpecificOutput", {{"hookEventName", event}, {"additionalContext", block.text}}}}) +
             "\n";
    }
    out << text;
    out.flush();
  } catch (const std::exception& e) {
    std::string message = sdk::CollapseWhitespace(e.what());
    err << "kioku context: " << sdk::TruncateUtf8(message, 400) << " (no context printed)\n";
  } catch (...) {
    err << "kioku context: unexpected error (no context printed)\n";
  }
  return 0;
}

}  // namespace kioku::host::cli
