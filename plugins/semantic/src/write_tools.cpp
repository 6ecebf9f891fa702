#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string_view>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/text.hpp"
#include "anchors.hpp"
#include "decay.hpp"
#include "review_store.hpp"
#include "normalize.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

// "fact, decision, …": the kinds, for messages that name what to send.
std::string KindList() {
  std::string kinds;
  for (const auto& k : MemoryKinds()) kinds += (kinds.empty() ? "" : ", ") + k;
  return kinds;
}

Json MemoryItemProperties() {
  return {
      {"text", sdk::schema::String(kMaxTextChars, "self-contained, makes sense without this chat", 1)},
      {"kind", sdk::schema::Enum(MemoryKinds(), "")},
      {"subject", sdk::schema::String(200, "key, e.g. \"package-manager\"; a new value supersedes the old")},
      {"value", sdk::schema::String(500, "e.g. \"pnpm\"")},
      {"tags", {{"type", "array"}, {"items", sdk::schema::String(64, "")}, {"maxItems", kMaxTags}}},
      {"importance", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}, {"description", "default 5"}}},
      {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
      {"scope", sdk::schema::Enum({"global", "project", "path"}, "default project")},
      {"path", sdk::schema::String(1024, "for scope path")},
      {"anchor", sdk::schema::String(500, "checked on recall: file-exists|file-absent <path>, file-contains|"
                                   "file-not-contains <path> <text>, git-branch-is <b>, valid-until <date>")},
      {"expires", sdk::schema::String(64, "RFC 3339")},
      {"source", sdk::schema::Enum({"user", "agent", "derived", "import"}, "")},
      {"source_ref", sdk::schema::String(500, "file, URL, commit")},
  };
}

// Ends every refusal of a batch item that does not say so itself: the batch is one write.
constexpr const char* kNothingInTheBatch = " (nothing in the batch was stored)";

// One property's checks, read once from its schema in MemoryItemProperties: what
// CheckBatchItem covers (type, maxLength/minLength, enum, minimum/maximum, maxItems and the
// items of an array).
struct FieldRule {
  std::string type;
  std::int64_t min_length = 0;
  std::int64_t max_length = INT64_MAX;
  std::vector<std::string> one_of;  // the enum, empty = any
  Json minimum, maximum;            // null = unbounded
  std::int64_t max_items = INT64_MAX;
  std::shared_ptr<const FieldRule> items;
};

FieldRule CompileRule(const Json& schema) {
  FieldRule r;
  r.type = schema.value("type", "");
  r.min_length = schema.value("minLength", std::int64_t{0});
  r.max_length = schema.value("maxLength", INT64_MAX);
  if (schema.contains("enum")) r.one_of = schema["enum"].get<std::vector<std::string>>();
  r.minimum = schema.value("minimum", Json());
  r.maximum = schema.value("maximum", Json());
  r.max_items = schema.value("maxItems", INT64_MAX);
  if (schema.contains("items")) r.items = std::make_shared<const FieldRule>(CompileRule(schema["items"]));
  return r;
}

const std::map<std::string, FieldRule, std::less<>>& ItemRules() {
  static const auto kRules = [] {
    std::map<std::string, FieldRule, std::less<>> out;
    const Json props = MemoryItemProperties();
    for (const auto& [name, schema] : props.items()) out.emplace(name, CompileRule(schema));
    return out;
  }();
  return kRules;
}

