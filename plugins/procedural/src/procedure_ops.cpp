#include "procedure_ops.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/fusion.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/tool.hpp"
#include "procedure_store.hpp"

namespace kioku::procedural {
namespace {

// Words that carry no meaning in a task description ("how do I deploy the api"): matching
// them would score nearly every procedure. A short English list in the spirit of the SMART
// stop list (G. Salton, "The SMART Retrieval System", 1971); dropped only while another
// token remains.
constexpr std::array<std::string_view, 40> kStopWords = {
    "a",    "an",   "and",  "are",  "as",   "at",   "be",   "by",    "can",  "do",
    "does", "for",  "from", "how",  "i",    "in",   "is",   "it",    "me",   "my",
    "of",   "on",   "or",   "our",  "should", "so", "that", "the",   "this", "to",
    "we",   "what", "when", "where", "which", "who", "why", "with",  "you",  "your"};

std::vector<std::string> QueryTokens(const std::string& query) {
  auto tokens = sdk::FtsTokens(query);
  std::vector<std::string> kept;
  for (const auto& t : tokens) {
    if (std::find(kStopWords.begin(), kStopWords.end(), t) == kStopWords.end()) kept.push_back(t);
  }
  return kept.empty() ? tokens : kept;
}

bool SameContent(const Procedure& a, const Procedure& b) {
  if (a.when != b.when || a.tags != b.tags || a.steps.size() != b.steps.size()) return false;
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    if (a.steps[i].text != b.steps[i].text || a.steps[i].command != b.steps[i].command) return false;
  }
  return true;
}

}  // namespace

SaveResult SaveProcedure(SQLite::Database& db, Procedure p, const Actor& actor,
                         std::int64_t now_ms) {
  SaveResult result;
  sdk::WithWriteTransaction(db, [&] {
    result = SaveResult{};
    if (auto current = LoadCurrentProcedure(db, p.project_id, p.name);
        current && SameContent(*current, p)) {
      result.procedure = *current;
      result.unchanged = true;
      return;
    }
    Procedure next = p;
    next.id = sdk::NewId(now_ms);
    next.created_by = actor.agent_id;
    next.created_at_ms = now_ms;
    result.procedure = InsertProcedureVersion(db, std::move(next));
  });
  return result;
}

