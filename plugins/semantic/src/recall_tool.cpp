#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/text.hpp"
#include "normalize.hpp"
#include "review_store.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

double Round4(double v) { return std::round(v * 10000.0) / 10000.0; }

Json RecallInputSchema() {
  return sdk::schema::Object({
      {"query", sdk::schema::String(kMaxQueryChars, "words, identifiers or paths")},
      {"kinds", {{"type", "array"}, {"items", sdk::schema::Enum(MemoryKinds(), "")}, {"maxItems", 8}}},
      {"tags", {{"type", "array"}, {"items", sdk::schema::String(64, "")}, {"maxItems", kMaxTags}}},
      {"subject", sdk::schema::String(200, "")},
      {"scope", sdk::schema::Enum({"global", "project", "path"}, "")},
      {"since", sdk::schema::String(64, "RFC 3339")},
      {"until", sdk::schema::String(64, "RFC 3339")},
      {"status", {{"type", "array"}, {"items", sdk::schema::Enum(MemoryStatuses(), "")}, {"maxItems", 5},
                  {"description", "default: all but superseded"}}},
      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
      {"as_of", sdk::schema::String(64, "RFC 3339: what was believed then")},
  });
}

Json RecallOutputSchema() {
  const Json num = {{"type", "number"}};
  const Json str = {{"type", "string"}};
  Json memory = {
      {"type", "object"},
      {"properties",
       {{"id", str}, {"kind", str}, {"text", str}, {"subject", str}, {"value", str},
        {"status", str}, {"trust", str}, {"score", num},
        {"score_parts", {{"type", "object"}}}, {"ranks", {{"type", "object"}}},
        {"captured_at", str}, {"updated_at", str}, {"age", str},
        {"tags", {{"type", "array"}, {"items", str}}}, {"importance", {{"type", "integer"}}},
        {"scope", str}, {"path", str}, {"recall_count", {{"type", "integer"}}},
        {"anchor", str}, {"anchor_verdict", str},
        {"rivals", {{"type", "array"}, {"items", str}, {"description", "ids it is contested with"}}}}},
      {"required", {"id", "kind", "text", "status", "trust", "score", "captured_at"}}};
  return sdk::schema::Output({{"memories", {{"type", "array"}, {"items", memory}}},
                       {"withheld", {{"type", "integer"}}},
                       {"omitted", {{"type", "integer"}}},
                       {"contradicted", {{"type", "array"}, {"items", str}}},
                       {"mode", sdk::schema::Enum({"text", "recency"}, "How candidates were found.")},
                       {"vectors", sdk::schema::Enum({"hybrid", "text-only", "degraded"},
                                              "Vector search: used, not comparable yet, or endpoint failing.")}},
                      {"memories", "withheld", "omitted"});
}

}  // namespace

RecallRequest ParseRecallArgs(const Json& args, const Settings& settings) {
  RecallRequest r;
  r.query = args.value("query", "");
  if (sdk::Utf8Length(r.query) > static_cast<std::size_t>(kMaxQueryChars)) {
    throw sdk::ToolError("query is longer than 2000 characters; send the key words only");
  }
  if (args.contains("kinds")) r.kinds = args.at("kinds").get<std::vector<std::string>>();
  if (args.contains("tags")) r.tags = ParseTags(args.at("tags"));
  if (args.contains("status")) r.statuses = args.at("status").get<std::vector<std::string>>();
  if (args.contains("subject")) r.subject = NormalizeSubject(args.at("subject").get<std::string>());
  r.scope = args.value("scope", "");
  r.since = sdk::TimeArg(args, "since");
  r.until = sdk::TimeArg(args, "until");
  if (r.since && r.until && *r.until <= *r.since) {
    throw sdk::ToolError("until must be later than since");
  }
  r.as_of = sdk::TimeArg(args, "as_of");
  r.limit = args.value("limit", settings.recall.default_limit);
  return r;
}

