#include <cstdint>
#include <string>

#include "format.hpp"
#include "kioku/sdk/args.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/text.hpp"
#include "stats.hpp"
#include "tools.hpp"

namespace kioku::affective {
namespace {

using sdk::Json;

constexpr int kDefaultLimit = 50;
constexpr int kMaxLimit = 500;
constexpr std::size_t kErrorShownBytes = 160;

Json InputSchema() {
  using namespace sdk::schema;
  const std::vector<std::string> dims = {"agent", "model", "project"};
  Json dim_list = Array(Enum(dims), 3);
  dim_list["uniqueItems"] = true;
  Json limit = Integer(1, kMaxLimit, "Most rows returned (busiest first).");
  limit["default"] = kDefaultLimit;
  return Object({
      {"tool_prefix", String(kMaxToolNameChars,
                             "Only tools whose name starts with this, e.g. memory_ or github/.")},
      {"agent_id", String(200, "Only outcomes of this agent.", 1)},
      {"model", String(200, "Only outcomes recorded with this model.", 1)},
      {"since", String(64, "RFC 3339 start of the window (inclusive).")},
      {"until", String(64, "RFC 3339 end of the window (exclusive).")},
      {"group_by",
       {{"anyOf", {Enum(dims), dim_list}},
        {"description",
         "Split each tool's figures by agent, model and/or project, e.g. [\"agent\"]."}}},
      {"limit", limit},
  });
}

Json OutputSchema() {
  using namespace sdk::schema;
  const Json text = Type("string");
  const Json maybe_number = Nullable(Type("number"));
  const Json failure = Output({{"at", text},
                               {"outcome", text},
                               {"error", text},
                               {"error_class", text},
                               {"agent_id", text},
                               {"session_id", text}},
                              {"at", "outcome", "error", "error_class", "agent_id", "session_id"});
  const Json count = {{"type", "integer"}, {"minimum", 0}};
  const Json row = Output({{"tool", text},
                           {"agent_id", text},
                           {"model", text},
                           {"project_id", text},
                           {"n", count},
                           {"success", count},
                           {"failure", count},
                           {"partial", count},
                           {"rejected", count},
                           {"timeout", count},
                           {"success_rate", Number(0, 1)},
                           {"latency_p50_ms", maybe_number},
                           {"latency_p95_ms", maybe_number},
                           {"latency_mean_ms", maybe_number},
                           {"avg_confidence", maybe_number},
                           {"last_at", text},
                           {"recent_failures", ArrayOf(failure)}},
                          {"tool", "n", "success", "failure", "partial", "rejected", "timeout",
                           "success_rate", "latency_p50_ms", "latency_p95_ms", "latency_mean_ms",
                           "avg_confidence", "last_at", "recent_failures"});
  return Output({{"tools", ArrayOf(row)},
                 {"total", count},
                 {"truncated", Bool()},
                 {"day_granularity", Bool()}},
                {"tools", "total", "truncated", "day_granularity"});
}

Json OptionalNumber(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

std::string RowLabel(const ToolStats& t, const StatsParams& p) {
  std::string label = t.tool;
  std::string dims;
  auto add = [&](const char* name, const std::string& value) {
    if (!dims.empty()) dims += " ";
    dims += std::string(name) + "=" + (value.empty() ? "-" : value);
  };
  if (p.by_agent) add("agent", t.agent_id);
  if (p.by_model) add("model", t.model);
  if (p.by_project) add("project", t.project_id);
  return dims.empty() ? label : label + " [" + dims + "]";
}

}  // namespace

void RegisterQueryTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "feedback_query";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Tool outcome statistics";
  spec.description =
      "Per-tool track record: number of calls, counts per outcome, success rate, latency "
      "p50/p95 and the most recent failures with their error text. Use it to see why a tool "
      "keeps failing or how slow it is; use feedback_route to pick between tools. Filter by "
      "tool_prefix, agent_id, model and a since/until window; group_by agent/model/project "
      "splits each tool's figures.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = InputSchema();
    t.output_schema = OutputSchema();
  };
  spec.annotations.read_only = true;
  spec.annotations.idempotent = true;

