// entity_extract_deep: entities and relations of a memory or a given text, read by the chat
// model, checked item by item, then written to the bi-temporal graph (graph_store.hpp) in
// one transaction — or not at all.
#include <map>
#include <set>

#include "entities.hpp"
#include "graph_store.hpp"
#include "index_lag.hpp"
#include "import_store.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/args.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/text.hpp"
#include "model_tools.hpp"
#include "normalize.hpp"

namespace kioku::semantic {
namespace {

constexpr std::size_t kMaxItems = 40;
constexpr std::size_t kMaxNameChars = 200;
constexpr std::size_t kMaxInputChars = 8000;

const std::vector<std::string>& EntityTypes() {
  static const std::vector<std::string> kTypes = {"concept", "person",  "team",       "project", "service",
                                                  "package", "file",    "identifier", "url",     "flag",
                                                  "env",     "version", "tool"};
  return kTypes;
}

Json AnswerSchema() {
  const Json str = {{"type", "string"}};
  const Json entity = {{"type", "object"},
                       {"properties", {{"name", str}, {"type", {{"type", "string"}, {"enum", EntityTypes()}}}}},
                       {"required", {"name", "type"}},
                       {"additionalProperties", false}};
  const Json relation = {{"type", "object"},
                         {"properties", {{"from", str}, {"type", str}, {"to", str}}},
                         {"required", {"from", "type", "to"}},
                         {"additionalProperties", false}};
  return {{"type", "object"},
          {"properties",
           {{"entities", {{"type", "array"}, {"items", entity}}},
            {"relations", {{"type", "array"}, {"items", relation}}}}},
          {"required", {"entities", "relations"}},
          {"additionalProperties", false}};
}

sdk::ChatRequest BuildRequest(const std::string& text) {
  sdk::ChatRequest r;
  r.schema_name = "entity_graph";
  r.json_schema = AnswerSchema();
  std::string types;
  for (const std::string& t : EntityTypes()) types += (types.empty() ? "" : ", ") + t;
  r.messages.push_back(
      {"system",
       "Extract the named entities of a software project that the text states (services, "
       "packages, files, people, teams, tools, concepts) and the relations between them that "
       "the text states, such as uses, depends_on, owned_by, implements, replaces. Entity "
       "types: " + types + ". Relation types are snake_case verbs. Every relation's from and to "
       "must be names from your entities list. Do not guess; leave lists empty when nothing is "
       "stated. Answer with the JSON object only."});
  r.messages.push_back({"user", text});
  return r;
}

struct Checked {
  std::vector<std::pair<std::string, std::string>> entities;  // name, type
  struct Rel {
    std::string from, type, to;
  };
  std::vector<Rel> relations;
};

// Everything the schema cannot say, item by item; any problem rejects the whole answer.
Checked Check(const Json& answer) {
  std::vector<std::string> problems;
  Checked out;
  std::map<std::string, std::string> by_key;  // normalized name → name as given
  const Json& entities = answer.at("entities");
  const Json& relations = answer.at("relations");
  if (entities.size() > kMaxItems || relations.size() > kMaxItems) {
    RejectAnswer("more than " + std::to_string(kMaxItems) + " entities or relations; extract from a shorter text");
  }
  for (std::size_t i = 0; i < entities.size(); ++i) {
    const std::string name = std::string(Trim(entities[i].at("name").get<std::string>()));
    const std::string where = "entities[" + std::to_string(i) + "]";
    if (name.empty() || sdk::Utf8Length(name) > kMaxNameChars) {
      problems.push_back(where + ".name is empty or longer than " + std::to_string(kMaxNameChars) + " characters");
      continue;
    }
    const std::string key = NormalizeEntityName(name);
    if (key.empty()) {
      problems.push_back(where + ".name has no letters or digits");
      continue;
    }
    if (by_key.emplace(key, name).second) out.entities.emplace_back(name, entities[i].at("type").get<std::string>());
  }
  for (std::size_t i = 0; i < relations.size(); ++i) {
    const Json& r = relations[i];
    const std::string where = "relations[" + std::to_string(i) + "]";
    Checked::Rel rel;
    try {
      rel.type = NormalizeRelationType(r.at("type").get<std::string>());
    } catch (const sdk::ToolError& e) {
      problems.push_back(where + ".type: " + e.what());
      continue;
    }
    bool ok = true;
    for (const char* end : {"from", "to"}) {
      const auto it = by_key.find(NormalizeEntityName(r.at(end).get<std::string>()));
      if (it == by_key.end()) {
        problems.push_back(where + "." + end + " \"" + sdk::TruncateUtf8(r.at(end).get<std::string>(), 40) +
                           "\" is not in entities");
        ok = false;
      } else {
        (std::string(end) == "from" ? rel.from : rel.to) = it->second;
      }
    }
    if (ok && NormalizeEntityName(rel.from) == NormalizeEntityName(rel.to)) {
      problems.push_back(where + " relates \"" + sdk::TruncateUtf8(rel.from, 40) + "\" to itself");
      ok = false;
    }
    if (ok) out.relations.push_back(std::move(rel));
  }
  if (!problems.empty()) {
    std::string why;
    for (std::size_t i = 0; i < problems.size() && i < 3; ++i) why += (i ? "; " : "") + problems[i];
    if (problems.size() > 3) why += "; and " + std::to_string(problems.size() - 3) + " more";
    RejectAnswer(why);
  }
  try {
    sdk::ScreenSecrets(answer);
  } catch (const sdk::ToolError& e) {
    RejectAnswer(e.what());
  }
  return out;
}

sdk::ToolResult Extract(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const bool has_memory = args.contains("memory_id");
  const bool has_text = args.contains("text");
  if (has_memory == has_text) {
    throw sdk::ToolError("send either memory_id (a stored memory) or text (any text), exactly one of them");
  }
  sdk::ChatModel& chat = RequireChatModel(ctx, "entity_extract_deep");
  Env env = ctx.MakeEnv();
  std::optional<Memory> memory;
  std::string text;
  if (has_memory) {
    memory = ResolveMemory(env.db, args.at("memory_id").get<std::string>());
    text = memory->text;
  } else {
    text = std::string(Trim(args.at("text").get<std::string>()));
    if (text.empty()) throw sdk::ToolError("text is empty; send the text to read");
    sdk::ScreenText(text, "text");
  }
  const bool dry_run = args.value("dry_run", false);
  const Checked checked = Check(AskModelForJson(chat, BuildRequest(text)));

  const std::int64_t now = env.clock.NowMs();
  // A stored memory's facts held at least since it was captured.
  const std::int64_t valid_from = memory ? memory->captured_at : now;
  Json entities = Json::array();
  Json relations = Json::array();
  std::string lines;
  if (dry_run) {
    for (const auto& [name, type] : checked.entities) entities.push_back({{"name", name}, {"type", type}});
    for (const Checked::Rel& r : checked.relations) {
      relations.push_back({{"from", r.from}, {"type", r.type}, {"to", r.to}});
      lines += "\n  " + r.from + " -" + r.type + "-> " + r.to;
    }
  } else {
    sdk::WithWriteTransaction(env.db, [&] {
      entities = Json::array();
      relations = Json::array();
      lines.clear();
      std::map<std::string, Entity> stored;
      for (const auto& [name, type] : checked.entities) {
        // Same name, any type: the graph already knows it (entity_relate's rule for names).
        std::optional<Entity> e = FindEntity(env.db, name);
        const bool known = e.has_value();
        if (!e) e = EnsureNamedEntity(env, name, type, now);
        if (memory) LinkMemoryEntity(env, memory->seq, e->seq);
        stored.emplace(NormalizeEntityName(name), *e);
        entities.push_back({{"id", e->id}, {"name", e->name}, {"type", e->type}, {"action", known ? "known" : "created"}});
      }
      for (const Checked::Rel& r : checked.relations) {
        const Entity& from = stored.at(NormalizeEntityName(r.from));
        const Entity& to = stored.at(NormalizeEntityName(r.to));
        if (from.seq == to.seq) continue;  // two names of one entity
        const RelateOutcome o = Relate(env, from, r.type, to, valid_from, 0, call.caller.agent_id);
        relations.push_back({{"id", o.relation.id}, {"from", from.name}, {"type", r.type}, {"to", to.name},
                             {"action", o.already_known ? "already_known" : "related"}});
        lines += "\n  " + from.name + " -" + r.type + "-> " + to.name + (o.already_known ? " (already known)" : "");
      }
      SettleLaggingIndexes(env);  // the entity-name index (index_lag.hpp)
    });
  }
  std::string text_out = std::string(dry_run ? "would record " : "recorded ") +
                         Plural(entities.size(), "entity", "entities") + " and " +
                         Plural(relations.size(), "relation", "relations") + " read by " + chat.Model() +
                         (memory ? " from " + memory->id : std::string(" from the text")) +
                         (dry_run ? " (dry_run: nothing written)" : "") + ":";
  for (const Json& e : entities) text_out += "\n• " + e["name"].get<std::string>() + " (" + e["type"].get<std::string>() + ")";
  text_out += lines;
  Json out{{"entities", entities}, {"relations", relations}, {"model", chat.Model()}, {"dry_run", dry_run}};
  if (memory) out["memory_id"] = memory->id;
  return sdk::ToolResult::Ok(text_out, std::move(out));
}

}  // namespace

void RegisterExtractTool(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec spec;
  spec.name = "entity_extract_deep";
  spec.profile = sdk::ToolProfile::kFull;
  spec.title = "Extract entities and relations with the model";
  spec.description =
      "Have the chat model (providers.chat) read a memory (memory_id) or text and record the "
      "entities and relations it states in the entity graph; the answer is checked first and "
      "nothing is written if any item fails. dry_run: show only.";
  const Json str = {{"type", "string"}};
  spec.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = sdk::schema::Object(
        {{"memory_id", sdk::schema::IdPrefix("Memory to read.")},
         {"text", sdk::schema::String(static_cast<std::int64_t>(kMaxInputChars), "Text to read instead.")},
         {"dry_run", sdk::schema::Bool("Do not write.")}});
    t.output_schema = sdk::schema::Output({{"entities", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                           {"relations", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                           {"model", str},
                                           {"memory_id", str},
                                           {"dry_run", {{"type", "boolean"}}}},
                                          {"entities", "relations"});
  };
  registrar.AddTool(spec, [&ctx](const Json& args, const sdk::CallContext& call) { return Extract(ctx, args, call); });
}

}  // namespace kioku::semantic