namespace {

// A contested memory's line and JSON name the memories it is contested with, so an agent
// knows which two to settle (memory_edit status "active" on one, or memory_forget).
std::string RivalsSuffix(const std::vector<RivalNote>& rivals) {
  std::string out;
  for (std::size_t i = 0; i < rivals.size(); ++i) {
    out += (i ? ", " : " · vs ") + rivals[i].id + (rivals[i].reason.empty() ? "" : " (" + rivals[i].reason + ")");
  }
  return out;
}

std::string MemoryLine(std::size_t n, const RecalledMemory& rm, std::int64_t now) {
  const Memory& m = rm.memory;
  std::string line = std::to_string(n) + ". [" + m.kind;
  if (rm.trust != "confirmed") line += "|" + rm.trust;
  if (rm.status == "pinned") line += "|pinned";
  line += "] " + sdk::CollapseWhitespace(m.text);
  if (!m.subject.empty()) line += " {" + m.subject + (m.value.empty() ? "" : "=" + m.value) + "}";
  if (!m.scope.path.empty()) line += " @" + m.scope.path;
  line += " · " + m.id + " · " + FormatAge(now, m.captured_at);
  if (!rm.anchor_verdict.empty()) line += " · anchor " + rm.anchor_verdict;
  return line;
}

Json RecalledJson(const RecalledMemory& rm, std::int64_t now) {
  const Memory& m = rm.memory;
  Json j = {{"id", m.id},
            {"kind", m.kind},
            {"text", m.text},
            {"status", rm.status},
            {"trust", rm.trust},
            {"score", Round4(rm.score.total * 1000.0)},
            {"score_parts",
             {{"rrf", Round4(rm.score.rrf)},
              {"decay", Round4(rm.score.decay)},
              {"importance", Round4(rm.score.importance)},
              {"strength", Round4(rm.score.strength)},
              {"trust", Round4(rm.score.trust)}}},
            {"ranks", rm.ranks},
            {"captured_at", sdk::FormatRfc3339(m.captured_at)},
            {"updated_at", sdk::FormatRfc3339(m.updated_at)},
            {"age", FormatAge(now, m.captured_at)},
            {"tags", m.tags},
            {"importance", m.importance},
            {"scope", m.scope.kind},
            {"recall_count", m.recall_count}};
  if (!m.subject.empty()) j["subject"] = m.subject;
  if (!m.value.empty()) j["value"] = m.value;
  if (!m.scope.path.empty()) j["path"] = m.scope.path;
  if (!m.anchor.empty()) {
    j["anchor"] = m.anchor;
    if (!rm.anchor_verdict.empty()) j["anchor_verdict"] = rm.anchor_verdict;
  }
  return j;
}

// For an answer with no memory: when this caller's project has never had a memory (its
// text is no key, keys.hpp) but the store has memories, says that memories are per project,
// so an agent or person in the wrong folder is not left with a bare "no memories match".
// Two index reads, only for an empty answer.
std::string OtherProjectsHint(const Env& env, const sdk::Caller& caller) {
  if (caller.project_id.empty()) return "";
  sdk::CachedStatement q = env.Stmt("SELECT EXISTS (SELECT 1 FROM semantic_keys WHERE text = ?), "
                                    "(SELECT max(seq) FROM semantic_memories) IS NOT NULL");
  q->bind(1, caller.project_id);
  if (!q->executeStep() || q->getColumn(0).getInt() != 0 || q->getColumn(1).getInt() == 0) return "";
  return " (project \"" + caller.project_id +
         "\" has no memories of its own; memories are per project: run kioku in the folder of the project they "
         "belong to, or `kioku call --project DIR`)";
}

}  // namespace

void RegisterRecallTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "memory_recall";
  spec.title = "Recall what is known";
  spec.description =
      "What is known about X: call before deciding what may be settled (tools, conventions, "
      "decisions, preferences). No query: the most relevant overall. Verify memories "
      "labelled unconfirmed or contested.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = RecallInputSchema();
    t.output_schema = RecallOutputSchema();
  };
  spec.annotations.read_only = true;
  registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) {
    Env env = ctx.MakeEnv();
    ctx.index_lag.QueueIfStale(env);  // a lag its dead writer left is scanned by recall
    RecallRequest request = ParseRecallArgs(args, ctx.settings);
    // Vector candidates (sdk/layer_vectors.hpp); any endpoint fault leaves recall text-only.
    sdk::VectorQuery vq;
    if (!Trim(request.query).empty()) {
      const auto k = static_cast<std::size_t>(std::max(ctx.settings.recall.candidates_per_list, 2 * request.limit));
      vq = ctx.vectors->Query(env.db, request.query, k);
      for (const sdk::VectorHit& h : vq.hits) request.vector_seqs.push_back(h.label);
    }
    const RecallOutcome outcome = Recall(env, request, ViewerOf(call.caller));
    const std::int64_t now = request.as_of.value_or(env.clock.NowMs());

    // Fit the answer into the token budget — the compact text and its structuredContent
    // copy both count — and under the host's byte cap; the footer says what was left out.
    const std::size_t budget = static_cast<std::size_t>(ctx.settings.recall.token_budget);
    const std::size_t byte_cap = call.result_budget_bytes == 0 ? SIZE_MAX : call.result_budget_bytes * 7 / 8;
    std::string body;
    Json memories = Json::array();
    std::vector<std::int64_t> shown;
    std::size_t used = 0;
    std::size_t used_bytes = 0;
    std::size_t contested_shown = 0;
    for (const RecalledMemory& rm : outcome.memories) {
      const Memory& m = rm.memory;
      const std::vector<RivalNote> rivals = m.status == "contested" ? OpenRivals(env, m.seq) : std::vector<RivalNote>{};
      const auto render = [&](const RecalledMemory& shown_rm, Json& j, std::string& line) {
        j = RecalledJson(shown_rm, now);
        line = MemoryLine(shown.size() + 1, shown_rm, now) + RivalsSuffix(rivals);
        if (rivals.empty()) return;
        j["rivals"] = Json::array();
        for (const RivalNote& r : rivals) j["rivals"].push_back(r.id);
      };
      Json j;
      std::string line;
      render(rm, j, line);
      std::string entry = sdk::DumpJson(j);
      std::size_t cost = sdk::EstimateTokens(line) + sdk::EstimateTokens(entry) + 1;
      std::size_t bytes = line.size() + entry.size() + 2;
      if (used + cost > budget || used_bytes + bytes > byte_cap) {
        if (!shown.empty()) break;
        // The best match always shows, its text cut to fit in both copies.
        const std::size_t overhead = bytes > 2 * m.text.size() ? bytes - 2 * m.text.size() : 0;
        const std::size_t avail = std::min(budget * 4, byte_cap);
        const std::size_t room = std::max<std::size_t>(avail > overhead ? (avail - overhead) / 2 : 0, 64);
        RecalledMemory cut = rm;
        cut.memory.text = sdk::TruncateUtf8(m.text, room);
        render(cut, j, line);
        entry = sdk::DumpJson(j);
        cost = sdk::EstimateTokens(line) + sdk::EstimateTokens(entry) + 1;
        bytes = line.size() + entry.size() + 2;
      }
      used += cost;
      used_bytes += bytes;
      body += line + "\n";
      shown.push_back(m.seq);
      if (m.status == "contested") ++contested_shown;
      memories.push_back(std::move(j));
    }
    const int omitted = static_cast<int>(outcome.memories.size() - shown.size());

    if (ctx.settings.recall.track_recalls && !shown.empty() && !request.as_of) {
      // Usage counters are bookkeeping: the host writes them in a batch off this thread,
      // so a recall never waits for (or fails on) another process's write lock.
      ctx.host.DeferWrite([&ctx, shown, at = env.clock.NowMs()](SQLite::Database& db) {
        MarkRecalled(db, ctx.statements, shown, at);
      });
    }

    std::string text;
    if (shown.empty()) {
      text = request.query.empty() ? "no memories match these filters"
                                   : "no memories match \"" + Preview(request.query, 80) + "\"";
      text += OtherProjectsHint(env, call.caller);
    } else {
      text = Plural(shown.size(), "memory", "memories") +
             (outcome.text_query ? "" : " (no query: by recency and importance)") +
             (request.as_of ? " as believed at " + sdk::FormatRfc3339(*request.as_of) : "") +
             ":\n" + body;
      if (text.back() == '\n') text.pop_back();
    }
    std::string footer;
    if (contested_shown > 0) {
      footer += Plural(contested_shown, "contested memory", "contested memories") +
                " above: confirm the right one with memory_edit status \"active\" or forget the wrong one "
                "(memory_forget), or `kioku review`";
    }
    if (outcome.withheld > 0) {
      if (!footer.empty()) footer += "; ";
      footer += Plural(static_cast<std::size_t>(outcome.withheld), "unconfirmed memory",
                       "unconfirmed memories") +
                " withheld (memory_recall status [\"pending\",\"contested\"] to review)";
    }
    if (!outcome.contradicted.empty()) {
      if (!footer.empty()) footer += "; ";
      footer += Plural(outcome.contradicted.size(), "memory", "memories") +
                " withheld because its anchor is contradicted (memory_get to review, "
                "memory_edit or memory_forget to resolve):";
      for (const std::string& id : outcome.contradicted) footer += " " + id;
    }
    if (outcome.unsearched_tokens > 0) {
      if (!footer.empty()) footer += "; ";
      const int searched = static_cast<int>(sdk::FtsQueryOptions{}.max_tokens);
      footer += "the query's words after the first " + std::to_string(searched) + " were not searched (" +
                std::to_string(outcome.unsearched_tokens) + (outcome.unsearched_tokens >= searched ? " or more" : "") +
                "): ask with fewer, rarer words";
    }
    if (omitted > 0) {
      if (!footer.empty()) footer += "; ";
      footer += std::to_string(omitted) + " more left out by the " +
                std::to_string(budget) + "-token budget (narrow the query, or filter by kinds, tags, since or subject, to see them)";
    }
    if (!vq.note.empty()) {
      if (!footer.empty()) footer += "; ";
      footer += vq.note;
    }
    if (!footer.empty()) text += "\n— " + footer;
    Json structured{{"memories", memories},
                    {"withheld", outcome.withheld},
                    {"omitted", omitted},
                    {"contradicted", outcome.contradicted},
                    {"mode", outcome.text_query ? "text" : "recency"}};
    if (vq.status != "off") structured["vectors"] = vq.status;
    return sdk::ToolResult::Ok(text, std::move(structured));
  });
}

}  // namespace kioku::semantic