  registrar.AddTool(std::move(spec), [&ctx](const Json& args, const sdk::CallContext& call) {
    StatsParams p;
    p.now_ms = ctx.host.GetClock().NowMs();
    p.retention_days = ctx.settings.retention_days;
    p.recent_failures = ctx.settings.recent_failures;
    p.limit = args.value("limit", kDefaultLimit);
    p.filter.tool_prefix = args.value("tool_prefix", "");
    if (args.contains("agent_id")) p.filter.agent_id = args["agent_id"].get<std::string>();
    if (args.contains("model")) p.filter.model = args["model"].get<std::string>();
    p.since_ms = sdk::TimeArg(args, "since");
    p.until_ms = sdk::TimeArg(args, "until");
    sdk::CheckTimeWindow(p.since_ms, p.until_ms);
    if (auto it = args.find("group_by"); it != args.end()) {
      const Json dims = it->is_array() ? *it : Json::array({*it});
      for (const auto& d : dims) {
        const std::string dim = d.get<std::string>();
        p.by_agent |= dim == "agent";
        p.by_model |= dim == "model";
        p.by_project |= dim == "project";
      }
    }

    const StatsResult r = QueryStats(ctx.host.Db(), p);
    Json rows = Json::array();
    std::string text;
    // Rows stop before the host's result byte cap (text and JSON together); the footer
    // counts what was left out like the limit does.
    const std::size_t room = call.result_budget_bytes == 0 ? SIZE_MAX : call.result_budget_bytes * 7 / 8;
    std::size_t used = 512;
    std::size_t shown = 0;
    for (const auto& t : r.rows) {
      const std::size_t before = text.size();
      Json row = {{"tool", t.tool},
                  {"n", t.n},
                  {"success_rate", t.success_rate},
                  {"latency_p50_ms", OptionalNumber(t.latency_p50_ms)},
                  {"latency_p95_ms", OptionalNumber(t.latency_p95_ms)},
                  {"latency_mean_ms", OptionalNumber(t.latency_mean_ms)},
                  {"avg_confidence", OptionalNumber(t.avg_confidence)},
                  {"last_at", sdk::FormatRfc3339(t.last_at_ms)}};
      for (int k = 0; k < kOutcomeKinds; ++k) {
        row[std::string(kOutcomeNames[static_cast<std::size_t>(k)])] =
            t.counts[static_cast<std::size_t>(k)];
      }
      if (p.by_agent) row["agent_id"] = t.agent_id;
      if (p.by_model) row["model"] = t.model;
      if (p.by_project) row["project_id"] = t.project_id;
      Json failures = Json::array();
      for (const auto& f : t.recent_failures) {
        failures.push_back({{"at", sdk::FormatRfc3339(f.at_ms)},
                            {"outcome", std::string(OutcomeName(f.outcome))},
                            {"error", f.error},
                            {"error_class", f.error_class},
                            {"agent_id", f.agent_id},
                            {"session_id", f.session_id}});
      }
      row["recent_failures"] = std::move(failures);
      const std::size_t row_bytes = sdk::DumpJson(row).size();

      text += RowLabel(t, p) + ": n=" + std::to_string(t.n) + " success " +
              FormatPercent(t.success_rate) + " (";
      bool first = true;
      for (int k = 0; k < kOutcomeKinds; ++k) {
        const auto c = t.counts[static_cast<std::size_t>(k)];
        if (c == 0) continue;
        text += (first ? "" : ", ") + std::to_string(c) + " " +
                std::string(kOutcomeNames[static_cast<std::size_t>(k)]);
        first = false;
      }
      text += ")";
      if (t.latency_p50_ms) {
        text += " p50 " + FormatLatency(*t.latency_p50_ms) + " p95 " +
                FormatLatency(*t.latency_p95_ms);
      }
      text += "\n";
      if (!t.recent_failures.empty()) {
        const auto& f = t.recent_failures.front();
        text += "  last " + std::string(OutcomeName(f.outcome)) + " " +
                sdk::FormatRfc3339(f.at_ms);
        if (!f.error_class.empty()) text += " [" + f.error_class + "]";
        if (!f.error.empty()) text += ": " + sdk::TruncateUtf8(f.error, kErrorShownBytes);
        text += "\n";
      }
      const std::size_t cost = row_bytes + text.size() - before;
      if (shown > 0 && used + cost > room) {
        text.resize(before);
        break;
      }
      used += cost;
      rows.push_back(std::move(row));
      ++shown;
    }
    if (r.rows.empty()) {
      text = "no outcomes recorded for this filter\n";
    } else if (r.total_groups > shown) {
      text += "(" + std::to_string(r.total_groups - shown) + " more rows; " +
              (shown < r.rows.size() ? "cut to fit the result size cap; " : "") +
              "raise limit, narrow the filter or use tool_prefix)\n";
    }
    if (r.day_granularity) {
      text += "note: an edge of the window is older than the raw-row retention, so that day "
              "is counted whole\n";
    }
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return sdk::ToolResult::Ok(text, {{"tools", std::move(rows)},
                                      {"total", r.total_groups},
                                      {"truncated", r.total_groups > shown},
                                      {"day_granularity", r.day_granularity}});
  });
}

}  // namespace kioku::affective
