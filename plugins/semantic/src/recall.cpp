#include "recall.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <variant>

#include "entities.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/fusion.hpp"
#include "kioku/sdk/tool.hpp"
#include "normalize.hpp"

namespace kioku::semantic {
namespace {

using Bind = std::variant<std::int64_t, double, std::string>;

struct Sql {
  std::string text;
  std::vector<Bind> binds;
};

void BindAll(SQLite::Statement& q, const std::vector<Bind>& binds) {
  int i = 1;
  for (const Bind& b : binds) {
    std::visit([&](const auto& v) { q.bind(i, v); }, b);
    ++i;
  }
}

std::string Placeholders(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += i == 0 ? "?" : ",?";
  return s;
}

const std::vector<std::string>& LiveStatuses() {
  static const std::vector<std::string> s = {"active", "pinned", "pending", "contested"};
  return s;
}

// The light columns scoring needs; text and the rest are loaded for the winners only.
constexpr const char* kCandidateColumns =
    "m.seq, m.kind, m.importance, m.confidence, m.status, m.prior_status, m.superseded_at, "
    "m.updated_at, m.last_recalled_at, m.recall_count, m.reaffirm_count";

struct Candidate {
  Memory light;        // only the kCandidateColumns fields are set
  std::string status;  // status at as_of (or now)
};

Candidate ReadCandidate(SQLite::Statement& q, const std::optional<std::int64_t>& as_of) {
  Candidate c;
  Memory& m = c.light;
  m.seq = q.getColumn(0).getInt64();
  m.kind = q.getColumn(1).getString();
  m.importance = q.getColumn(2).getInt();
  m.confidence = q.getColumn(3).getDouble();
  m.status = q.getColumn(4).getString();
  m.prior_status = q.getColumn(5).getString();
  m.superseded_at = q.getColumn(6).isNull() ? 0 : q.getColumn(6).getInt64();
  m.updated_at = q.getColumn(7).getInt64();
  m.last_recalled_at = q.getColumn(8).isNull() ? 0 : q.getColumn(8).getInt64();
  m.recall_count = q.getColumn(9).getInt();
  m.reaffirm_count = q.getColumn(10).getInt();
  c.status = m.status;
  if (as_of && m.status == "superseded" && m.superseded_at > *as_of && !m.prior_status.empty()) {
    c.status = m.prior_status;
  }
  return c;
}

// WHERE fragment over alias m for the request's filters and the viewer's visibility.
Sql FilterSql(const RecallRequest& r, const Viewer& v, std::int64_t now) {
  Sql f;
  if (v.project_id.empty()) {
    f.text = "m.scope = 'global'";
  } else {
    f.text = "(m.scope = 'global' OR m.project_id = ?)";
    f.binds.emplace_back(v.project_id);
  }
  const std::vector<std::string>& statuses = r.statuses.empty() ? LiveStatuses() : r.statuses;
  if (r.as_of) {
    const std::int64_t t = *r.as_of;
    f.text += " AND m.captured_at <= ? AND (m.expires_at IS NULL OR m.expires_at > ?)";
    f.binds.emplace_back(t);
    f.binds.emplace_back(t);
    f.text +=
        " AND (CASE WHEN m.status = 'superseded' AND m.superseded_at > ? AND m.prior_status <> ''"
        " THEN m.prior_status ELSE m.status END) IN (" +
        Placeholders(statuses.size()) + ")";
    f.binds.emplace_back(t);
  } else {
    f.text += " AND (m.expires_at IS NULL OR m.expires_at > ?)";
    f.binds.emplace_back(now);
    f.text += " AND m.status IN (" + Placeholders(statuses.size()) + ")";
  }
  for (const std::string& s : statuses) f.binds.emplace_back(s);
  if (!r.kinds.empty()) {
    f.text += " AND m.kind IN (" + Placeholders(r.kinds.size()) + ")";
    for (const std::string& k : r.kinds) f.binds.emplace_back(k);
  }
  if (!r.subject.empty()) {
    f.text += " AND m.subject <> '' AND m.subject = ?";
    f.binds.emplace_back(r.subject);
  }
  if (!r.scope.empty()) {
    f.text += " AND m.scope = ?";
    f.binds.emplace_back(r.scope);
  }
  if (r.since != 0) {
    f.text += " AND m.captured_at >= ?";
    f.binds.emplace_back(r.since);
  }
  if (r.until != 0) {
    f.text += " AND m.captured_at < ?";
    f.binds.emplace_back(r.until);
  }
  for (const std::string& tag : r.tags) {
    f.text +=
        " AND EXISTS (SELECT 1 FROM semantic_memory_tags t WHERE t.tag = ? AND "
        "t.memory_seq = m.seq)";
    f.binds.emplace_back(tag);
  }
  return f;
}

struct ListResult {
  sdk::RankList list;
  std::vector<Candidate> rows;
};

ListResult RunList(SQLite::Database& db, const std::string& name, double weight,
                   const std::string& sql, const std::vector<Bind>& binds,
                   const std::optional<std::int64_t>& as_of) {
  ListResult out;
  out.list.name = name;
  out.list.weight = weight;
  SQLite::Statement q(db, sql);
  BindAll(q, binds);
  while (q.executeStep()) {
    Candidate c = ReadCandidate(q, as_of);
    out.list.ids.push_back(std::to_string(c.light.seq));
    out.rows.push_back(std::move(c));
  }
  return out;
}

// FTS list: MATCH on `table`, joined to the memories by rowid with the filters applied.
ListResult FtsList(const Env& env, const std::string& name, double weight,
                   const std::string& table, const std::string& rank_expr,
                   const std::string& match, const Sql& filter,
                   const std::optional<std::int64_t>& as_of) {
  const std::string sql = std::string("SELECT ") + kCandidateColumns + " FROM " + table +
                          " f JOIN semantic_memories m ON m.seq = f.rowid WHERE " + table +
                          " MATCH ? AND " + filter.text + " ORDER BY " + rank_expr +
                          " LIMIT " + std::to_string(env.settings.recall.candidates_per_list);
  std::vector<Bind> binds;
  binds.emplace_back(match);
  binds.insert(binds.end(), filter.binds.begin(), filter.binds.end());
  return RunList(env.db, name, weight, sql, binds, as_of);
}

// Word query for the BM25 list: every token quoted (sdk::FtsTokens/QuoteFtsToken, never raw
// MATCH), OR-joined, function words dropped unless nothing else is left ("what is it").
std::optional<std::string> WordQuery(std::string_view query) {
  const std::vector<std::string> tokens = sdk::FtsTokens(query);
  if (tokens.empty()) return std::nullopt;
  const bool all_stop = std::all_of(tokens.begin(), tokens.end(),
                                    [](const std::string& t) { return IsStopword(t); });
  std::string expr;
  for (const std::string& tok : tokens) {
    if (!all_stop && IsStopword(tok)) continue;
    if (!expr.empty()) expr += " OR ";
    expr += sdk::QuoteFtsToken(tok);
  }
  return expr;
}

// Query words worth a trigram match: >= 3 characters and not a function word.
std::optional<std::string> TrigramQuery(std::string_view query) {
  sdk::FtsQueryOptions opt;
  opt.min_token_chars = 3;
  std::string expr;
  for (const std::string& tok : sdk::FtsTokens(query, opt)) {
    if (IsStopword(tok)) continue;
    if (!expr.empty()) expr += " OR ";
    expr += sdk::QuoteFtsToken(tok);
  }
  if (expr.empty()) return std::nullopt;
  return expr;
}

// One phrase of adjacent bigrams per CJK run ("東京都" → "東京" + "京都"), which matches
// exactly the runs containing that substring; a lone character is a prefix query.
std::optional<std::string> CjkQuery(std::string_view query) {
  std::string expr;
  int runs = 0;
  for (const std::string& run : CjkRuns(query.substr(0, 4096))) {
    if (++runs > 16) break;
    const std::vector<std::string> grams = CjkBigrams(run);
    std::string phrase;
    if (grams.size() == 1 && grams.front() == run) {
      phrase = sdk::QuoteFtsToken(run) + "*";
    } else {
      for (const std::string& g : grams) {
        if (!phrase.empty()) phrase += " + ";
        phrase += sdk::QuoteFtsToken(g);
      }
    }
    if (!expr.empty()) expr += " OR ";
    expr += phrase;
  }
  if (expr.empty()) return std::nullopt;
  return expr;
}

// Entity seqs named by the query: extracted mentions plus plain words that happen to be
// entity names ("pnpm", "redis"), each an index probe on norm_name.
std::vector<std::int64_t> QueryEntities(SQLite::Database& db, std::string_view query) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const EntityMention& e : ExtractEntities(query, 16)) {
    if (seen.insert(e.norm).second) names.push_back(e.norm);
  }
  std::size_t pos = 0;
  while (pos < query.size() && names.size() < 24) {
    while (pos < query.size() && query[pos] == ' ') ++pos;
    std::size_t end = query.find(' ', pos);
    if (end == std::string_view::npos) end = query.size();
    std::string_view w = query.substr(pos, end - pos);
    const auto edge = [](char c) {
      return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               static_cast<unsigned char>(c) >= 0x80);
    };
    while (!w.empty() && edge(w.front())) w.remove_prefix(1);
    while (!w.empty() && edge(w.back())) w.remove_suffix(1);
    const std::string lower = NormalizeEntityName(w);
    if (lower.size() >= 3 && lower.size() <= 200 && !IsStopword(lower) &&
        seen.insert(lower).second) {
      names.push_back(lower);
    }
    pos = end;
  }
  if (names.empty()) return {};
  SQLite::Statement q(db, "SELECT seq FROM semantic_entities WHERE norm_name IN (" +
                              Placeholders(names.size()) + ") LIMIT 32");
  for (std::size_t i = 0; i < names.size(); ++i) q.bind(static_cast<int>(i + 1), names[i]);
  std::vector<std::int64_t> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getInt64());
  return out;
}

