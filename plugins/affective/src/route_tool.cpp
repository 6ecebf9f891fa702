#include <cmath>
#include <string>

#include "format.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/text.hpp"
#include "ranking.hpp"
#include "tools.hpp"

namespace kioku::affective {
namespace {

using sdk::Json;

constexpr int kDefaultLimit = 50;
constexpr int kMaxLimit = 500;
constexpr int kMaxCandidates = 500;

Json InputSchema() {
  using namespace sdk::schema;
  Json half_life = {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 3650}};
  Json limit = Integer(1, kMaxLimit);
  limit["default"] = kDefaultLimit;
  return Object({
      {"tools", Array(String(kMaxToolNameChars, {}, 1), kMaxCandidates,
                      "candidates; omit for every tool with outcomes")},
      {"tool_prefix", String(kMaxToolNameChars)},
      {"agent_id", String(200, {}, 1)},
      {"model", String(200, {}, 1)},
      {"project_id", String(1000, {}, 1)},
      {"half_life_days", half_life},
      {"min_samples", Number(0, 1e9)},
      {"explore", Bool("UCB1 bonus for rarely tried tools")},
      {"explore_weight", Number(0, 10)},
      {"limit", limit},
  });
}

Json OutputSchema() {
  using namespace sdk::schema;
  const Json number = Type("number");
  const Json non_negative = {{"type", "number"}, {"minimum", 0}};
  const Json count = {{"type", "integer"}, {"minimum", 0}};
  const Json entry = Output({{"tool", Type("string")},
                             {"score", non_negative},
                             {"wilson_lower", Number(0, 1)},
                             {"explore_bonus", non_negative},
                             {"n_effective", non_negative},
                             {"n", count},
                             {"decayed_rate", Nullable(Number(0, 1))},
                             {"confident", Bool()},
                             {"last_at", Nullable(Type("string"))}},
                            {"tool", "score", "wilson_lower", "explore_bonus", "n_effective", "n",
                             "decayed_rate", "confident", "last_at"});
  return Output(
      {{"ranking", ArrayOf(entry)},
       {"total", count},
       {"half_life_days", number},
       {"min_samples", number},
       {"z", number},
       {"explore", Bool()},
       {"decay_from",
        Enum({"totals", "day_buckets"},
             "totals: exact per-outcome decay (configured half-life); day_buckets: another "
             "half-life, each day's outcomes weighted at their mean time.")}},
      {"ranking", "total", "half_life_days", "min_samples", "z", "explore", "decay_from"});
}

}  // namespace

void RegisterRouteTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "feedback_route";
  spec.title = "Rank tools by track record";
  spec.description =
      "Before choosing between tools that do the same job: ranks them by track record "
      "(Wilson lower bound of the recency-weighted success rate); prefer the higher score.";
  spec.input_schema = InputSchema();
  spec.output_schema = OutputSchema();
  spec.annotations.read_only = true;
  spec.annotations.idempotent = true;

  registrar.AddTool(std::move(spec), [&ctx](const Json& args, const sdk::CallContext&) {
    RouteParams p;
    p.now_ms = ctx.host.GetClock().NowMs();
    p.z = ctx.settings.z;
    p.half_life_days = args.value("half_life_days", ctx.settings.half_life_days);
    if (!(p.half_life_days > 0) || !std::isfinite(p.half_life_days)) {
      throw sdk::ToolError("half_life_days must be > 0 (days after which an outcome counts "
                           "half): send e.g. 14");
    }
    p.min_samples = args.value("min_samples", ctx.settings.min_samples);
    const bool explore = args.value("explore", false);
    p.explore_weight = explore ? args.value("explore_weight", ctx.settings.explore_weight) : 0.0;
    const int limit = args.value("limit", kDefaultLimit);
    if (auto it = args.find("tools"); it != args.end()) {
      for (const auto& t : *it) {
        std::string name = sdk::CollapseWhitespace(sdk::SanitizeUtf8(t.get<std::string>()));
        if (name.empty()) {
          throw sdk::ToolError("tools contains an empty name: send tool names such as Bash "
                               "or memory_recall");
        }
        p.filter.tools.push_back(std::move(name));
      }
    }
    p.filter.tool_prefix = args.value("tool_prefix", "");
    if (args.contains("agent_id")) p.filter.agent_id = args["agent_id"].get<std::string>();
    if (args.contains("model")) p.filter.model = args["model"].get<std::string>();
    // An old spelling ("<repo>//apps/api", "~/x") names the project its rows moved to.
    if (args.contains("project_id")) {
      p.filter.project_id =
          sdk::CanonicalProjectKey(args["project_id"].get<std::string>(), ctx.host.Projects());
    }

    std::vector<RouteEntry> ranking = RankTools(ctx.host.Db(), p);
    const bool from_buckets = !ranking.empty() && ranking.front().from_buckets;
    const std::size_t total = ranking.size();
    if (ranking.size() > static_cast<std::size_t>(limit)) {
      ranking.resize(static_cast<std::size_t>(limit));
    }

    Json entries = Json::array();
    std::string text;
    int rank = 0;
    for (const auto& e : ranking) {
      entries.push_back(
          {{"tool", e.tool},
           {"score", e.score},
           {"wilson_lower", e.wilson_lower},
           {"explore_bonus", e.explore_bonus},
           {"n_effective", e.n_effective},
           {"n", e.n},
           {"decayed_rate", e.decayed_rate ? Json(*e.decayed_rate) : Json(nullptr)},
           {"confident", e.confident},
           {"last_at", e.last_at_ms ? Json(sdk::FormatRfc3339(*e.last_at_ms)) : Json(nullptr)}});
      text += std::to_string(++rank) + ". " + e.tool + " score " + FormatFixed(e.score, 3);
      if (e.n == 0) {
        text += " (no outcomes yet)\n";
        continue;
      }
      text += " (decayed rate " + FormatPercent(e.decayed_rate.value_or(0)) + ", n_eff " +
              FormatFixed(e.n_effective, 1) + ", n " + std::to_string(e.n) +
              (e.confident ? ", confident" : ", not confident") + ")\n";
    }
    if (ranking.empty()) text = "no outcomes recorded for this filter; nothing to rank\n";
    if (total > ranking.size()) {
      text += "(" + std::to_string(total - ranking.size()) + " more; raise limit)\n";
    }
    text.pop_back();
    return sdk::ToolResult::Ok(text, {{"ranking", std::move(entries)},
                                      {"total", total},
                                      {"half_life_days", p.half_life_days},
                                      {"min_samples", p.min_samples},
                                      {"z", p.z},
                                      {"explore", explore},
                                      {"decay_from", from_buckets ? "day_buckets" : "totals"}});
  });
}

}  // namespace kioku::affective
