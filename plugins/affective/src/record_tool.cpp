#include <string>
#include <vector>

#include "kioku/sdk/args.hpp"
#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"
#include "kioku/sdk/tool.hpp"
#include "tools.hpp"

namespace kioku::affective {
namespace {

using sdk::Json;

// Records dated further ahead than this are refused: they would dominate the decay.
constexpr std::int64_t kMaxFutureSkewMs = 5 * 60 * 1000;

Json RecordProperties() {
  using namespace sdk::schema;
  return {
      {"tool", String(kMaxToolNameChars,
                      "Tool name as the agent knows it: a kioku tool, an agent tool such as Bash "
                      "or Edit, or an MCP server's tool as server/tool.",
                      1)},
      {"outcome",
       Enum({"success", "failure", "partial", "rejected", "timeout"},
            "success; failure (ran and failed); partial (half-done, counts as half a success); "
            "rejected (refused: bad arguments or denied permission); timeout (deadline passed "
            "or cancelled).")},
      {"latency_ms",
       Number(0, 86'400'000, "Wall time of the call in milliseconds (0 to 86400000).")},
      {"confidence", Number(0, 1, "How sure the agent is of the outcome, 0 to 1.")},
      {"agent_id", String(200, "Agent that made the call; default: the caller's agent id.", 1)},
      {"model", String(200, "Model that made the call, e.g. claude-sonnet-4.")},
      {"error", String(20'000, "Error text; stored secret-redacted and cut to 500 bytes.")},
      {"error_class", String(200, "Short error category, e.g. ENOENT, http_429, assertion.")},
      {"session_id", String(200, "Session id; default: the caller's session.")},
      {"project_id", String(1000, "Project id; default: the caller's project.")},
      {"at", String(64,
                    "When the call finished, RFC 3339 (2026-03-01T12:00:00Z); default: now. Use "
                    "it when recording past calls so recency weighting is right.")},
      {"source_id", String(200,
                           "Unique id of this call (e.g. the tool_use id); a record whose "
                           "source_id is already stored is skipped, so re-ingesting is safe.",
                           1)},
  };
}

Json InputSchema() {
  using namespace sdk::schema;
  Json single = RecordProperties();
  Json props = single;
  props["records"] = Array(Object(single, {"tool", "outcome"}), kMaxBatch,
                           "Batch form: up to 1000 outcomes, each shaped like the single form. "
                           "Do not combine with the single-form fields.",
                           1);
  return Object(std::move(props));
}

Json OutputSchema() {
  const Json count = {{"type", "integer"}, {"minimum", 0}};
  return sdk::schema::Output({{"recorded", count}, {"duplicates", count}, {"expired", count}},
                             {"recorded", "duplicates", "expired"});
}

std::string Where(const std::string& prefix, const char* field) {
  return prefix.empty() ? std::string(field) : prefix + "." + field;
}

std::string StringArg(const Json& obj, const char* key, const std::string& fallback) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return fallback;
  return sdk::SanitizeUtf8(it->get<std::string>());
}

OutcomeRecord ParseRecord(const Json& obj, const std::string& where, const sdk::Caller& caller,
                          std::int64_t now_ms, const Recorder& recorder) {
  // Every string but `error` is stored as sent: refuse a secret in any of them (tool,
  // model, error_class, source_id, session_id, agent_id, project_id), naming the field.
  // `error` is free text from a failing tool and is redacted instead (Recorder::CleanError).
  Json screened = obj;
  if (screened.is_object()) screened.erase("error");
  sdk::ScreenSecrets(screened, where);
  OutcomeRecord r;
  r.tool = sdk::CollapseWhitespace(StringArg(obj, "tool", ""));
  if (r.tool.empty()) {
    throw sdk::ToolError(Where(where, "tool") +
                         " is empty: send the name of the tool whose outcome this is");
  }
  const auto outcome = ParseOutcome(obj.value("outcome", ""));
  if (!outcome) {
    throw sdk::ToolError(Where(where, "outcome") +
                         " is missing or unknown: send one of success, failure, partial, "
                         "rejected, timeout");
  }
  r.outcome = *outcome;
  if (auto it = obj.find("latency_ms"); it != obj.end()) {
    const double v = it->get<double>();
    if (!(v >= 0)) {
      throw sdk::ToolError(Where(where, "latency_ms") + " must be >= 0 milliseconds");
    }
    r.latency_ms = v;
  }
  if (auto it = obj.find("confidence"); it != obj.end()) {
    const double v = it->get<double>();
    if (!(v >= 0 && v <= 1)) {
      throw sdk::ToolError(Where(where, "confidence") + " must be between 0 and 1");
    }
    r.confidence = v;
  }
  r.agent_id = sdk::ResolveAgentId(caller, obj, /*required=*/false);
  if (r.agent_id.empty()) r.agent_id = caller.agent_id.empty() ? "unknown" : caller.agent_id;
  r.model = StringArg(obj, "model", "");
  r.session_id = StringArg(obj, "session_id", caller.session_id);
  r.project_id = obj.contains("project_id") ? sdk::CanonicalProjectKey(StringArg(obj, "project_id", ""))
                                             : caller.project_id;
  r.error_class = sdk::CollapseWhitespace(StringArg(obj, "error_class", ""));
  r.error = recorder.CleanError(StringArg(obj, "error", ""));
  r.source_id = StringArg(obj, "source_id", "");
  r.source = std::string(kSourceRecord);
  r.at_ms = now_ms;
  if (auto it = obj.find("at"); it != obj.end()) {
    r.at_ms = sdk::ParseTime(*it, Where(where, "at"));
    if (r.at_ms > now_ms + kMaxFutureSkewMs) {
      throw sdk::ToolError(Where(where, "at") + " is in the future (" +
                           sdk::FormatRfc3339(r.at_ms) + " > now " + sdk::FormatRfc3339(now_ms) +
                           "): send the time the call finished, or omit it for now");
    }
  }
  return r;
}

}  // namespace

void RegisterRecordTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "feedback_record";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Record tool outcomes";
  spec.description =
      "Record how a tool call went (success, failure, partial, rejected, timeout) with its "
      "latency, optional confidence and error text, so feedback_route can learn which tools "
      "work. kioku's own tool calls are recorded automatically; use this for other tools "
      "(Bash, Edit, an MCP server's server/tool) or to add confidence. Send one outcome as "
      "{tool, outcome, ...} or up to 1000 as {records: [...]}; give `at` for past calls and "
      "`source_id` to make re-ingesting idempotent.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = InputSchema();
    t.output_schema = OutputSchema();
  };
  spec.annotations.read_only = false;
  spec.annotations.destructive = false;
  spec.annotations.idempotent = false;
  spec.annotations.open_world = false;