ListResult EntityList(const Env& env, const std::vector<std::int64_t>& entities,
                      const Sql& filter, const std::optional<std::int64_t>& as_of) {
  const int n = env.settings.recall.candidates_per_list;
  // Each entity contributes its newest links only, so a hub entity cannot make the
  // query walk thousands of rows.
  std::string cte;
  for (std::size_t i = 0; i < entities.size(); ++i) {
    if (i > 0) cte += " UNION ALL ";
    cte += "SELECT memory_seq FROM (SELECT memory_seq FROM semantic_memory_entities WHERE "
           "entity_seq = ? ORDER BY memory_seq DESC LIMIT " +
           std::to_string(n) + ")";
  }
  const std::string sql = "WITH hits(seq) AS (" + cte + ") SELECT " + kCandidateColumns +
                          ", COUNT(*) AS n FROM hits JOIN semantic_memories m ON m.seq = "
                          "hits.seq WHERE " +
                          filter.text + " GROUP BY m.seq ORDER BY n DESC, m.seq DESC LIMIT " +
                          std::to_string(n);
  std::vector<Bind> binds;
  for (std::int64_t e : entities) binds.emplace_back(e);
  binds.insert(binds.end(), filter.binds.begin(), filter.binds.end());
  return RunList(env.db, "entity", env.settings.weights.entity, sql, binds, as_of);
}