// A batch item is checked here against the same property schemas instead of repeating
// them in the tool's inputSchema (that copy doubled the schema every request carries).
// The rules are compiled once (ItemRules): read from the schema JSON per item, the checks
// cost ~5,000 instructions an item, 1.6% of a batch write.
void CheckBatchItem(const Json& item, std::size_t index) {
  const auto refuse = [&](const std::string& what) {
    throw sdk::ToolError("memories[" + std::to_string(index) + "]" + what + kNothingInTheBatch);
  };
  if (!item.is_object()) refuse(": send an object {text, kind, ...}");
  auto check = [&](std::string_view name, const Json& value, const FieldRule& rule) {
    const std::string field = "." + std::string(name);
    const bool ok = (rule.type == "string" && value.is_string()) || (rule.type == "integer" && value.is_number_integer()) ||
                    (rule.type == "number" && value.is_number()) || (rule.type == "array" && value.is_array());
    if (!ok) refuse(field + ": expected " + rule.type + ", got " + value.type_name());
    if (value.is_string()) {
      const std::string& text = value.get_ref<const std::string&>();
      const auto length = static_cast<std::int64_t>(sdk::Utf8Length(text));
      if (length > rule.max_length || length < rule.min_length) {
        refuse(field + ": length " + std::to_string(length) + " outside " + std::to_string(rule.min_length) + ".." +
               std::to_string(rule.max_length));
      }
      if (!rule.one_of.empty() && std::find(rule.one_of.begin(), rule.one_of.end(), text) == rule.one_of.end()) {
        refuse(field + ": send one of " + Json(rule.one_of).dump());
      }
    }
    if (value.is_number() && ((!rule.minimum.is_null() && value.get<double>() < rule.minimum.get<double>()) ||
                              (!rule.maximum.is_null() && value.get<double>() > rule.maximum.get<double>()))) {
      refuse(field + ": " + value.dump() + " is out of range " + rule.minimum.dump() + ".." + rule.maximum.dump());
    }
  };
  for (auto it = item.begin(); it != item.end(); ++it) {
    const auto rule = ItemRules().find(it.key());
    if (rule == ItemRules().end()) {
      std::string fields;
      for (const auto& [name, unused] : ItemRules()) fields += (fields.empty() ? "" : ", ") + name;
      refuse(": unknown field '" + sdk::TruncateUtf8(it.key(), 40) + "'; a memory's fields are " + fields);
    }
    const Json& value = it.value();
    check(it.key(), value, rule->second);
    if (value.is_array()) {
      if (static_cast<std::int64_t>(value.size()) > rule->second.max_items) {
        refuse("." + it.key() + ": at most " + std::to_string(rule->second.max_items) + " entries");
      }
      for (const Json& v : value) check(it.key() + "[]", v, *rule->second.items);
    }
  }
}

Json WriteInputSchema(const char* batch_description) {
  Json props = MemoryItemProperties();
  props["memories"] = {{"type", "array"},
                       {"items", {{"type", "object"}}},
                       {"minItems", 1},
                       {"maxItems", kMaxBatch},
                       {"description", batch_description}};
  // "text+kind or memories" is checked by the handler, whose message says what to send
  // (an anyOf here would fail with a generic schema message).
  return sdk::schema::Object(props);
}

Json WriteOutputSchema() {
  Json result = sdk::schema::Output(
      {
          {"id", {{"type", "string"}}},
          {"action", {{"type", "string"},
                      {"enum", {"remembered", "reaffirmed", "superseded", "known"}}}},
          {"status", {{"type", "string"}}},
          {"replaced", {{"type", "array"}, {"items", {{"type", "string"}}}}},
          {"conflicts", {{"type", "array"}, {"items", {{"type", "string"}}}}},
          {"rivals", {{"type", "array"}, {"items", {{"type", "string"}}}}},
      },
      {"id", "action", "status"});
  return sdk::schema::Output({{"results", {{"type", "array"}, {"items", result}}},
                       {"vectors", sdk::schema::Enum({"degraded"}, "Set when the embedding endpoint is failing.")}},
                      {"results"});
}

