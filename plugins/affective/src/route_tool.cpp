#include <cmath>
#include <string>

#include "format.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/result_page.hpp"
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
      {"cursor", String(16)},
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
       {"omitted", count},
       {"next_cursor", Type("string")},
       {"total", count},
       {"half_life_days", number},
       {"min_samples", number},
       {"z", number},
       {"explore", Bool()},
       {"decay_from",
        Enum({"totals", "day_buckets"},
             "totals: exact per-outcome decay (configured half-life); day_buckets: another "
             "half-life, each day's outcomes weighted at their mean time.")}},
      {"ranking", "total", "half_life_days", "min_samples", "z", "explore", "decay_from",
       "omitted"});
}

}  // namespace

void RegisterRouteTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "feedback_route";
  spec.title = "Rank tools by track record";
  spec.description =
      "Before choosing between tools that do the same job: ranks them by track record "
      "(Wilson lower bound of the recency-weighted success rate); prefer the higher score.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = InputSchema();
    t.output_schema = OutputSchema();
  };
  spec.annotations.read_only = true;
  spec.annotations.idempotent = true;

  registrar.AddTool(std::move(spec), [&ctx](const Json& args, const sdk::CallContext& call) {
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

    const std::size_t offset = sdk::CursorOffset(args, "feedback_route");
    std::vector<RouteEntry> ranking = RankTools(ctx.host.Db(), p);
    const bool from_buckets = !ranking.empty() && ranking.front().from_buckets;
    const std::size_t total = ranking.size();
    sdk::ResultPage page(offset, static_cast<std::size_t>(limit), sdk::ResultRoom(call));

    Json entries = Json::array();
    std::string text;
    std::size_t rank = offset;
    for (std::size_t i = offset; i < ranking.size(); ++i) {
      const RouteEntry& e = ranking[i];
      if (page.Omitted() > 0) {
        page.Offer(0);  // past the page: counted only
        continue;
      }
      Json entry =
          {{"tool", e.tool},
           {"score", e.score},
           {"wilson_lower", e.wilson_lower},
           {"explore_bonus", e.explore_bonus},
           {"n_effective", e.n_effective},
           {"n", e.n},
           {"decayed_rate", e.decayed_rate ? Json(*e.decayed_rate) : Json(nullptr)},
           {"confident", e.confident},
           {"last_at", e.last_at_ms ? Json(sdk::FormatRfc3339(*e.last_at_ms)) : Json(nullptr)}};
      std::string line = std::to_string(rank + 1) + ". " + e.tool + " score " + FormatFixed(e.score, 3);
      if (e.n == 0) {
        line += " (no outcomes yet)\n";
      } else {
        line += " (decayed rate " + FormatPercent(e.decayed_rate.value_or(0)) + ", n_eff " +
                FormatFixed(e.n_effective, 1) + ", n " + std::to_string(e.n) +
                (e.confident ? ", confident" : ", not confident") + ")\n";
      }
      if (!page.Offer(sdk::RowBytes(entry, line))) continue;
      ++rank;
      entries.push_back(std::move(entry));
      text += line;
    }
    if (entries.empty()) {
      text = offset > 0 && !ranking.empty() ? "no more tools past this cursor\n"
                                            : "no outcomes recorded for this filter; nothing to rank\n";
    }
    if (const std::string more = page.MoreText("feedback_route"); !more.empty()) text += more + "\n";
    text.pop_back();
    Json out = {{"ranking", std::move(entries)},
                {"total", total},
                {"half_life_days", p.half_life_days},
                {"min_samples", p.min_samples},
                {"z", p.z},
                {"explore", explore},
                {"decay_from", from_buckets ? "day_buckets" : "totals"}};
    page.Describe(out);
    return sdk::ToolResult::Ok(text, std::move(out));
  });
}

}  // namespace kioku::affective
