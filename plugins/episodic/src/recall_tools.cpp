// session_recall and session_timeline.
#include <algorithm>
#include <cstdint>

#include "kioku/sdk/args.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/layer_vectors.hpp"
#include "kioku/sdk/text.hpp"
#include "recall.hpp"
#include "kioku/sdk/schema.hpp"
#include "store.hpp"
#include "timeline.hpp"
#include "tools.hpp"

namespace kioku::episodic {

namespace {

using sdk::Json;

constexpr std::size_t kVectorCandidates = 50;  // nearest summaries the vector list adds

// Summary text for the compact output: each line whitespace-collapsed, blank lines
// dropped, continuation lines indented under the header.
std::string Indented(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = sdk::CollapseWhitespace(std::string_view(text).substr(pos, nl - pos));
    if (!line.empty()) out += (out.empty() ? "" : "\n  ") + line;
    pos = nl + 1;
  }
  return out;
}

void AddRecall(sdk::Registrar& reg, ToolContext& env, sdk::LayerVectors& vectors) {
  sdk::ToolSpec spec;
  spec.name = "session_recall";
  spec.title = "Recall past sessions";
  spec.description =
      "What happened last time: past session summaries of this project, best match first "
      "(no query: most recent).";
  spec.input_schema =
      schema::Object({{"query", schema::String(1000, "words, identifiers, file names")},
                      {"since", schema::String(64, "RFC 3339")},
                      {"until", schema::String(64, "RFC 3339, exclusive")},
                      {"session_id", schema::String(128, "id or prefix", 1)},
                      {"agent_id", schema::String(200, "")},
                      {"project", schema::String(1000, "\"*\" = all projects")},
                      {"limit", schema::Integer(1, 100, "")},
                      {"token_budget", schema::Integer(50, 50'000, "")}});
  Json item = schema::Output({{"session_id", schema::Type("string")},
                              {"summary_id", schema::Nullable(schema::Type("string"))},
                              {"time", schema::Type("string")},
                              {"started_at", schema::Type("string")},
                              {"model", schema::Type("string")},
                              {"message_count", schema::Type("integer")},
                              {"summary", schema::Type("string")},
                              {"truncated", schema::Type("boolean")},
                              {"kind", schema::Type("string")},
                              {"highlights_by", schema::Type("string")},
                              {"score", schema::Type("number")}},
                             {"session_id", "time", "model", "message_count", "summary", "score"});
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.output_schema = schema::Output({{"summaries", {{"type", "array"}, {"items", item}}},
                                      {"omitted", schema::Type("integer")},
                                      {"matched", schema::Type("integer")},
                                      {"mode", schema::Type("string")}},
                                     {"summaries", "omitted"});
  };
  spec.annotations.read_only = true;
  spec.annotations.idempotent = true;
  reg.AddTool(spec, [&env, &vectors](const Json& args, const sdk::CallContext& ctx) {
    RecallQuery q;
    q.query = StrArg(args, "query");
    if (const auto unsearchable = sdk::UnsearchableQuery(q.query)) {
      throw sdk::ToolError(*unsearchable);
    }
    q.since = sdk::TimeArg(args, "since");
    q.until = sdk::TimeArg(args, "until");
    sdk::CheckTimeWindow(q.since, q.until);
    q.agent_id = StrArg(args, "agent_id");
    q.limit = args.value("limit", env.settings.recall_default_limit);
    auto& db = env.host.Db();
    if (args.contains("session_id")) {
      q.session_id = ResolveSessionId(db, args["session_id"].get<std::string>());
      q.project = std::nullopt;  // an explicit session is found wherever it belongs
    } else {
      q.project = ProjectScope(args, ctx.caller);
    }
    const auto budget = static_cast<std::size_t>(
        args.value("token_budget", env.settings.recall_token_budget));
    // Vector candidates (sdk/layer_vectors.hpp); any endpoint fault leaves recall text-only.
    sdk::VectorQuery vq;
    if (!q.query.empty()) {
      vq = vectors.Query(db, q.query, kVectorCandidates);
      for (const sdk::VectorHit& h : vq.hits) q.vector_rowids.push_back(h.label);
      q.vector_weight = vectors.Settings().weight;
    }
    RecallResult r = RunRecall(db, q);

    std::string text;
    Json out_items = Json::array();
    std::size_t used = 0;
    const std::size_t room = ctx.result_budget_bytes == 0 ? SIZE_MAX : ctx.result_budget_bytes * 7 / 8;
    std::size_t used_bytes = 256;
    for (const auto& it : r.items) {
      std::string head = "[" + sdk::FormatRfc3339(it.time) + "] session=" + it.session_id +
                         " model=" + (it.model.empty() ? "?" : it.model) +
                         " msgs=" + std::to_string(it.message_count);
      if (it.kind == "consolidated") {
        head += it.highlights_model.empty() ? " (consolidated)"
                                            : " (consolidated; highlights by " + it.highlights_model + ")";
      }
      std::string body = Indented(it.text);
      std::string shown = sdk::TruncateUtf8(body, env.settings.recall_summary_chars);
      std::size_t cost = sdk::EstimateTokens(head) + sdk::EstimateTokens(shown) + 1;
      if (used + cost > budget) {
        if (!out_items.empty()) break;
        // The best match always shows, cut to what the budget leaves.
        const std::size_t room_tokens = budget > sdk::EstimateTokens(head) + 1
                                            ? budget - sdk::EstimateTokens(head) - 1
                                            : 1;
        shown = sdk::TruncateUtf8(shown, room_tokens * 4);
        cost = budget;
      }
      // The summary goes out twice (text and structuredContent): the byte cap counts both.
      const std::size_t bytes = 2 * (head.size() + shown.size()) + 320;
      if (!out_items.empty() && used_bytes + bytes > room) break;
      used_bytes += bytes;
      used += cost;
      text += (text.empty() ? "" : "\n") + head + "\n  " + shown;
      out_items.push_back({{"session_id", it.session_id},
                           {"summary_id", it.summary_id.empty() ? Json(nullptr)
                                                                : Json(it.summary_id)},
                           {"time", sdk::FormatRfc3339(it.time)},
                           {"started_at", sdk::FormatRfc3339(it.started_at)},
                           {"model", it.model},
                           {"message_count", it.message_count},
                           {"summary", shown},
                           {"truncated", shown.size() < it.text.size()},
                           {"kind", it.kind},
                           {"score", it.score}});
      if (!it.highlights_model.empty()) out_items.back()["highlights_by"] = it.highlights_model;
    }
    const std::size_t omitted = r.matched > out_items.size() ? r.matched - out_items.size() : 0;
    if (out_items.empty()) {
      text = q.query.empty() || r.mode == "recency"
                 ? "No sessions recorded in this scope yet (project/time filters apply)."
                 : "No session matches '" + sdk::TruncateUtf8(q.query, 80) +
                       "'; try other words, drop since/until, or omit query for the latest";
    }
    if (omitted > 0) {
      text += "\n… " + std::to_string(omitted) +
              " more (raise limit/token_budget or narrow with query, since, until)";
    }
    Json out = {{"summaries", out_items}, {"omitted", omitted}, {"matched", r.matched}, {"mode", r.mode}};
    if (vq.status != "off") out["vectors"] = vq.status;
    if (!vq.note.empty()) text += "\n" + vq.note;
    return sdk::ToolResult::Ok(text, std::move(out));
  });
}

void AddTimeline(sdk::Registrar& reg, ToolContext& env) {
  sdk::ToolSpec spec;
  spec.name = "session_timeline";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Digest of a day or week";
  spec.description =
      "Summarizes a time window across sessions: which sessions ran, decisions logged, "
      "issues hit, open items and files touched. Default window: the last 7 days. Use it "
      "for stand-ups, weekly reviews or to pick up open items. since inclusive, until "
      "exclusive (RFC 3339; a date like 2026-05-19 means midnight UTC).";
  Json list = {{"type", "array"}};
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema =
        schema::Object({{"since", schema::String(64, "RFC 3339 start (inclusive); default: until - 7 days.")},
                        {"until", schema::String(64, "RFC 3339 end (exclusive); default: now.")},
                        {"project", schema::String(1000, "Project id; default: this project; \"*\" = all.")},
                        {"agent_id", schema::String(200, "Only sessions of this agent.")}});
    t.output_schema =
        schema::Output({{"since", schema::Type("string")},
                        {"until", schema::Type("string")},
                        {"sessions", list},
                        {"decisions", list},
                        {"issues", list},
                        {"open_items", list},
                        {"files", list},
                        {"omitted", schema::Type("object")}},
                       {"since", "until", "sessions", "decisions", "issues", "open_items", "files", "omitted"});
  };
  spec.annotations.read_only = true;
  spec.annotations.idempotent = true;
  reg.AddTool(spec, [&env](const Json& args, const sdk::CallContext& ctx) {
    TimelineQuery q;
    const auto since = sdk::TimeArg(args, "since");
    const auto until = sdk::TimeArg(args, "until");
    sdk::CheckTimeWindow(since, until);
    q.until = until.value_or(since ? *since + 7 * sdk::kMsPerDay : env.host.GetClock().NowMs() + 1);
    q.since = since.value_or(q.until - 7 * sdk::kMsPerDay);
    q.project = ProjectScope(args, ctx.caller);
    q.agent_id = StrArg(args, "agent_id");
    // Under the host's result byte cap: fewer items per list until the digest fits (its
    // `omitted` counts then say how many more each list has).
    const std::size_t room = ctx.result_budget_bytes == 0 ? SIZE_MAX : ctx.result_budget_bytes * 7 / 8;
    Json digest;
    std::string text;
    for (int items = env.settings.timeline_max_items;; items = std::max(1, items / 2)) {
      q.max_items = items;
      digest = BuildTimeline(env.host.Db(), q);
      text = FormatTimeline(digest);
      if (items == 1 || text.size() + sdk::DumpJson(digest).size() <= room) break;
    }
    return sdk::ToolResult::Ok(std::move(text), std::move(digest));
  });
}

}  // namespace

void RegisterRecallTools(sdk::Registrar& registrar, ToolContext& env, sdk::LayerVectors& vectors) {
  AddRecall(registrar, env, vectors);
  AddTimeline(registrar, env);
}

}  // namespace kioku::episodic