// One line per memory. `echo`: the memory's own text follows, cut to 80 characters. A batch
// leaves it out: its lines come in the order the memories were sent, each after the item's
// index ("[3] "), the caller has their texts, and a batch of 100 echoed would cost the
// caller ~6 KB of context for nothing.
std::string Describe(const WriteResult& r, const MemoryDraft& d, const std::vector<RivalNote>& notes, bool echo) {
  std::vector<RivalNote> rivals, suggestions;  // contests; older pending suggestions it contradicts
  for (const RivalNote& n : notes) (n.pending ? suggestions : rivals).push_back(n);
  std::string line;
  if (r.action == "known") {
    line = "already known as " + r.id + " (" + r.status + "); nothing stored";
  } else if (r.action == "reaffirmed") {
    line = "reaffirmed " + r.id;
  } else {
    line = r.action + " " + r.id + " [" + d.kind + (r.status != "active" ? "|" + r.status : "") + "]";
  }
  if (echo && r.action != "known") line += ": " + Preview(d.text, 80);
  if (!r.replaced.empty()) {
    line += " — replaced ";
    for (std::size_t i = 0; i < r.replaced.size(); ++i) line += (i ? ", " : "") + r.replaced[i];
    line += " (old value of " + d.subject + ")";
  }
  if (!r.conflicts.empty()) {
    line += " — conflicts with ";
    for (std::size_t i = 0; i < r.conflicts.size(); ++i) line += (i ? ", " : "") + r.conflicts[i];
    line += r.status == "contested" ? " (pinned; this one is contested until resolved)"
                                    : " (kept pending; confirm it with memory_edit status \"active\" or `kioku review --promote ID`)";
  }
  if (!rivals.empty()) {
    // No shared subject: a likely rival found by topic (rivals.hpp). Ask, do not decide.
    // One preview at most: a batch of similar memories must not blow the result cap.
    line += " — this may replace " + rivals[0].id + " \"" + Preview(rivals[0].text, 60) + "\" (" + rivals[0].reason + ")";
    for (std::size_t i = 1; i < rivals.size(); ++i) line += ", " + rivals[i].id;
    line += d.suggest ? "; listed in memory_review (`kioku review`)"
                      : "; both contested: set the same subject on both (each with its value), or confirm one with memory_edit status \"active\" (the other is "
                        "superseded) or `kioku review --promote ID`";
  }
  if (!suggestions.empty()) {
    // A pending suggestion contests nothing: this memory stays as it is, the pair waits in
    // review, and confirming the suggestion would supersede this one.
    line += " — contradicts pending suggestion " + suggestions[0].id + " \"" + Preview(suggestions[0].text, 60) + "\" (" +
            suggestions[0].reason + ")";
    for (std::size_t i = 1; i < suggestions.size(); ++i) line += ", " + suggestions[i].id;
    line += "; listed in review (`kioku review`)";
  }
  return line;
}

// Between two memories of a batch: a call cancelled meanwhile (the client's
// notifications/cancelled, or the server stopping) throws, and the batch's transaction rolls
// back whole, so a write that is not answered is not stored either, and a stop waits for at
// most one memory, not a batch of 100.
void StopIfCancelled(const sdk::CallContext& call) {
  if (call.Cancelled()) throw sdk::ToolError("cancelled before the write finished; nothing in it was stored");
}

