// session_ingest (tool) and `kioku ingest` (CLI command).
#include <csignal>
#include <cstdlib>
#include <istream>
#include <set>

#include "ingest.hpp"
#include "kioku/sdk/layer_contracts.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/text.hpp"
#include "privacy.hpp"
#include "kioku/sdk/schema.hpp"
#include "tools.hpp"
#include "watch.hpp"

namespace kioku::episodic {

namespace {

namespace fs = std::filesystem;
using sdk::Json;

fs::path ExpandHome(const std::string& p) { return fs::path(sdk::ExpandHome(p)); }

bool Under(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  const fs::path r = fs::weakly_canonical(root, ec);
  if (ec) return false;
  auto pi = path.begin();
  for (auto ri = r.begin(); ri != r.end(); ++ri, ++pi) {
    if (ri->empty()) continue;  // trailing slash
    if (pi == path.end() || *pi != *ri) return false;
  }
  return true;
}

// Throws ToolError unless `path` lies under an allowed root (settings + caller project).
void CheckAllowed(const fs::path& path, const Settings& settings, const sdk::Caller& caller) {
  std::vector<std::string> roots = settings.ingest_allowed_roots;
  for (const auto& r : roots) {
    if (r == "*") return;
  }
  if (!caller.project_root.empty()) roots.push_back(caller.project_root);
  for (const auto& r : roots) {
    if (Under(path, ExpandHome(r))) return;
  }
  std::string list;
  for (const auto& r : roots) list += (list.empty() ? "" : ", ") + ScrubHome(r);
  throw sdk::ToolError("session_ingest may read transcripts only under: " + list + "; " +
                       ScrubHome(path.string()) +
                       " is outside them. Move the file there, run `kioku ingest FILE` from a "
                       "shell, or add the folder to episodic.ingest.allowed_roots");
}

Json ReportJson(const FileReport& r) {
  return {{"path", r.path},
          {"format", r.format},
          {"error", r.error.empty() ? Json(nullptr) : Json(r.error)},
          {"bytes", r.bytes},
          {"lines", r.lines},
          {"skipped_lines", r.skipped_lines},
          {"oversize_lines", r.oversize_lines},
          {"blank_lines", r.blank_lines},
          {"duplicates", r.duplicates},
          {"bad_timestamps", r.bad_timestamps},
          {"messages", r.messages},
          {"tool_outcomes", r.tool_outcomes},
          {"failed_tools", r.failed_tools},
          {"statements", r.statements},
          {"suggested", r.suggested},
          {"sessions", r.sessions},
          {"projects", r.session_projects},
          {"redacted", r.redacted},
          {"reset", r.reset},
          {"unchanged", r.unchanged},
          {"stopped", r.stopped}};
}

struct Totals {
  std::set<std::string> sessions;
  std::int64_t messages = 0, skipped = 0, suggested = 0, outcomes = 0, statements = 0;
  sdk::RedactionCounts redacted;
  void Add(const FileReport& r) {
    for (const auto& [kind, n] : r.redacted) redacted[kind] += n;
    sessions.insert(r.sessions.begin(), r.sessions.end());
    messages += r.messages;
    skipped += r.skipped_lines;
    suggested += r.suggested;
    outcomes += r.tool_outcomes;
    statements += r.statements;
  }
};

std::vector<std::string> LayerNotes(sdk::HostServices& host, const Settings& s,
                                    const DeliveryReport& d) {
  std::vector<std::string> notes;
  if (s.record_outcomes && !host.HasTool(sdk::contract::kFeedbackRecord)) {
    notes.push_back("affective layer disabled: tool outcomes were not sent to feedback_record");
  }
  if (s.suggest_memories && !host.HasTool(sdk::contract::kMemorySuggest)) {
    notes.push_back("semantic layer disabled: durable statements were logged but not filed as "
                    "memories");
  }
  if (d.expired_outcomes > 0) {
    notes.push_back(std::to_string(d.expired_outcomes) +
                    " tool outcomes are older than the affective layer's retention window and "
                    "were not kept there (they stay in this layer's tool stats)");
  }
  if (d.failed > 0) {
    notes.push_back(std::to_string(d.failed) + " cross-layer deliveries failed (kept, retried on "
                                               "the next ingest): " +
                    (d.errors.empty() ? std::string() : d.errors.front()));
  }
  return notes;
}

void AddIngestTool(sdk::Registrar& reg, ToolContext& env) {
  sdk::ToolSpec spec;
  spec.name = "session_ingest";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Import agent transcripts";
  spec.description =
      "Reads coding-agent transcripts — Claude Code (~/.claude/projects/*/*.jsonl), Codex CLI "
      "rollouts (~/.codex/sessions/**/rollout-*.jsonl) or generic {role, content, timestamp} "
      "JSONL — and records each session: requests, decisions, failed tool calls, files "
      "touched, a summary for session_recall; tool outcomes go to the affective layer and "
      "durable human rules ('from now on…', 'we decided…') become pending memories. Pass a "
      "file or a folder. Re-ingesting reads only what is new.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object(
        {{"path", schema::String(4096, "Transcript file or folder (searched for *.jsonl).", 1)},
         {"format", schema::Enum({"auto", "claude-code", "codex", "generic"}, "Default auto (detected per file).")}},
        {"path"});
    t.output_schema =
        schema::Output({{"sessions", schema::Type("integer")},
                        {"messages", schema::Type("integer")},
                        {"skipped_lines", schema::Type("integer")},
                        {"suggested_memories", schema::Type("integer")},
                        {"tool_outcomes", schema::Type("integer")},
                        {"statements", schema::Type("integer")},
                        {"redacted", {{"type", "object"}, {"additionalProperties", schema::Type("integer")}}},
                        {"files", {{"type", "array"}}},
                        {"notes", {{"type", "array"}}}},
                       {"sessions", "messages", "skipped_lines", "suggested_memories"});
  };
  spec.annotations.idempotent = true;
  reg.AddTool(spec, [&env](const Json& args, const sdk::CallContext& ctx) {
    const std::string raw = args["path"].get<std::string>();
    fs::path path = ExpandHome(raw);
    const std::string& base = !ctx.caller.working_dir.empty() ? ctx.caller.working_dir : ctx.caller.project_root;
    if (path.is_relative() && !base.empty()) path = fs::path(base) / path;
    std::error_code ec;
    path = fs::weakly_canonical(path, ec);
    if (ec || !fs::exists(path, ec)) {
      throw sdk::ToolError("no such file or folder: " + ScrubHome(path.string()) +
                           "; pass the path of a transcript .jsonl file or a folder of them");
    }
    CheckAllowed(path, env.settings, ctx.caller);
    const Format forced = FormatFromName(StrArg(args, "format", "auto"));
    std::vector<fs::path> files;
    std::size_t outside = 0;
    if (fs::is_directory(path, ec)) {
      files = ListTranscripts(path, 10'000, &outside);
      if (files.empty()) {
        throw sdk::ToolError("no *.jsonl transcripts under " + ScrubHome(path.string()));
      }
    } else {
      files.push_back(path);
    }
    Ingester ingester(env.host, env.settings, ctx.caller);
    Totals t;
    Json reports = Json::array();
    std::vector<std::string> lines;
    bool stopped = false;
    for (const auto& f : files) {
      if (ctx.Cancelled() || ctx.Expired()) {
        stopped = true;
        break;
      }
      FileReport r = ingester.IngestFile(f, forced, [&] { return ctx.Cancelled() || ctx.Expired(); });
      if (files.size() == 1 && !r.error.empty()) throw sdk::ToolError(r.error);
      t.Add(r);
      stopped = stopped || r.stopped;
      if (reports.size() < 200) reports.push_back(ReportJson(r));
      if (lines.size() < 20) lines.push_back(DescribeReport(r));
    }
    const DeliveryReport d = ingester.Deliver();
    std::vector<std::string> notes = LayerNotes(env.host, env.settings, d);
    if (stopped) notes.push_back("stopped at the call's deadline; call again to continue");
    if (outside > 0) {
      notes.push_back(std::to_string(outside) +
                      " linked files were skipped: they resolve to places outside the folder");
    }
    if (const std::string r = sdk::DescribeRedactions(t.redacted); !r.empty()) {
      notes.push_back("secrets " + r + " before storing");
    }
    std::string text = "Ingested " + sdk::Plural(files.size(), "file", "files") + ": " +
                       sdk::Plural(t.sessions.size(), "session", "sessions") + ", " +
                       sdk::Plural(t.messages, "message", "messages") + ", " +
                       sdk::Plural(t.outcomes, "tool outcome", "tool outcomes") + ", " +
                       sdk::Plural(t.statements, "durable statement", "durable statements") + " (" +
                       sdk::Plural(t.suggested, "new memory suggestion", "new memory suggestions") + "), " +
                       sdk::Plural(t.skipped, "line", "lines") + " skipped";
    for (const auto& l : lines) text += "\n- " + l;
    for (const auto& n : notes) text += "\nNote: " + n;
    return sdk::ToolResult::Ok(text, {{"sessions", t.sessions.size()},
                                      {"messages", t.messages},
                                      {"skipped_lines", t.skipped},
                                      {"suggested_memories", t.suggested},
                                      {"tool_outcomes", t.outcomes},
                                      {"statements", t.statements},
                                      {"redacted", t.redacted},
                                      {"files", reports},
                                      {"notes", notes}});
  });
}

std::atomic<bool> g_watch_stop{false};

extern "C" void StopWatch(int) { g_watch_stop.store(true); }

constexpr const char* kUsage =
    "usage: kioku ingest [--format auto|claude-code|codex|generic] FILE|DIR...\n"
    "       kioku ingest --watch DIR [--interval-ms N] [--max-polls N]\n"
    "Records coding-agent transcripts (Claude Code, Codex CLI, generic JSONL) as episodes.\n"
    "Re-running reads only what is new. --watch follows growing transcripts until Ctrl-C.\n";

int RunIngestCommand(ToolContext& env, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  Format forced = Format::kUnknown;
  std::string watch_dir;
  std::int64_t interval = env.settings.watch_interval_ms, max_polls = -1;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(std::string(flag) + " needs a value");
      return args[++i];
    };
    try {
      if (a == "--help" || a == "-h") {
        out << kUsage;
        return 0;
      } else if (a == "--format") {
        const std::string f = value("--format");
        forced = FormatFromName(f);
        if (forced == Format::kUnknown && f != "auto") {
          throw std::invalid_argument("unknown format '" + f + "'");
        }
      } else if (a == "--watch") {
        watch_dir = value("--watch");
      } else if (a == "--interval-ms") {
        interval = std::stoll(value("--interval-ms"));
      } else if (a == "--max-polls") {
        max_polls = std::stoll(value("--max-polls"));
      } else if (!a.empty() && a[0] == '-') {
        throw std::invalid_argument("unknown option " + a);
      } else {
        paths.push_back(a);
      }
    } catch (const std::exception& e) {
      err << "kioku ingest: " << e.what() << "\n" << kUsage;
      return 2;
    }
  }
  if (watch_dir.empty() && paths.empty()) {
    err << kUsage;
    return 2;
  }
  sdk::Caller caller;
  caller.agent_id = "kioku-ingest";
  caller.agent_source = sdk::AgentSource::kConfig;
  std::error_code ec;
  // Sessions are filed under their own recorded cwd; this is only the fallback.
  const sdk::ProjectInfo here = sdk::ResolveProject(fs::current_path(ec), env.host.Projects());
  caller.project_root = here.root;
  caller.project_id = here.id;
  caller.working_dir = fs::current_path(ec).string();
  Ingester ingester(env.host, env.settings, caller);
  int rc = 0;
  if (!paths.empty()) {
    Totals t;
    for (const auto& p : paths) {
      std::vector<fs::path> files;
      if (fs::is_directory(p, ec)) {
        files = ListTranscripts(p);
      } else {
        files.push_back(p);
      }
      for (const auto& f : files) {
        FileReport r = ingester.IngestFile(f, forced);
        out << DescribeReport(r) << "\n";
        if (!r.error.empty()) rc = 1;
        t.Add(r);
      }
    }
    const DeliveryReport d = ingester.Deliver();
    out << "total: " << sdk::Plural(t.sessions.size(), "session", "sessions") << ", "
        << sdk::Plural(t.messages, "message", "messages") << ", "
        << sdk::Plural(t.outcomes, "tool outcome", "tool outcomes") << ", "
        << sdk::Plural(t.suggested, "memory suggestion", "memory suggestions") << ", "
        << sdk::Plural(t.skipped, "line", "lines") << " skipped\n";
    if (const std::string r = sdk::DescribeRedactions(t.redacted); !r.empty()) {
      out << "note: secrets " << r << " before storing\n";
    }
    for (const auto& n : LayerNotes(env.host, env.settings, d)) out << "note: " << n << "\n";
  }
  if (!watch_dir.empty()) {
    g_watch_stop.store(false);
    auto previous = std::signal(SIGINT, StopWatch);
    WatchOptions w;
    w.dir = watch_dir;
    w.interval = std::chrono::milliseconds(std::max<std::int64_t>(interval, 50));
    w.max_polls = max_polls;
    w.stop = &g_watch_stop;
    out << "watching " << ScrubHome(fs::absolute(watch_dir, ec).string())
        << " for transcripts (Ctrl-C to stop)\n";
    const int wrc = RunWatch(ingester, w, out, err);
    std::signal(SIGINT, previous);
    rc = rc != 0 ? rc : wrc;
  }
  return rc;
}

}  // namespace

void RegisterIngestTools(sdk::Registrar& registrar, ToolContext& env) {
  AddIngestTool(registrar, env);
  sdk::CommandSpec cmd;
  cmd.name = "ingest";
  cmd.summary = "Record coding-agent transcripts (Claude Code, Codex, JSONL) as episodes";
  cmd.usage = kUsage;
  cmd.run = [&env](const std::vector<std::string>& args, std::istream&, std::ostream& out,
                   std::ostream& err) { return RunIngestCommand(env, args, out, err); };
  registrar.AddCommand(std::move(cmd));
}

}  // namespace kioku::episodic
