#include "settings.hpp"

#include "kioku/sdk/layer_vectors.hpp"

namespace kioku::semantic {
namespace {

using Json = nlohmann::json;

Json Num(double min, double max, double def, const char* desc) {
  return {{"type", "number"}, {"minimum", min}, {"maximum", max}, {"default", def},
          {"description", desc}};
}
Json Int(int min, int max, int def, const char* desc) {
  return {{"type", "integer"}, {"minimum", min}, {"maximum", max}, {"default", def},
          {"description", desc}};
}
Json Bool(bool def, const char* desc) {
  return {{"type", "boolean"}, {"default", def}, {"description", desc}};
}
Json Object(Json properties) {
  return {{"type", "object"}, {"additionalProperties", false}, {"properties", std::move(properties)}};
}

template <class T>
void Read(const Json& obj, const char* key, T& out) {
  if (obj.is_object() && obj.contains(key) && !obj.at(key).is_null()) out = obj.at(key).get<T>();
}

}  // namespace

const std::vector<std::string>& MemoryKinds() {
  static const std::vector<std::string> kinds = {"fact",   "decision", "preference", "correction",
                                                 "lesson", "todo",     "event",      "observation"};
  return kinds;
}

const std::vector<std::string>& MemoryStatuses() {
  static const std::vector<std::string> statuses = {"pending", "active", "pinned", "contested",
                                                    "superseded"};
  return statuses;
}

Json SettingsSchema() {
  const MultiplierSettings defaults;
  Json half_life = Json::object();
  for (const auto& kind : MemoryKinds()) {
    half_life[kind] = Num(0.1, 36500, defaults.half_life_days.at(kind), "Half-life in days.");
  }
  Json trust = Json::object();
  for (const auto& status : MemoryStatuses()) {
    trust[status] = Num(0, 10, defaults.trust.at(status), "Trust multiplier.");
  }

  Json schema = Object({
      {"default_scope",
       {{"type", "string"},
        {"enum", {"project", "global"}},
        {"default", "project"},
        {"description", "Scope of memory_remember when the call names none."}}},
      {"recall",
       Object({
           {"default_limit", Int(1, 100, 10, "Results when the call gives no limit.")},
           {"token_budget", Int(50, 100000, 2000, "Estimated tokens the answer may use (text and structuredContent together).")},
           {"candidates_per_list", Int(10, 5000, 100, "Rows each rank list contributes (at least 2x limit).")},
           {"scan_limit", Int(20, 100000, 500, "Matches above which a term counts as common.")},
           {"rrf_k", Num(0.5, 1000, 5, "Reciprocal Rank Fusion constant k.")},
           {"show_unconfirmed", Bool(true, "Show pending/contested memories, labelled.")},
           {"max_unconfirmed", Int(0, 100, 3, "Labelled unconfirmed memories per answer.")},
           {"track_recalls", Bool(true, "Count recalls (memory strength).")},
           {"drop_filler", Bool(true, "Drop question filler words from the word list.")},
           {"expansions", Bool(true, "Use the curated coding-vocabulary expansions.")},
           {"feedback_docs", Int(0, 20, 3, "Top hits read for pseudo-relevance feedback (0 = off).")},
           {"feedback_terms", Int(0, 20, 2, "Feedback terms added to the query.")},
           {"neighbour_hits", Int(0, 100, 10, "Top hits whose session neighbours are candidates (0 = off).")},
           {"answer_hits", Int(0, 100, 20, "Top hits checked for the date/person a question asks for (0 = off).")},
           {"context_candidates", Bool(false, "Show memories found only by the feedback/neighbour lists.")},
       })},
      {"weights",
       Object({
           {"bm25", Num(0, 10, 1.0, "RRF weight of the word (BM25) list.")},
           {"trigram", Num(0, 10, 0.6, "RRF weight of the substring (trigram) list.")},
           {"cjk", Num(0, 10, 1.0, "RRF weight of the CJK bigram list.")},
           {"entity", Num(0, 10, 0.8, "RRF weight of the entity-match list.")},
           {"expansion", Num(0, 10, 0.5, "RRF weight of the curated-expansion list.")},
           {"feedback", Num(0, 10, 0.5, "RRF weight of the pseudo-relevance-feedback list.")},
           {"neighbour", Num(0, 10, 0.5, "RRF weight of the session-neighbour list.")},
           {"answer", Num(0, 10, 0.5, "RRF weight of the date/person answer-type list.")},
           {"recency", Num(0, 10, 1.0, "Empty query: weight of the newest-first list.")},
           {"importance", Num(0, 10, 0.5, "Empty query: weight of the importance list.")},
           {"useful", Num(0, 10, 0.4, "RRF weight of the marked-helpful (memory_used) list.")},
       })},
      {"housekeeping",
       Object({
           {"interval_minutes", Int(0, 525600, 360, "Minutes between background housekeeping passes; 0 = only memory_maintain.")},
           {"stale_below", Num(0, 1, 0.4, "Decayed confidence below which review lists a memory as stale.")},
           {"superseded_retention_days", Int(0, 36500, 0, "Days superseded memories are kept before deletion; 0 = forever.")},
       })},
      {"multipliers",
       Object({
           {"decay_exponent", Num(-5, -0.01, -0.5, "FSRS power-law exponent C.")},
           {"decay_floor", Num(0, 1, 0.5, "Share of the score that never decays.")},
           {"half_life_days", Object(half_life)},
           {"importance_weight", Num(0, 1, 0.3, "Importance multiplier strength.")},
           {"strength_weight", Num(0, 2, 0.15, "Recall-strength multiplier strength.")},
           {"trust", Object(trust)},
       })},
      {"graph",
       Object({
           {"single_valued",
            {{"type", "array"},
             {"items", {{"type", "string"}, {"maxLength", 64}}},
             {"maxItems", 200},
             {"default", GraphSettings().single_valued},
             {"description", "Relation types where a new assertion closes the old one."}}},
           {"max_relations", Int(1, 5000, 200, "Relations one entity_graph answer returns.")},
       })},
      // The SDK's vectors section (every layer with vectors has it) plus dedup on write.
      {"vectors",
       [] {
         Json v = sdk::VectorSettingsSchema("Memories");
         v["properties"]["dedup_threshold"] =
             Num(0.5, 1, 0.97, "Cosine at which a new memory reaffirms an older one; 1 = off.");
         return v;
       }()},
  });
  return schema;
}

Settings ParseSettings(const Json& section) {
  Settings s;
  if (!section.is_object()) return s;
  Read(section, "default_scope", s.default_scope);
  if (section.contains("recall")) {
    const Json& r = section.at("recall");
    Read(r, "default_limit", s.recall.default_limit);
    Read(r, "token_budget", s.recall.token_budget);
    Read(r, "candidates_per_list", s.recall.candidates_per_list);
    Read(r, "scan_limit", s.recall.scan_limit);
    Read(r, "rrf_k", s.recall.rrf_k);
    Read(r, "show_unconfirmed", s.recall.show_unconfirmed);
    Read(r, "max_unconfirmed", s.recall.max_unconfirmed);
    Read(r, "track_recalls", s.recall.track_recalls);
    Read(r, "drop_filler", s.recall.drop_filler);
    Read(r, "expansions", s.recall.expansions);
    Read(r, "feedback_docs", s.recall.feedback_docs);
    Read(r, "feedback_terms", s.recall.feedback_terms);
    Read(r, "neighbour_hits", s.recall.neighbour_hits);
    Read(r, "answer_hits", s.recall.answer_hits);
    Read(r, "context_candidates", s.recall.context_candidates);
  }
  if (section.contains("weights")) {
    const Json& w = section.at("weights");
    Read(w, "bm25", s.weights.bm25);
    Read(w, "trigram", s.weights.trigram);
    Read(w, "cjk", s.weights.cjk);
    Read(w, "entity", s.weights.entity);
    Read(w, "expansion", s.weights.expansion);
    Read(w, "feedback", s.weights.feedback);
    Read(w, "neighbour", s.weights.neighbour);
    Read(w, "answer", s.weights.answer);
    Read(w, "recency", s.weights.recency);
    Read(w, "importance", s.weights.importance);
    Read(w, "useful", s.weights.useful);
  }
  if (section.contains("housekeeping")) {
    const Json& h = section.at("housekeeping");
    Read(h, "interval_minutes", s.housekeeping.interval_minutes);
    Read(h, "stale_below", s.housekeeping.stale_below);
    Read(h, "superseded_retention_days", s.housekeeping.superseded_retention_days);
  }
  if (section.contains("multipliers")) {
    const Json& m = section.at("multipliers");
    Read(m, "decay_exponent", s.multipliers.decay_exponent);
    Read(m, "decay_floor", s.multipliers.decay_floor);
    Read(m, "importance_weight", s.multipliers.importance_weight);
    Read(m, "strength_weight", s.multipliers.strength_weight);
    if (m.contains("half_life_days")) {
      for (const auto& [kind, days] : m.at("half_life_days").items()) {
        s.multipliers.half_life_days[kind] = days.get<double>();
      }
    }
    if (m.contains("trust")) {
      for (const auto& [status, mult] : m.at("trust").items()) {
        s.multipliers.trust[status] = mult.get<double>();
      }
    }
  }
  if (section.contains("vectors")) {
    const Json& v = section.at("vectors");
    Read(v, "weight", s.vectors.weight);
    Read(v, "min_score", s.vectors.min_score);
    Read(v, "dedup_threshold", s.vectors.dedup_threshold);
    Read(v, "exact_below", s.vectors.exact_below);
    Read(v, "batch_size", s.vectors.batch_size);
    Read(v, "poll_ms", s.vectors.poll_ms);
    Read(v, "start_delay_ms", s.vectors.start_delay_ms);
  }
  if (section.contains("graph")) {
    const Json& g = section.at("graph");
    Read(g, "single_valued", s.graph.single_valued);
    Read(g, "max_relations", s.graph.max_relations);
  }
  return s;
}

}  // namespace kioku::semantic