sdk::ToolResult HandleWrite(ToolContext& ctx, const Json& args, const sdk::CallContext& call, bool suggest) {
  const sdk::Caller& caller = call.caller;
  Env env = ctx.MakeEnv();
  const std::int64_t now = env.clock.NowMs();
  const bool batch = args.contains("memories");
  if (batch && args.contains("text")) {
    throw sdk::ToolError("send either one memory (text, kind, …) or memories: [...], not both");
  }
  if (!batch && (!args.contains("text") || !args.contains("kind"))) {
    throw sdk::ToolError("send text and kind (one memory) or memories: [{text, kind, ...}] "
                         "(a batch of up to 100); kind is one of " + KindList());
  }
  std::vector<MemoryDraft> drafts;
  if (batch) {
    const Json& items = args.at("memories");
    for (std::size_t i = 0; i < items.size(); ++i) {
      CheckBatchItem(items[i], i);
      drafts.push_back(ParseDraft(items[i], caller, ctx.settings, now, suggest,
                                  "memories[" + std::to_string(i) + "]: "));
    }
  } else {
    drafts.push_back(ParseDraft(args, caller, ctx.settings, now, suggest, ""));
  }

  MaybeScheduleMaintenance(ctx);
  std::vector<WriteResult> results;
  std::vector<std::vector<RivalNote>> rivals;
  RivalScan scan;  // word counts, candidates' rows and profiles, once per batch
  WithMemoryWriter(env, [&](MemoryWriter& writer) {
    results.clear();
    rivals.clear();
    const Author author = AuthorOf(caller);
    scan = RivalScan{};
    scan.committed = MaxMemorySeq(env);
    scan.own_rows_above_committed = true;
    for (const MemoryDraft& d : drafts) {
      StopIfCancelled(call);
      results.push_back(writer.Remember(d, author));
    }
    writer.Finish();  // rival candidates come from the text index
    for (WriteResult& r : results) {
      StopIfCancelled(call);
      rivals.emplace_back();
      if (r.action != "remembered" && r.action != "superseded") continue;
      rivals.back() = DetectRivals(env, r.seq, author, &scan);
      if (AnyContest(rivals.back()) && !suggest) r.status = "contested";
    }
    SealScan(env, scan);
    // A memory superseded by a new subject/value may be one side of a rival pair: close the
    // pair and free the other side now, not at the next housekeeping. After SealScan: the
    // statuses it changes move the row epoch past the sealed one, so no memory this scan
    // read is kept with its old status (rival_cache.hpp).
    const bool superseded_any = std::any_of(results.begin(), results.end(),
                                            [](const WriteResult& r) { return !r.replaced.empty(); });
    if (superseded_any) ResolveGoneRivals(env, author.agent_id);
  });
  KeepScan(env, scan);
  // A memory of the batch that a later one superseded (a new value of its subject) is
  // answered as superseded, not with the status it was written with.
  std::set<std::string> superseded_later;
  for (const WriteResult& r : results) superseded_later.insert(r.replaced.begin(), r.replaced.end());
  for (WriteResult& r : results) {
    if (superseded_later.count(r.id) > 0) r.status = "superseded";
  }

  Json out = Json::array();
  std::string text;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const WriteResult& r = results[i];
    Json j = {{"id", r.id}, {"action", r.action}, {"status", r.status}};
    if (!r.replaced.empty()) j["replaced"] = r.replaced;
    if (!r.conflicts.empty()) j["conflicts"] = r.conflicts;
    Json ids = Json::array();
    for (const RivalNote& n : rivals[i]) {
      if (!n.pending) ids.push_back(n.id);  // contests; a pending suggestion contests nothing
    }
    if (!ids.empty()) j["rivals"] = std::move(ids);
    out.push_back(std::move(j));
    if (!text.empty()) text += "\n";
    if (batch) text += "[" + std::to_string(i) + "] ";  // the item's index in memories, as errors name it
    text += Describe(r, drafts[i], rivals[i], !batch);
  }
  if (suggest) text += "\n(stored pending: recall labels it unconfirmed until someone confirms it)";
  Json structured{{"results", out}};
  if (const std::string degraded = ctx.vectors->WriteNote(); !degraded.empty()) {
    text += "\n(" + degraded + ")";
    structured["vectors"] = "degraded";
  }
  return sdk::ToolResult::Ok(text, std::move(structured));
}

}  // namespace

