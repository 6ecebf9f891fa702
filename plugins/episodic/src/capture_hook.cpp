#include "capture_hook.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <ostream>

#include "ingest.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxEnvelopeBytes = 8u << 20;
constexpr std::int64_t kDefaultMaxMs = 5000;

constexpr const char* kUsage =
    "usage: kioku hook capture [--agent ID] [--max-ms N]\n"
    "Reads a Stop, SubagentStop, PreCompact or SessionEnd hook envelope (JSON with\n"
    "transcript_path and cwd) on stdin and records what the session's transcript gained since\n"
    "the last run as episodes (new lines only). Always exits 0 and prints nothing on stdout;\n"
    "stops after --max-ms milliseconds (default 5000) and continues on the next run.\n"
    "Claude Code settings.json:\n"
    "  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"kioku hook capture\"}]}],\n"
    "             \"PreCompact\": [...same...], \"SessionEnd\": [...same...]}\n";

std::string Str(const sdk::Json& env, const char* key) {
  auto it = env.find(key);
  return it != env.end() && it->is_string() ? sdk::SanitizeUtf8(it->get<std::string>()) : std::string();
}

}  // namespace

int RunCaptureHook(ToolContext& env, const std::vector<std::string>& args, std::istream& in, std::ostream& err) {
  try {
    const auto started = std::chrono::steady_clock::now();
    std::string agent;
    std::int64_t max_ms = kDefaultMaxMs;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--agent" && i + 1 < args.size()) {
        agent = args[++i];
      } else if (args[i] == "--max-ms" && i + 1 < args.size()) {
        max_ms = std::max<std::int64_t>(1, std::atoll(args[++i].c_str()));
      } else {
        err << "kioku hook capture: ignoring unknown argument '" << sdk::TruncateUtf8(args[i], 80) << "'\n";
      }
    }
    std::string data;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      data.append(buf, static_cast<std::size_t>(in.gcount()));
      if (data.size() > kMaxEnvelopeBytes) {
        err << "kioku hook capture: envelope larger than 8 MiB; nothing recorded\n";
        return 0;
      }
    }
    const sdk::Json envelope = sdk::Json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (envelope.is_discarded() || !envelope.is_object()) {
      err << "kioku hook capture: stdin is not a JSON object: expected a Stop/PreCompact/SessionEnd hook envelope\n";
      return 0;
    }
    const std::string transcript = Str(envelope, "transcript_path");
    if (transcript.empty()) {
      err << "kioku hook capture: the envelope has no transcript_path; nothing recorded\n";
      return 0;
    }
    std::error_code ec;
    if (!fs::is_regular_file(transcript, ec)) {
      err << "kioku hook capture: transcript " << sdk::TruncateUtf8(transcript, 200)
          << " is not a readable file; nothing recorded\n";
      return 0;
    }
    if (agent.empty()) {
      if (const char* a = std::getenv("KIOKU_AGENT_ID"); a && *a) agent = a;
    }
    sdk::Caller caller;
    caller.agent_id = agent.empty() ? "kioku-hook" : sdk::TruncateUtf8(agent, 200, "");
    caller.session_id = Str(envelope, "session_id");
    const std::string cwd = Str(envelope, "cwd");
    caller.project_root = !cwd.empty() && cwd[0] == '/' ? cwd : fs::current_path(ec).string();
    caller.project_id = sdk::ProjectIdentity(caller.project_root);

    const auto deadline = started + std::chrono::milliseconds(max_ms);
    Ingester ingester(env.host, env.settings, caller);
    const FileReport report = ingester.IngestFile(
        transcript, Format::kUnknown, [deadline] { return std::chrono::steady_clock::now() >= deadline; });
    if (!report.error.empty()) {
      err << "kioku hook capture: " << sdk::TruncateUtf8(sdk::CollapseWhitespace(report.error), 300) << "\n";
    }
    const DeliveryReport delivered = ingester.Deliver();
    if (delivered.failed > 0 && !delivered.errors.empty()) {
      err << "kioku hook capture: " << delivered.failed << " cross-layer deliveries failed (retried next run): "
          << sdk::TruncateUtf8(sdk::CollapseWhitespace(delivered.errors.front()), 200) << "\n";
    }
  } catch (const std::exception& e) {
    err << "kioku hook capture: " << sdk::TruncateUtf8(sdk::CollapseWhitespace(e.what()), 300)
        << " (nothing more recorded)\n";
  } catch (...) {
    err << "kioku hook capture: unexpected error (nothing more recorded)\n";
  }
  return 0;
}

sdk::CommandSpec CaptureHookCommand(ToolContext& env) {
  sdk::CommandSpec cmd;
  cmd.name = "hook capture";
  cmd.summary = "Stop/PreCompact/SessionEnd hook: record what the session's transcript gained (always exit 0)";
  cmd.usage = kUsage;
  cmd.run = [&env](const std::vector<std::string>& args, std::istream& in, std::ostream&, std::ostream& err) {
    return RunCaptureHook(env, args, in, err);
  };
  return cmd;
}

}  // namespace kioku::episodic