// The text a memory had at `as_of`: the snapshot saved by the first edit after it.
void RestoreTextAsOf(SQLite::Database& db, Memory& m, std::int64_t as_of) {
  if (m.updated_at <= as_of) return;
  SQLite::Statement q(db,
                      "SELECT snapshot FROM semantic_memory_history WHERE memory_id = ? AND "
                      "action IN ('edited','confirmed') AND at > ? AND snapshot IS NOT NULL "
                      "ORDER BY at, seq LIMIT 1");
  q.bind(1, m.id);
  q.bind(2, as_of);
  if (!q.executeStep()) return;
  const auto snap = nlohmann::json::parse(q.getColumn(0).getString(), nullptr, false);
  if (!snap.is_object()) return;
  m.text = snap.value("text", m.text);
  m.kind = snap.value("kind", m.kind);
  m.subject = snap.value("subject", std::string());
  m.value = snap.value("value", std::string());
  if (snap.contains("tags") && snap["tags"].is_array()) m.tags = snap["tags"].get<std::vector<std::string>>();
  m.importance = snap.value("importance", m.importance);
}

}  // namespace

bool IsStopword(const std::string& w) { return IsStopword(std::string_view(w)); }

bool IsStopword(std::string_view w) {
  static const std::set<std::string, std::less<>> kStop = {
      "a",     "about", "after", "all",   "also",  "am",    "an",    "and",   "any",   "are",
      "as",    "at",    "be",    "been",  "but",   "by",    "can",   "could", "did",   "do",
      "does",  "for",   "from",  "had",   "has",   "have",  "how",   "i",     "if",    "in",
      "into",  "is",    "it",    "its",   "just",  "me",    "my",    "no",    "not",   "of",
      "on",    "or",    "our",   "should", "so",   "than",  "that",  "the",   "their", "them",
      "then",  "there", "these", "they",  "this",  "to",    "us",    "was",   "we",    "were",
      "what",  "when",  "where", "which", "while", "who",   "why",   "will",  "with",  "would",
      "you",   "your",  "use",   "used",  "using", "again", "know",  "tell",  "get"};
  return kStop.count(w) > 0;
}

std::string TrustLabel(const std::string& status) {
  if (status == "active" || status == "pinned") return "confirmed";
  if (status == "pending") return "unconfirmed";
  return status;  // contested, superseded
}

