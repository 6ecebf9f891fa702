// memory_reflect: recall memories for a query, ask the chat model for one observation that
// cites its sources by id, check every citation against what was recalled, and store the
// observation as a derived memory (source "derived", source_ref "reflect:<ids>").
#include <algorithm>

#include "kioku/sdk/args.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/text.hpp"
#include "model_tools.hpp"
#include "normalize.hpp"

namespace kioku::semantic {
namespace {

constexpr int kMaxSources = 16;  // 16 ids fit source_ref's 500 characters
constexpr int kMinSources = 2;
constexpr std::size_t kSourceTextBytes = 600;

sdk::ChatRequest BuildRequest(const std::string& query, const std::vector<RecalledMemory>& sources,
                              std::int64_t now) {
  sdk::ChatRequest r;
  r.schema_name = "observation";
  r.json_schema = CitingAnswerSchema("observation");
  r.messages.push_back(
      {"system",
       "You synthesize memories of a software project into one short observation (1-3 "
       "sentences) that answers the question. Use only the memories given; do not invent "
       "facts. List in \"cited\" the ids (exactly as written in brackets) of every memory the "
       "observation relies on. If the memories do not support an observation, answer "
       "{\"observation\": \"\", \"cited\": []}. Answer with the JSON object only."});
  std::string user = "Question: " + query + "\n\nMemories:\n";
  for (const RecalledMemory& rm : sources) {
    const Memory& m = rm.memory;
    user += "[" + m.id + "] (" + m.kind + ", " + FormatAge(now, m.captured_at) + " old) " +
            sdk::TruncateUtf8(sdk::CollapseWhitespace(m.text), kSourceTextBytes) + "\n";
  }
  r.messages.push_back({"user", user});
  return r;
}

// The observation's scope: global only when every source is global, so a project's
// memories never leak into a global observation.
Scope ScopeFor(const std::vector<const Memory*>& cited, const sdk::Caller& caller) {
  Scope s;
  for (const Memory* m : cited) {
    if (m->scope.kind != "global") {
      s.kind = "project";
      s.project_id = m->scope.project_id.empty() ? caller.project_id : m->scope.project_id;
      break;
    }
  }
  return s;
}

sdk::ToolResult Reflect(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  sdk::ChatModel& chat = RequireChatModel(ctx, "memory_reflect");
  Env env = ctx.MakeEnv();
  const std::string query = std::string(Trim(args.at("query").get<std::string>()));
  if (query.empty()) throw sdk::ToolError("query is empty; send what to reflect on");
  const int limit = args.value("limit", 8);
  const bool dry_run = args.value("dry_run", false);

  RecallRequest request;
  request.query = query;
  request.statuses = {"active", "pinned"};  // confirmed memories only: never reflect on guesses
  request.limit = limit + 4;                // room for derived ones, skipped below
  const sdk::VectorQuery vq = ctx.vectors->Query(env.db, query, static_cast<std::size_t>(
                                                               std::max(ctx.settings.recall.candidates_per_list, 2 * limit)));
  for (const sdk::VectorHit& h : vq.hits) request.vector_seqs.push_back(h.label);
  RecallOutcome found = Recall(env, request, ViewerOf(call.caller));
  std::vector<RecalledMemory> sources;
  for (RecalledMemory& rm : found.memories) {
    // Observations built on observations would drift from what was actually recorded.
    if (IsModelDerived(rm.memory)) continue;
    if (static_cast<int>(sources.size()) < limit) sources.push_back(std::move(rm));
  }
  if (static_cast<int>(sources.size()) < kMinSources) {
    throw sdk::ToolError("memory_reflect needs at least " + std::to_string(kMinSources) +
                         " confirmed memories matching \"" + Preview(query, 60) + "\", found " +
                         std::to_string(sources.size()) + "; broaden the query (nothing was written)");
  }

  const std::int64_t now = env.clock.NowMs();
  const Json answer = AskModelForJson(chat, BuildRequest(query, sources, now));
  const std::string observation = std::string(Trim(answer.at("observation").get<std::string>()));
  if (observation.empty()) {
    return sdk::ToolResult::Ok("the model found no observation these " + Plural(sources.size(), "memory", "memories") +
                                   " support; nothing was written",
                               Json{{"action", "none"}, {"observation", ""}, {"sources", Json::array()},
                                    {"considered", sources.size()}});
  }
  if (sdk::Utf8Length(observation) > static_cast<std::size_t>(kMaxTextChars)) {
    RejectAnswer("the observation is longer than " + std::to_string(kMaxTextChars) + " characters");
  }
  std::vector<std::string> ids;
  for (const RecalledMemory& rm : sources) ids.push_back(rm.memory.id);
  const Citations citations = ResolveCitations(answer.at("cited"), ids);
  std::vector<const Memory*> cited;
  for (std::size_t i : citations.found) cited.push_back(&sources[i].memory);
  std::vector<std::string> unknown;
  for (const std::string& u : citations.unknown) unknown.push_back(sdk::TruncateUtf8(u, 40));
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "" : ", ") + ("\"" + u + "\"");
    RejectAnswer("it cites " + Plural(unknown.size(), "id", "ids") +
                 (unknown.size() == 1 ? " that is" : " that are") + " not among the " +
                 std::to_string(sources.size()) + " recalled memories: " + list);
  }
  if (cited.empty()) RejectAnswer("the observation cites no source memory");
  try {
    sdk::ScreenText(observation, "observation");
  } catch (const sdk::ToolError& e) {
    RejectAnswer(e.what());
  }