std::vector<RankedProcedure> FindProcedures(SQLite::Database& db, const std::string& project_id,
                                            const std::string& query, int limit,
                                            int candidates, const std::vector<std::int64_t>& vector_seqs,
                                            double vector_weight) {
  std::vector<RankedProcedure> out;
  const auto tokens = QueryTokens(query);
  if (tokens.empty() && vector_seqs.empty()) return out;
  auto join = [&](const char* op) {
    std::string match;
    for (const auto& t : tokens) match += (match.empty() ? "" : op) + sdk::QuoteFtsToken(t);
    return match;
  };
  // Procedures holding every word first: far fewer rows to score than OR when the words
  // are common. Only when those are not enough, the OR query adds partial matches.
  std::vector<std::int64_t> all;
  if (!tokens.empty()) all = SearchProcedures(db, project_id, join(" AND "), candidates);
  if (tokens.size() > 1 && static_cast<int>(all.size()) < limit) {
    for (auto seq : SearchProcedures(db, project_id, join(" OR "), candidates)) {
      if (std::find(all.begin(), all.end(), seq) == all.end()) all.push_back(seq);
    }
  }
  const auto text_hits = all;
  for (auto seq : vector_seqs) {
    if (std::find(all.begin(), all.end(), seq) == all.end()) all.push_back(seq);
  }
  auto loaded = LoadProceduresBySeq(db, all);
  // A vector hit may be an older version or another project's procedure.
  std::erase_if(loaded, [&](const auto& row) {
    return !row.second.current || (!row.second.project_id.empty() && row.second.project_id != project_id);
  });
  std::vector<std::pair<std::string, std::string>> keys;
  keys.reserve(loaded.size());
  for (const auto& [seq, p] : loaded) keys.emplace_back(p.project_id, p.name);
  const auto stats = LoadRunStatsMany(db, keys);
  std::unordered_map<std::string, std::size_t> by_id;  // seq as text → index in loaded
  for (std::size_t i = 0; i < loaded.size(); ++i) by_id.emplace(std::to_string(loaded[i].first), i);

  auto ids = [](const std::vector<std::int64_t>& seqs) {
    std::vector<std::string> v;
    v.reserve(seqs.size());
    for (auto s : seqs) v.push_back(std::to_string(s));
    return v;
  };
  // Name list: candidates whose name holds the most query tokens, text rank breaking ties.
  std::vector<std::pair<int, std::size_t>> named;  // (tokens in name, position in all)
  std::unordered_map<std::int64_t, std::size_t> index_of;
  for (std::size_t i = 0; i < loaded.size(); ++i) index_of.emplace(loaded[i].first, i);
  for (std::size_t pos = 0; pos < all.size(); ++pos) {
    const auto it = index_of.find(all[pos]);
    if (it == index_of.end()) continue;
    const auto name_tokens = sdk::FtsTokens(loaded[it->second].second.name);
    int hits = 0;
    for (const auto& t : tokens) hits += std::count(name_tokens.begin(), name_tokens.end(), t) > 0;
    if (hits > 0) named.emplace_back(-hits, pos);
  }
  std::stable_sort(named.begin(), named.end());
  std::vector<std::int64_t> name_hits;
  for (const auto& entry : named) name_hits.push_back(all[entry.second]);
  std::vector<std::size_t> proven;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    if (stats[i].successes * 2 > stats[i].runs) proven.push_back(i);
  }
  std::stable_sort(proven.begin(), proven.end(), [&](std::size_t a, std::size_t b) {
    return stats[a].Smoothed() > stats[b].Smoothed();
  });
  std::vector<std::string> success_ids;
  for (auto i : proven) success_ids.push_back(std::to_string(loaded[i].first));
  std::vector<std::int64_t> vector_hits;
  for (auto seq : vector_seqs) {
    if (index_of.contains(seq)) vector_hits.push_back(seq);
  }
  const auto fused = sdk::ReciprocalRankFusion({{ids(text_hits), 1.0, "bm25"},
                                                {ids(name_hits), 1.0, "name"},
                                                {ids(vector_hits), vector_weight, "vector"},
                                                {success_ids, 0.5, "success"}});
  for (const auto& item : fused) {
    if (static_cast<int>(out.size()) >= limit) break;
    const auto it = by_id.find(item.id);
    if (it == by_id.end()) continue;
    out.push_back({loaded[it->second].second, stats[it->second], item.score});
  }
  return out;
}

RunResult RecordRun(SQLite::Database& db, const std::string& name, std::optional<int> version,
                    bool success, const std::string& note, const Actor& actor,
                    std::int64_t now_ms) {
  RunResult result;
  sdk::WithWriteTransaction(db, [&] {
    result = RunResult{};
    const auto found = FindByName(db, actor.project_id, name);
    if (found.empty()) {
      throw sdk::ToolError("unknown procedure '" + name +
                           "': send a name from procedure_find; nothing was recorded");
    }
    Procedure p = found.front();
    if (version && *version != p.version) {
      auto v = LoadProcedureVersion(db, p.project_id, p.name, *version);
      if (!v) {
        throw sdk::ToolError("procedure '" + name + "' has no version " +
                             std::to_string(*version) + " (current is " +
                             std::to_string(p.version) + "); nothing was recorded");
      }
      p = *v;
    }
    Run run;
    run.procedure_id = p.id;
    run.scope = p.project_id;
    run.name = p.name;
    run.version = p.version;
    run.success = success;
    run.note = note;
    run.agent_id = actor.agent_id;
    run.run_project_id = actor.project_id;
    run.at_ms = now_ms;
    result.stats = InsertRun(db, run);
    result.procedure = p;
  });
  return result;
}

}  // namespace kioku::procedural