MemoryDraft ParseDraft(const Json& item, const sdk::Caller& caller, const Settings& settings,
                       std::int64_t now_ms, bool suggest, const std::string& where) {
  bool screening = false;
  try {
    MemoryDraft d;
    d.suggest = suggest;
    if (!item.contains("text") || !item.contains("kind")) {
      throw sdk::ToolError(std::string("each memory needs text and kind; this one has no ") +
                           (item.contains("text") ? "kind (one of " + KindList() + ")" : "text"));
    }
    d.text = sdk::SanitizeUtf8(Trim(item.at("text").get<std::string>()));
    if (d.text.empty()) {
      throw sdk::ToolError("text is empty; send the memory as one or a few sentences");
    }
    if (sdk::Utf8Length(d.text) > static_cast<std::size_t>(kMaxTextChars)) {
      throw sdk::ToolError("text has " + std::to_string(sdk::Utf8Length(d.text)) +
                           " characters; the limit is 4000 — split it into several memories");
    }
    d.kind = item.at("kind").get<std::string>();
    if (std::find(MemoryKinds().begin(), MemoryKinds().end(), d.kind) == MemoryKinds().end()) {
      throw sdk::ToolError("unknown kind '" + sdk::TruncateUtf8(d.kind, 40) + "'; send one of " + KindList());
    }
    screening = true;
    sdk::ScreenSecrets(item);
    screening = false;
    if (item.contains("subject")) {
      d.subject = NormalizeSubject(item.at("subject").get<std::string>());
      if (d.subject.empty()) throw sdk::ToolError("subject is empty; send a key such as \"package-manager\" or omit it");
    }
    if (item.contains("value")) {
      d.value = std::string(Trim(item.at("value").get<std::string>()));
      if (d.subject.empty()) {
        throw sdk::ToolError("value needs a subject (the key it is the value of), e.g. "
                             "subject \"package-manager\", value \"pnpm\"");
      }
    }
    if (item.contains("tags")) d.tags = ParseTags(item.at("tags"));
    d.importance = item.value("importance", 5);
    d.confidence = item.value("confidence", 1.0);
    d.source = item.value("source", suggest ? "derived" : "agent");
    d.source_ref = item.value("source_ref", "");
    d.anchor = std::string(Trim(item.value("anchor", "")));
    if (const std::string bad = ValidateAnchor(d.anchor); !bad.empty()) throw sdk::ToolError(bad);
    if (const std::string bad = ConfineAnchor(d.anchor, caller.project_root); !bad.empty()) {
      throw sdk::ToolError(bad);
    }
    if (item.contains("expires")) d.expires_at = ParseExpires(item.at("expires"), now_ms);
    std::optional<std::string> path;
    if (item.contains("path")) path = item.at("path").get<std::string>();
    d.scope = ResolveWriteScope(item.value("scope", ""), path, caller, settings);
    return d;
  } catch (const sdk::ToolError& e) {
    if (where.empty()) throw;
    // The secret screen's refusal says already that nothing was stored.
    throw sdk::ToolError(where + e.what() + (screening ? "" : kNothingInTheBatch));
  }
}

void RegisterWriteTools(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec remember;
  remember.name = "memory_remember";
  remember.title = "Remember a fact, decision or preference";
  remember.description =
      "Keep what later sessions need: a decision, preference, correction, lesson or fact. "
      "Repeating reaffirms; subject/value makes a newer value supersede. Secrets are refused.";
  remember.schemas = [](sdk::ToolSpec& t) {
    t.input_schema = WriteInputSchema("batch instead of text/kind: items with the same fields");
    t.output_schema = WriteOutputSchema();
  };
  remember.annotations.read_only = false;
  remember.annotations.destructive = false;
  remember.annotations.idempotent = false;
  registrar.AddTool(remember, [&ctx](const Json& args, const sdk::CallContext& call) {
    return HandleWrite(ctx, args, call, false);
  });

  sdk::ToolSpec suggest;
  suggest.name = "memory_suggest";
  suggest.profile = sdk::ToolProfile::kFull;
  suggest.title = "Suggest a memory (unconfirmed)";
  suggest.description =
      "Like memory_remember, but for something you inferred rather than were told: it is "
      "stored pending, recall labels it unconfirmed, and it never replaces a confirmed value. "
      "A person (or memory_remember with the same text) confirms it later.";
  suggest.schemas = [](sdk::ToolSpec& t) {
    t.input_schema = WriteInputSchema("Up to 100 suggestions stored in one transaction.");
    t.output_schema = WriteOutputSchema();
  };
  registrar.AddTool(suggest, [&ctx](const Json& args, const sdk::CallContext& call) {
    return HandleWrite(ctx, args, call, true);
  });
}

}  // namespace kioku::semantic