  std::string refs;
  Json source_ids = Json::array();
  for (const Memory* m : cited) {
    refs += (refs.empty() ? "" : ",") + m->id;
    source_ids.push_back(m->id);
  }
  MemoryDraft draft;
  draft.text = observation;
  draft.kind = "observation";
  draft.source = "derived";
  draft.source_ref = std::string(kReflectSourcePrefix) + refs;
  draft.confidence = 0.6;
  draft.tags = {"reflection"};
  draft.scope = ScopeFor(cited, call.caller);
  Json out{{"observation", observation}, {"sources", source_ids}, {"considered", sources.size()},
           {"model", chat.Model()}, {"derived", true}};
  std::string sources_line;
  for (const Memory* m : cited) sources_line += "\n  " + m->id + " " + Preview(m->text, 80);
  if (dry_run) {
    out["action"] = "dry_run";
    return sdk::ToolResult::Ok("observation (derived, not stored: dry_run): " + observation + "\nsources:" + sources_line,
                               std::move(out));
  }
  WriteResult written;
  WithMemoryWriter(env, [&](MemoryWriter& w) { written = w.Remember(draft, AuthorOf(call.caller)); });
  out["id"] = written.id;
  out["action"] = written.action;
  return sdk::ToolResult::Ok("observation " + written.action + " (derived by " + chat.Model() + ", not ground truth; " +
                                 "verify before relying on it) " + written.id + ": " + observation +
                                 "\nsources:" + sources_line,
                             std::move(out));
}

}  // namespace

void RegisterReflectTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "memory_reflect";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Synthesize an observation";
  spec.description =
      "Recall confirmed memories for query and have the chat model (providers.chat) write one "
      "observation citing them; stored as a derived observation linked to its sources. "
      "dry_run: show it without storing.";
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = sdk::schema::Object(
        {{"query", sdk::schema::String(kMaxQueryChars, "What to reflect on.", 1)},
         {"limit", sdk::schema::Integer(kMinSources, kMaxSources, "Memories to consider (default 8).")},
         {"dry_run", sdk::schema::Bool("Do not store.")}},
        {"query"});
    t.output_schema = sdk::schema::Output({{"id", {{"type", "string"}}},
                                           {"action", {{"type", "string"}}},
                                           {"observation", {{"type", "string"}}},
                                           {"sources", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                                           {"considered", {{"type", "integer"}}},
                                           {"model", {{"type", "string"}}},
                                           {"derived", {{"type", "boolean"}}}},
                                          {"action", "observation", "sources"});
  };
  registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) { return Reflect(ctx, args, call); });
}

}  // namespace kioku::semantic