  registrar.AddTool(std::move(spec), [&ctx](const Json& args, const sdk::CallContext& call) {
    const std::int64_t now = ctx.host.GetClock().NowMs();
    std::vector<OutcomeRecord> records;
    if (auto it = args.find("records"); it != args.end()) {
      for (auto field = args.begin(); field != args.end(); ++field) {
        if (field.key() != "records") {
          throw sdk::ToolError("send either the single form {tool, outcome, ...} or {records: "
                               "[...]}, not both: move '" + field.key() +
                               "' into each record");
        }
      }
      records.reserve(it->size());
      for (std::size_t i = 0; i < it->size(); ++i) {
        records.push_back(ParseRecord((*it)[i], "records[" + std::to_string(i) + "]",
                                      call.caller, now, ctx.recorder));
      }
    } else {
      if (!args.contains("tool") || !args.contains("outcome")) {
        throw sdk::ToolError("missing tool or outcome: send {tool, outcome} (e.g. {\"tool\": "
                             "\"Bash\", \"outcome\": \"failure\"}) or {records: [...]}");
      }
      records.push_back(ParseRecord(args, "", call.caller, now, ctx.recorder));
    }
    const WriteStats stats = ctx.recorder.Record(records);
    std::string text;
    if (records.size() == 1 && stats.inserted == 1) {
      text = "recorded " + std::string(OutcomeName(records[0].outcome)) + " for " +
             records[0].tool;
    } else {
      text = "recorded " + std::to_string(stats.inserted) + " outcome" +
             (stats.inserted == 1 ? "" : "s");
    }
    if (stats.duplicates > 0) {
      text += " (" + std::to_string(stats.duplicates) + " duplicate source_id" +
              (stats.duplicates == 1 ? "" : "s") + " skipped)";
    }
    if (stats.expired > 0) {
      text += "; " + std::to_string(stats.expired) +
              " skipped: they have a source_id and are older than the " +
              std::to_string(ctx.settings.retention_days) +
              "-day retention window, so a repeat could not be detected";
    }
    return sdk::ToolResult::Ok(text, {{"recorded", stats.inserted},
                                      {"duplicates", stats.duplicates},
                                      {"expired", stats.expired}});
  });
}

}  // namespace kioku::affective