RecallOutcome Recall(const Env& env, const RecallRequest& r, const Viewer& viewer) {
  const std::int64_t now = env.clock.NowMs();
  const std::int64_t score_time = r.as_of.value_or(now);
  const Sql filter = FilterSql(r, viewer, now);
  const ListWeights& w = env.settings.weights;
  const int n = env.settings.recall.candidates_per_list;
  RecallOutcome out;

  std::vector<ListResult> lists;
  const std::string_view query = Trim(r.query);
  if (!query.empty()) {
    const std::optional<std::string> words = WordQuery(query);
    if (!words) {
      throw sdk::ToolError(
          "query has no searchable words (only operators or punctuation); send words, "
          "identifiers or paths, or omit query to list by recency and importance");
    }
    out.text_query = true;
    // Column weights: a hit in subject/value/tags says more than one in running text.
    lists.push_back(FtsList(env, "bm25", w.bm25, "semantic_fts",
                            "bm25(semantic_fts, 1.0, 2.0, 2.0, 1.5)", *words, filter, r.as_of));
    if (const auto tri = TrigramQuery(query); tri && w.trigram > 0) {
      lists.push_back(FtsList(env, "trigram", w.trigram, "semantic_fts_trigram", "f.rank", *tri,
                              filter, r.as_of));
    }
    if (const auto cjk = CjkQuery(query); cjk && w.cjk > 0) {
      lists.push_back(
          FtsList(env, "cjk", w.cjk, "semantic_fts_cjk", "f.rank", *cjk, filter, r.as_of));
    }
    if (w.entity > 0) {
      const std::vector<std::int64_t> entities = QueryEntities(env.db, query);
      if (!entities.empty()) lists.push_back(EntityList(env, entities, filter, r.as_of));
    }
  } else {
    // No text: newest and most important first, straight from their indexes.
    const char* time_col = r.as_of ? "m.captured_at" : "m.updated_at";
    lists.push_back(RunList(env.db, "recency", w.recency,
                            std::string("SELECT ") + kCandidateColumns +
                                " FROM semantic_memories m WHERE " + filter.text + " ORDER BY " +
                                time_col + " DESC LIMIT " + std::to_string(n),
                            filter.binds, r.as_of));
    lists.push_back(RunList(env.db, "importance", w.importance,
                            std::string("SELECT ") + kCandidateColumns +
                                " FROM semantic_memories m WHERE " + filter.text +
                                " ORDER BY m.importance DESC, m.updated_at DESC LIMIT " +
                                std::to_string(n),
                            filter.binds, r.as_of));
  }

  std::unordered_map<std::int64_t, Candidate> by_seq;
  std::vector<sdk::RankList> rank_lists;
  for (ListResult& l : lists) {
    for (Candidate& c : l.rows) by_seq.emplace(c.light.seq, std::move(c));
    rank_lists.push_back(std::move(l.list));
  }
  out.candidates = static_cast<int>(by_seq.size());
  if (by_seq.empty()) return out;

  const std::vector<sdk::FusedItem> fused =
      sdk::ReciprocalRankFusion(rank_lists, env.settings.recall.rrf_k);
  struct Scored {
    const sdk::FusedItem* item;
    const Candidate* cand;
    ScoreParts parts;
  };
  std::vector<Scored> scored;
  scored.reserve(fused.size());
  for (const sdk::FusedItem& item : fused) {
    const auto it = by_seq.find(std::stoll(item.id));
    if (it == by_seq.end()) continue;
    scored.push_back({&item, &it->second,
                      ScoreMemory(it->second.light, it->second.status, item.score, score_time,
                                  env.settings.multipliers)});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.parts.total > b.parts.total;
  });

  const bool asked_unconfirmed =
      std::any_of(r.statuses.begin(), r.statuses.end(),
                  [](const std::string& s) { return s == "pending" || s == "contested"; });
  const RecallSettings& rs = env.settings.recall;
  int unconfirmed_shown = 0;
  std::vector<const Scored*> chosen;
  for (const Scored& s : scored) {
    if (static_cast<int>(chosen.size()) >= r.limit) break;
    const bool unconfirmed = s.cand->status == "pending" || s.cand->status == "contested";
    if (unconfirmed && !asked_unconfirmed) {
      if (!rs.show_unconfirmed || unconfirmed_shown >= rs.max_unconfirmed) {
        ++out.withheld;
        continue;
      }
      ++unconfirmed_shown;
    }
    chosen.push_back(&s);
  }

  for (const Scored* s : chosen) {
    std::optional<Memory> full = LoadMemoryBySeq(env.db, s->cand->light.seq);
    if (!full) continue;
    if (r.as_of) RestoreTextAsOf(env.db, *full, *r.as_of);
    RecalledMemory rm;
    rm.memory = std::move(*full);
    rm.status = s->cand->status;
    rm.trust = TrustLabel(rm.status);
    rm.score = s->parts;
    for (std::size_t i = 0; i < rank_lists.size(); ++i) {
      if (s->item->ranks[i] > 0) rm.ranks[rank_lists[i].name] = s->item->ranks[i];
    }
    out.memories.push_back(std::move(rm));
  }
  return out;
}

}  // namespace kioku::semantic
