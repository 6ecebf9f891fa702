#include "recall.hpp"

#include <algorithm>
#include <iterator>
#include <bit>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "keys.hpp"
#include "anchors.hpp"
#include "index_lag.hpp"
#include "entities.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/fts_rank.hpp"
#include "kioku/sdk/fusion.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/tool.hpp"
#include "memory_store.hpp"
#include "model_tools.hpp"
#include "normalize.hpp"
#include "review_store.hpp"
#include "term_counts.hpp"
#include "query_terms.hpp"

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
    "m.updated_at, m.last_recalled_at, m.recall_count, m.reaffirm_count, m.anchor, m.own_id, "
    "m.session_key, m.captured_at, m.id_nonce";
constexpr int kCandidateColumnCount = 16;

struct Candidate {
  std::int64_t seq = 0;
  ScoreInput in;       // what the multipliers read
  std::string status;  // status at as_of (or now)
  std::string anchor;
  std::string id;
  std::int64_t session_key = 0;  // 0 = written outside a session (no neighbours); keys.hpp
};

Candidate ReadCandidate(SQLite::Statement& q, const std::optional<std::int64_t>& as_of) {
  Candidate c;
  c.seq = q.getColumn(0).getInt64();
  c.in.kind = q.getColumn(1).getString();
  c.in.importance = q.getColumn(2).getInt();
  c.in.confidence = q.getColumn(3).getDouble();
  c.status = q.getColumn(4).getString();
  if (as_of && c.status == "superseded") {
    const std::int64_t superseded_at = q.getColumn(6).isNull() ? 0 : q.getColumn(6).getInt64();
    const std::string prior = q.getColumn(5).getString();
    if (superseded_at > *as_of && !prior.empty()) c.status = prior;
  }
  c.in.updated_at = q.getColumn(7).getInt64();
  c.in.recall_count = q.getColumn(9).getInt();
  c.in.reaffirm_count = q.getColumn(10).getInt();
  c.anchor = q.getColumn(11).getString();
  if (!c.anchor.empty()) {
    c.id = MemoryId(q.getColumn(12).getString(), q.getColumn(14).getInt64(), q.getColumn(15).getInt64(), c.seq);
  }
  c.session_key = q.getColumn(13).getInt64();
  return c;
}

// WHERE fragment over alias m for the request's filters and the viewer's visibility.
Sql FilterSql(const RecallRequest& r, const Viewer& v, std::int64_t now) {
  Sql f;
  if (v.project_id.empty()) {
    f.text = "m.scope = 'global'";
  } else {
    f.text = "(m.scope = 'global' OR m.project_key = " + KeyOfSql("?") + ")";
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
  // Unset, not zero, means unbounded: 1970-01-01T00:00:00Z is a time like any other.
  if (r.since) {
    f.text += " AND m.captured_at >= ?";
    f.binds.emplace_back(*r.since);
  }
  if (r.until) {
    f.text += " AND m.captured_at < ?";
    f.binds.emplace_back(*r.until);
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
  std::vector<double> scores;         // the query's extra "score" column, when it has one
  std::vector<std::int64_t> phrases;  // its kioku_phrases column after that (-1 = NULL), when it has one
};

ListResult RunList(const Env& env, const std::string& name, double weight,
                   const std::string& sql, const std::vector<Bind>& binds,
                   const std::optional<std::int64_t>& as_of) {
  ListResult out;
  out.list.name = name;
  out.list.weight = weight;
  sdk::CachedStatement q = env.Stmt(sql);
  BindAll(*q, binds);
  const int score_col = q->getColumnCount() > kCandidateColumnCount ? kCandidateColumnCount : -1;
  const int phrases_col = q->getColumnCount() > kCandidateColumnCount + 1 ? kCandidateColumnCount + 1 : -1;
  while (q->executeStep()) {
    Candidate c = ReadCandidate(*q, as_of);
    if (score_col >= 0) out.scores.push_back(q->getColumn(score_col).getDouble());
    if (phrases_col >= 0) {
      const SQLite::Column mask = q->getColumn(phrases_col);
      out.phrases.push_back(mask.isNull() ? -1 : mask.getInt64());
    }
    out.list.ids.push_back(std::to_string(c.seq));
    out.rows.push_back(std::move(c));
  }
  return out;
}

// `more`'s rows after `to`'s (the same list's columns).
void Append(ListResult& to, ListResult&& more) {
  to.list.ids.insert(to.list.ids.end(), more.list.ids.begin(), more.list.ids.end());
  std::move(more.rows.begin(), more.rows.end(), std::back_inserter(to.rows));
  to.scores.insert(to.scores.end(), more.scores.begin(), more.scores.end());
  to.phrases.insert(to.phrases.end(), more.phrases.begin(), more.phrases.end());
}

std::string JoinOr(const std::vector<std::string>& terms) {
  std::string expr;
  for (const std::string& t : terms) expr += (expr.empty() ? "" : " OR ") + t;
  return expr;
}

// The word index's term counts one recall uses (term_counts.hpp), so the lists that share
// terms (bm25, expansion, feedback) count each term once: its own, then those kept across
// recalls while the index is unchanged. Inside a transaction the cache is not used: FTS5
// reads see pending rows that a rollback would take away without changing the generation.
class RecallTermCounts {
 public:
  explicit RecallTermCounts(const Env& env) {
    if (env.term_counts == nullptr || sdk::InTransaction(env.db)) return;
    shared_ = env.term_counts;
    // Row 10 is FTS5_STRUCTURE_ROWID (fts5_index.c): segments and write counter.
    sdk::CachedStatement q = env.Stmt("SELECT block FROM semantic_fts_data WHERE id = 10");
    if (q->executeStep()) {
      const SQLite::Column block = q->getColumn(0);
      generation_.assign(static_cast<const char*>(block.getBlob()), static_cast<std::size_t>(block.getBytes()));
    }
  }
  const TermCount* Find(const std::string& term) {
    if (const auto it = local_.find(term); it != local_.end()) return &it->second;
    if (shared_ == nullptr) return nullptr;
    const std::optional<TermCount> kept = shared_->Find(generation_, term);
    return kept ? &local_.emplace(term, *kept).first->second : nullptr;
  }
  void Put(const std::string& term, const TermCount& c) {
    local_[term] = c;
    if (shared_ != nullptr) shared_->Put(generation_, term, c);
  }

 private:
  TermCountCache* shared_ = nullptr;
  std::string generation_;
  TermCounts local_;
};

// How many rows of FTS `table` match `term`, counted up to `cap` (LIMIT inside the count,
// in rowid order, which FTS5 streams without sorting).
int CountMatches(const Env& env, const std::string& table, const std::string& term, int cap) {
  sdk::CachedStatement q = env.Stmt("SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE " + table +
                                    " MATCH ? LIMIT ?)");
  sdk::Bind(*q, term, cap);
  q->executeStep();
  return q->getColumn(0).getInt();
}

// The lowest rowid of a newest-first FTS5 read that grows until it holds enough rows.
// FTS5 streams a doclist in rowid order but reads it newest-first (ORDER BY rowid DESC) by
// loading and reversing whole doclists: 2.2 ms for 501 of 100,000 rows of a common term,
// 0.26 ms with a lower rowid bound. The window starts at 4× the rows wanted below the
// newest rowid and doubles until the read is full or covers every rowid, so the rows read
// are exactly those of the unbounded query.
struct NewestWindow {
  NewestWindow(std::int64_t max_rowid, int wanted)
      : top(max_rowid), size(std::max<std::int64_t>(64, 4 * static_cast<std::int64_t>(wanted))) {
    lowest = std::max<std::int64_t>(1, top - size + 1);
  }
  bool Whole() const { return lowest <= 1; }
  void Widen() {
    size *= 2;
    lowest = std::max<std::int64_t>(1, top - size + 1);
  }
  std::int64_t top;
  std::int64_t size;
  std::int64_t lowest = 1;
};

// RunList over `sql`, whose last placeholder is a lowest rowid ("AND f.rowid >= ? ORDER BY
// f.rowid DESC LIMIT want"), bound to a NewestWindow below `max_rowid` that widens until
// the read holds `want` rows or covers every rowid. `binds` are the placeholders before it.
ListResult RunNewestList(const Env& env, const std::string& name, double weight, const std::string& sql,
                         std::vector<Bind> binds, const std::optional<std::int64_t>& as_of, std::int64_t max_rowid,
                         int want) {
  binds.emplace_back(std::int64_t{0});
  for (NewestWindow w(max_rowid, want);; w.Widen()) {
    binds.back() = w.lowest;
    ListResult read = RunList(env, name, weight, sql, binds, as_of);
    if (static_cast<int>(read.rows.size()) >= want || w.Whole()) return read;
  }
}

// FTS list over `table` for the query `terms` (each one FTS5 expression: a quoted token or
// a bigram phrase), joined to the memories by rowid with the filters applied, ranked by
// BM25 with the column weights `weights` (", 1.0, 2.0" or "").
//
// Bounded work. Each term's matches are first counted up to `scan_limit` (CountMatches).
// Rare terms (count <= scan_limit) are ranked exactly by BM25, with the common terms
// still contributing to the score of those rows
// ("(rare…) AND (rare… OR common…)"). Only when that yields fewer than the list size do
// the common terms add candidates: their newest matches (read newest-first within a
// NewestWindow), BM25-scored and sorted in memory; a common term in more than half of the
// rows adds none while other terms found rows or can add them.
//
// Ranking goes through sdk kioku_bm25 with each phrase's document frequency supplied:
// bm25() itself counts a phrase's rows to get its IDF, O(rows) per query for a term in
// most rows. Rare terms pass their exact count; a common term passes an estimate from the
// density of its newest `scan_limit` matches over the rowid range they span, scaled to the
// whole range (FTS rowids are memory seqs, assigned in write order).
//
// `all_terms`, when given, is set to the rows in scope that hold every term whenever the
// rare-term query decides it: it ran and returned fewer than `n` rows, so every row in
// scope holding all the terms (each holds the rare ones) is among them, and kioku_phrases
// says which hold all. Otherwise it is left unset (the caller asks ExactMatches).
ListResult FtsList(const Env& env, const std::string& name, double weight,
                   const std::string& table, const std::string& weights,
                   const std::vector<std::string>& terms, const Sql& filter,
                   const std::optional<std::int64_t>& as_of,
                   int n, RecallTermCounts* memo = nullptr,
                   std::optional<std::set<std::int64_t>>* all_terms = nullptr) {
  const int scan = env.settings.recall.scan_limit;
  std::vector<std::string> rare, common;
  std::map<std::string, double> df_of;
  std::int64_t max_rowid = 0;
  {
    max_rowid = MaxMemorySeq(env);
    sdk::CachedStatement newest_q = env.Stmt("SELECT count(*), min(rowid) FROM (SELECT rowid FROM " + table +
                                           " WHERE " + table +
                                           " MATCH ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?)");
    for (const std::string& t : terms) {
      const TermCount* known = memo != nullptr ? memo->Find(t) : nullptr;
      if (known != nullptr && known->df >= 0) {
        df_of[t] = known->df;
        (known->count <= scan ? rare : common).push_back(t);
        continue;
      }
      const int count = known != nullptr ? known->count : CountMatches(env, table, t, scan + 1);
      if (count <= scan) {
        df_of[t] = count;
        rare.push_back(t);
      } else {
        double oldest = 1;
        for (NewestWindow w(max_rowid, scan + 1);; w.Widen()) {
          newest_q->reset();
          sdk::Bind(*newest_q, t, w.lowest, scan + 1);
          newest_q->executeStep();
          oldest = static_cast<double>(newest_q->getColumn(1).getInt64());
          if (newest_q->getColumn(0).getInt() > scan || w.Whole()) break;
        }
        const double span = std::max(1.0, static_cast<double>(max_rowid) - oldest + 1);
        df_of[t] = std::max<double>(count, count * static_cast<double>(max_rowid) / span);
        common.push_back(t);
      }
      if (memo != nullptr) memo->Put(t, TermCount{count, df_of[t]});
    }
    newest_q->reset();
  }
  const auto select = [&](std::size_t phrases, bool with_phrases = false) {
    std::string rank = "kioku_bm25(" + table + weights;
    for (std::size_t i = 0; i < phrases; ++i) rank += ", ?";
    rank += ") AS score";
    if (with_phrases) rank += ", kioku_phrases(" + table + ")";
    return std::string("SELECT ") + kCandidateColumns + ", " + rank + " FROM " + table +
           " f JOIN semantic_memories m ON m.seq = f.rowid WHERE " + table + " MATCH ? AND " +
           filter.text;
  };
  // Binds in placeholder order: each phrase's df (in the order the phrases appear in
  // `match`), the MATCH expression, then the filter's.
  const auto binds_for = [&](const std::vector<std::string>& phrases, const std::string& match) {
    std::vector<Bind> b;
    for (const std::string& p : phrases) b.emplace_back(df_of[p]);
    b.emplace_back(match);
    b.insert(b.end(), filter.binds.begin(), filter.binds.end());
    return b;
  };
  ListResult out;
  if (!rare.empty()) {
    std::string match = "(" + JoinOr(rare) + ")";
    std::vector<std::string> phrases = rare;
    if (!common.empty()) {
      match += " AND (" + JoinOr(terms) + ")";
      phrases.insert(phrases.end(), terms.begin(), terms.end());
    }
    // The terms are the last terms.size() phrases (all of them when none is common).
    const std::size_t first_term = phrases.size() - terms.size();
    const bool masked = all_terms != nullptr && phrases.size() <= static_cast<std::size_t>(sdk::kMaxMaskedPhrases);
    out = RunList(env, name, weight,
                  select(phrases.size(), masked) + " ORDER BY score LIMIT " + std::to_string(n),
                  binds_for(phrases, match), as_of);
    if (masked && static_cast<int>(out.rows.size()) < n) {
      std::int64_t want = 0;
      for (std::size_t i = first_term; i < phrases.size(); ++i) want |= std::int64_t{1} << i;
      std::set<std::int64_t> holding;
      for (std::size_t i = 0; i < out.rows.size(); ++i) {
        if (out.phrases[i] >= 0 && (out.phrases[i] & want) == want) holding.insert(out.rows[i].seq);
      }
      *all_terms = std::move(holding);
    }
  } else {
    out.list.name = name;
    out.list.weight = weight;
  }
  // A term in more than half of the rows is no evidence of relevance: its Robertson–Spärck
  // Jones weight log((N − n + 0.5) / (n + 0.5)) is negative (Robertson & Zaragoza 2009, "The
  // Probabilistic Relevance Framework: BM25 and Beyond", §3.2; bm25 adds 1 only to keep it
  // positive). Such terms still score the rows found, but propose rows of their own only
  // when no other term is in the index at all: "file77.ts" in a code store finds file77,
  // not every ".ts" row — and in a project without file77 (other projects have it) finds
  // nothing, instead of reading every ".ts" row of the store for none in scope.
  std::vector<std::string> fill;
  for (const std::string& t : common) {
    if (2 * df_of[t] <= static_cast<double>(max_rowid)) fill.push_back(t);
  }
  const bool rare_indexed = std::any_of(rare.begin(), rare.end(), [&](const std::string& t) { return df_of[t] > 0; });
  if (fill.empty() && out.rows.empty() && !rare_indexed) fill = common;
  if (static_cast<int>(out.rows.size()) < n && !fill.empty()) {
    const std::string sql = select(fill.size()) + " AND f.rowid >= ? ORDER BY f.rowid DESC LIMIT " +
                            std::to_string(n);
    ListResult newest = RunNewestList(env, name, weight, sql, binds_for(fill, JoinOr(fill)), as_of, max_rowid, n);
    std::vector<std::size_t> order(newest.rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return newest.scores[a] < newest.scores[b];  // bm25: lower is better
    });
    std::set<std::string> have(out.list.ids.begin(), out.list.ids.end());
    for (std::size_t i : order) {
      if (static_cast<int>(out.rows.size()) >= n) break;
      if (!have.insert(newest.list.ids[i]).second) continue;
      out.list.ids.push_back(newest.list.ids[i]);
      out.rows.push_back(std::move(newest.rows[i]));
    }
  }
  return out;
}

// The substring list over semantic_fts_trigram for `terms` (raw tokens of >= 3 characters).
// The index has no positions (detail=none, schema.cpp), so each term is searched as the AND
// of its trigrams (sdk::TrigramMatch), terms OR-ed, and a row stays when kioku_substrings
// finds a term in it whole. Ranked by how many terms the row holds, then the shorter text,
// then newest: BM25 over a row that holds the term's trigrams once each (a substring's
// usual case) differs between rows only by its length normalization. Bounded work: at most
// 4n of the newest rows holding a term are read (NewestWindow), as FtsList reads a common
// term.
ListResult SubstringList(const Env& env, double weight, const std::vector<std::string>& terms, const Sql& filter,
                         const std::optional<std::int64_t>& as_of, int n) {
  std::vector<std::string> needles;
  std::string match;
  for (const std::string& t : terms) {
    const std::optional<std::string> grams = sdk::TrigramMatch(t);
    if (!grams || needles.size() >= static_cast<std::size_t>(sdk::kMaxMaskedPhrases)) continue;
    needles.push_back(t);
    match += (match.empty() ? "(" : " OR (") + *grams + ")";
  }
  ListResult out;
  out.list.name = "trigram";
  out.list.weight = weight;
  if (needles.empty()) return out;
  const int cap = 4 * n;
  std::string args;
  for (std::size_t i = 0; i < needles.size(); ++i) args += ", ?";
  // The rows above the index's mark, which it does not hold yet (index_lag.hpp), are the
  // newest: scanned first, at most kMaxLagRows of them (NOT INDEXED: by rowid range, where a
  // filter's index, e.g. kind's, would walk every row of that kind).
  const std::int64_t mark = ReadMark(env, "substring");
  const std::string lagging_sql = "SELECT * FROM (SELECT " + std::string(kCandidateColumns) +
                                  ", length(m.text) AS score, kioku_trigram_substrings(m.text" + args +
                                  ") AS held FROM semantic_memories m NOT INDEXED WHERE m.seq > ? AND " + filter.text +
                                  ") WHERE held > 0 ORDER BY seq DESC LIMIT " + std::to_string(cap);
  std::vector<Bind> lagging_binds(needles.begin(), needles.end());
  lagging_binds.emplace_back(mark);
  lagging_binds.insert(lagging_binds.end(), filter.binds.begin(), filter.binds.end());
  ListResult read = RunList(env, "trigram", weight, lagging_sql, lagging_binds, as_of);
  const int want = cap - static_cast<int>(read.rows.size());
  if (want > 0) {
    // Rows holding a needle's trigrams but not the needle do not count to `want`, as the
    // lagging rows' scan counts only rows holding one: lagging or indexed, the list reads
    // the newest `cap` rows that hold a needle.
    const std::string sql = std::string("SELECT ") + kCandidateColumns +
                            ", length(m.text) AS score, kioku_substrings(semantic_fts_trigram" + args +
                            ") FROM semantic_fts_trigram f JOIN semantic_memories m ON m.seq = f.rowid WHERE "
                            "semantic_fts_trigram MATCH ? AND " + filter.text +
                            " AND kioku_substrings(semantic_fts_trigram" + args + ") > 0" +
                            " AND f.rowid <= ? AND f.rowid >= ? ORDER BY f.rowid DESC LIMIT " + std::to_string(want);
    std::vector<Bind> binds(needles.begin(), needles.end());
    binds.emplace_back(match);
    binds.insert(binds.end(), filter.binds.begin(), filter.binds.end());
    binds.insert(binds.end(), needles.begin(), needles.end());
    // Up to the mark read above: a catch-up that commits between the two reads (each its
    // own snapshot outside a transaction) must not bring the scanned rows twice.
    binds.emplace_back(mark);
    Append(read, RunNewestList(env, "trigram", weight, sql, std::move(binds), as_of,
                               std::min(MaxMemorySeq(env), mark), want));
  }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < read.rows.size(); ++i) {
    if (read.phrases[i] > 0) order.push_back(i);
  }
  const auto held = [&](std::size_t i) { return std::popcount(static_cast<std::uint64_t>(read.phrases[i])); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (held(a) != held(b)) return held(a) > held(b);
    return read.scores[a] < read.scores[b];  // rows are newest first, so ties stay newest first
  });
  for (std::size_t i : order) {
    if (static_cast<int>(out.rows.size()) >= n) break;
    out.list.ids.push_back(read.list.ids[i]);
    out.rows.push_back(std::move(read.rows[i]));
  }
  return out;
}

// Word terms for the BM25 list: every token quoted (sdk::FtsTokens/QuoteFtsToken, never raw
// MATCH), function words (and, when `drop_filler`, question filler: query_terms.hpp)
// dropped unless nothing else is left ("what is it").
std::vector<std::string> WordTerms(std::string_view query, bool drop_filler) {
  const std::vector<std::string> tokens = sdk::FtsTokens(query);
  const auto weak = [&](const std::string& t) {
    return IsStopword(t) || (drop_filler && IsQueryFiller(t));
  };
  const bool all_weak = std::all_of(tokens.begin(), tokens.end(), weak);
  std::vector<std::string> out;
  for (const std::string& tok : tokens) {
    if (!all_weak && weak(tok)) continue;
    out.push_back(sdk::QuoteFtsToken(tok));
  }
  return out;
}

std::vector<std::string> Quoted(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (const std::string& t : tokens) out.push_back(sdk::QuoteFtsToken(t));
  return out;
}

// Pseudo-relevance feedback (query_terms.hpp): expansion terms from the text of the word
// list's top `docs` rows (weight 1/rank), their document frequencies counted up to
// scan_limit like the query's own terms.
std::vector<std::string> FeedbackTerms(const Env& env, const ListResult& words,
                                       const std::vector<std::string>& query_tokens, RecallTermCounts& counts) {
  const RecallSettings& rs = env.settings.recall;
  const std::size_t docs_n = std::min<std::size_t>(rs.feedback_docs, words.rows.size());
  if (docs_n == 0 || rs.feedback_terms <= 0) return {};
  std::vector<FeedbackDoc> docs;
  {
    sdk::CachedStatement q = env.Stmt("SELECT text FROM semantic_memories WHERE seq = ?");
    for (std::size_t i = 0; i < docs_n; ++i) {
      q->reset();
      sdk::Bind(*q, words.rows[i].seq);
      if (q->executeStep()) docs.push_back({q->getColumn(0).getString(), 1.0 / (i + 1.0)});
    }
  }
  const std::vector<std::string> candidates = FeedbackCandidates(docs, query_tokens, 24);
  std::map<std::string, int> dfs;
  for (const std::string& t : candidates) {
    const std::string quoted = sdk::QuoteFtsToken(t);
    if (const TermCount* known = counts.Find(quoted)) {
      dfs[t] = known->count;
    } else {
      dfs[t] = CountMatches(env, "semantic_fts", quoted, rs.scan_limit + 1);
      counts.Put(quoted, TermCount{dfs[t], -1});
    }
  }
  const double n_docs = static_cast<double>(std::max<std::int64_t>(1, MaxMemorySeq(env)));
  return SelectFeedbackTerms(docs, candidates, dfs, n_docs,
                             static_cast<std::size_t>(rs.feedback_terms));
}

// Entity and date matching: when the question asks for a date or a person
// (QueryAnswerType), the word list's top rows whose text holds one, in word-list order.
ListResult AnswerList(const Env& env, const ListResult& words, AnswerType type) {
  ListResult out;
  out.list.name = "answer";
  out.list.weight = env.settings.weights.answer;
  const std::size_t take =
      std::min<std::size_t>(static_cast<std::size_t>(env.settings.recall.answer_hits), words.rows.size());
  sdk::CachedStatement q = env.Stmt("SELECT text FROM semantic_memories WHERE seq = ?");
  for (std::size_t i = 0; i < take; ++i) {
    q->reset();
    sdk::Bind(*q, words.rows[i].seq);
    if (!q->executeStep()) continue;
    const std::string text = q->getColumn(0).getString();
    if (type == AnswerType::kDate ? HasDateExpression(text) : HasPersonName(text)) {
      out.list.ids.push_back(words.list.ids[i]);
      out.rows.push_back(words.rows[i]);
    }
  }
  return out;
}

// When the word list cannot tell (FtsList `all_terms` unset): the candidates that match
// every word of the query (an FTS5 AND of the word terms over the candidates' rowid
// range): only these may gain from usage (ranking.hpp, strength), so
// a frequently recalled partial match never outranks an exact one. One MATCH over a rowid
// range, intersected here: `rowid IN (…)` made SQLite run the whole FTS5 query once per
// candidate (~80 µs each, 57% of a recall at 1,000 memories).
std::set<std::int64_t> ExactMatches(const Env& env, const std::vector<std::string>& words,
                                    const std::vector<std::int64_t>& seqs) {
  std::set<std::int64_t> out;
  if (words.empty() || seqs.empty()) return out;
  std::string match;
  for (const std::string& t : words) match += (match.empty() ? "" : " AND ") + t;
  const auto [lo, hi] = std::minmax_element(seqs.begin(), seqs.end());
  const std::set<std::int64_t> wanted(seqs.begin(), seqs.end());
  sdk::CachedStatement q = env.Stmt(
      "SELECT rowid FROM semantic_fts WHERE semantic_fts MATCH ? AND rowid >= ? AND rowid <= ?");
  q->reset();
  sdk::Bind(*q, match, *lo, *hi);
  while (q->executeStep()) {
    const std::int64_t seq = q->getColumn(0).getInt64();
    if (wanted.count(seq)) out.insert(seq);
  }
  return out;
}

// A turn's neighbours as context: the memories written just before and just after each of
// the word list's top hits in the same session (a reply names what the question asked
// about: "Which OS?" → "Debian 12"), ranked by the hit's rank (the next memory first).
// Each probe is a primary-key range of at most 8 rows.
ListResult NeighbourList(const Env& env, const ListResult& words, const Sql& filter,
                         const std::optional<std::int64_t>& as_of, int n) {
  sdk::Json hits = sdk::Json::array();
  const int take = std::min<int>(env.settings.recall.neighbour_hits,
                                 static_cast<int>(words.rows.size()));
  for (int i = 0; i < take; ++i) {
    const Candidate& c = words.rows[static_cast<std::size_t>(i)];
    if (c.session_key != 0) hits.push_back({c.seq, c.session_key, i + 1});
  }
  ListResult out;
  out.list.name = "neighbour";
  out.list.weight = env.settings.weights.neighbour;
  if (hits.empty()) return out;
  const std::string sql =
      "WITH h(seq, sid, r) AS (SELECT json_extract(value, '$[0]'), json_extract(value, "
      "'$[1]'), json_extract(value, '$[2]') FROM json_each(?)), nb(seq, r) AS ("
      "SELECT (SELECT x.seq FROM semantic_memories x WHERE x.seq > h.seq AND x.seq <= h.seq + "
      "8 AND x.session_key = h.sid ORDER BY x.seq LIMIT 1), h.r FROM h UNION ALL "
      "SELECT (SELECT x.seq FROM semantic_memories x WHERE x.seq < h.seq AND x.seq >= h.seq - "
      "8 AND x.session_key = h.sid ORDER BY x.seq DESC LIMIT 1), h.r + 0.5 FROM h) "
      "SELECT " + std::string(kCandidateColumns) +
      ", MIN(nb.r) AS score FROM nb JOIN semantic_memories m ON m.seq = nb.seq WHERE " +
      filter.text + " GROUP BY m.seq ORDER BY score, m.seq LIMIT " + std::to_string(n);
  std::vector<Bind> binds;
  binds.emplace_back(hits.dump(-1, ' ', false, sdk::Json::error_handler_t::replace));
  binds.insert(binds.end(), filter.binds.begin(), filter.binds.end());
  ListResult got = RunList(env, out.list.name, out.list.weight, sql, binds, as_of);
  // A top hit is never its own context: drop rows the word list ranks above their source.
  std::set<std::int64_t> direct;
  for (int i = 0; i < take; ++i) direct.insert(words.rows[static_cast<std::size_t>(i)].seq);
  for (std::size_t i = 0; i < got.rows.size(); ++i) {
    if (direct.count(got.rows[i].seq)) continue;
    out.list.ids.push_back(got.list.ids[i]);
    out.rows.push_back(std::move(got.rows[i]));
  }
  return out;
}

// Terms for the trigram (substring) list: >= 3 characters, not a function word, and not
// found as a word by the word index (count 0 in the bm25 list's TermCounts): partial words ("thentic"), CJK
// substrings, fragments of identifiers. Words the word index already finds add no recall
// there but cost the most (common trigrams have the longest doclists), and on the golden
// set skipping them changed nothing (README "Ranking").
std::vector<std::string> TrigramTerms(std::string_view query, RecallTermCounts& word_counts) {
  sdk::FtsQueryOptions opt;
  opt.min_token_chars = 3;
  std::vector<std::string> out;
  for (const std::string& tok : sdk::FtsTokens(query, opt)) {
    if (IsStopword(tok)) continue;
    const TermCount* c = word_counts.Find(sdk::QuoteFtsToken(tok));
    if (c == nullptr || c->count == 0) out.push_back(tok);
  }
  return out;
}

// One phrase of adjacent bigrams per CJK run ("東京都" → "東京" + "京都"), which matches
// exactly the runs containing that substring; a lone character is a prefix query.
std::vector<std::string> CjkTerms(std::string_view query) {
  std::vector<std::string> out;
  for (const std::string& run : CjkRuns(query.substr(0, 4096))) {
    if (out.size() >= 16) break;
    const std::vector<std::string> grams = CjkBigrams(run);
    std::string phrase;
    if (grams.size() == 1 && grams.front() == run && run.size() <= 4) {
      phrase = sdk::QuoteFtsToken(run) + "*";
    } else {
      for (const std::string& g : grams) {
        if (!phrase.empty()) phrase += " + ";
        phrase += sdk::QuoteFtsToken(g);
      }
    }
    out.push_back(phrase);
  }
  return out;
}

// Entity seqs named by the query: extracted mentions plus plain words that happen to be
// entity names ("pnpm", "redis"), each an index probe on norm_name.
std::vector<std::int64_t> QueryEntities(const Env& env, std::string_view query) {
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
  sdk::CachedStatement q = env.Stmt("SELECT seq FROM semantic_entities WHERE norm_name IN (" +
                                  Placeholders(names.size()) + ") LIMIT 32");
  for (std::size_t i = 0; i < names.size(); ++i) q->bind(static_cast<int>(i + 1), names[i]);
  std::vector<std::int64_t> out;
  while (q->executeStep()) out.push_back(q->getColumn(0).getInt64());
  return out;
}

ListResult EntityList(const Env& env, const std::vector<std::int64_t>& entities,
                      const Sql& filter, const std::optional<std::int64_t>& as_of, int n) {
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
  return RunList(env, "entity", env.settings.weights.entity, sql, binds, as_of);
}

// The text a memory had at `as_of`: the snapshot saved by the first edit after it.
void RestoreTextAsOf(SQLite::Database& db, Memory& m, std::int64_t as_of) {
  if (m.updated_at <= as_of) return;
  SQLite::Statement q(db,
                      "SELECT snapshot FROM semantic_memory_history WHERE memory_id = ? AND "
                      "action IN ('edited','confirmed') AND at > ? AND snapshot IS NOT NULL "
                      "ORDER BY at, seq LIMIT 1");
  sdk::Bind(q, m.id, as_of);
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

// The vector hits that pass the request's filters, in the vector search's order.
ListResult VectorList(const Env& env, const std::vector<std::int64_t>& seqs, const Sql& filter,
                      const std::optional<std::int64_t>& as_of) {
  std::vector<Bind> binds;
  for (std::int64_t s : seqs) binds.emplace_back(s);
  binds.insert(binds.end(), filter.binds.begin(), filter.binds.end());
  ListResult found = RunList(env, "vector", env.settings.vectors.weight,
                             std::string("SELECT ") + kCandidateColumns + " FROM semantic_memories m WHERE m.seq IN (" +
                                 Placeholders(seqs.size()) + ") AND " + filter.text,
                             binds, as_of);
  std::unordered_map<std::int64_t, std::size_t> at;
  for (std::size_t i = 0; i < found.rows.size(); ++i) at.emplace(found.rows[i].seq, i);
  ListResult out;
  out.list.name = found.list.name;
  out.list.weight = found.list.weight;
  for (std::int64_t s : seqs) {
    const auto it = at.find(s);
    if (it == at.end()) continue;
    out.list.ids.push_back(std::to_string(s));
    out.rows.push_back(std::move(found.rows[it->second]));
    at.erase(it);
  }
  return out;
}

// Small English function words that carry no search signal.
constexpr std::string_view kStopwords[] = {
    "a",     "about", "after", "all",   "also",  "am",    "an",    "and",   "any",   "are",
    "as",    "at",    "be",    "been",  "but",   "by",    "can",   "could", "did",   "do",
    "does",  "for",   "from",  "had",   "has",   "have",  "how",   "i",     "if",    "in",
    "into",  "is",    "it",    "its",   "just",  "me",    "my",    "no",    "not",   "of",
    "on",    "or",    "our",   "should", "so",   "than",  "that",  "the",   "their", "them",
    "then",  "there", "these", "they",  "this",  "to",    "us",    "was",   "we",    "were",
    "what",  "when",  "where", "which", "while", "who",   "why",   "will",  "with",  "would",
    "you",   "your",  "use",   "used",  "using", "again", "know",  "tell",  "get"};

}  // namespace

std::span<const std::string_view> Stopwords() { return kStopwords; }

bool IsStopword(const std::string& w) { return IsStopword(std::string_view(w)); }

bool IsStopword(std::string_view w) {
  // Hashed: recall looks each of a query's words up here.
  static const std::unordered_set<std::string_view> kStop(std::begin(kStopwords), std::end(kStopwords));
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
  const RecallSettings& rs = env.settings.recall;
  // Each list contributes at least twice the answer size, so withheld and filtered rows
  // still leave enough candidates.
  const int n = std::max(env.settings.recall.candidates_per_list, 2 * r.limit);
  RecallOutcome out;

  std::vector<ListResult> lists;
  std::vector<std::string> words;  // the word list's terms; empty for an empty query
  std::optional<std::set<std::int64_t>> all_words;  // rows holding every word, when the word list knows
  const std::string_view query = Trim(r.query);
  if (const auto unsearchable = sdk::UnsearchableQuery(query)) throw sdk::ToolError(*unsearchable);
  if (!query.empty()) {
    words = WordTerms(query, rs.drop_filler);
    out.text_query = true;
    // Column weights: a hit in subject/value/tags says more than one in running text.
    // (A kioku_bm25 column-weight suffix: FtsList appends the phrase frequencies.)
    const std::string word_rank = ", 1.0, 2.0, 2.0, 1.5";
    RecallTermCounts word_counts(env);
    ListResult bm25 = FtsList(env, "bm25", w.bm25, "semantic_fts", word_rank, words, filter, r.as_of, n, &word_counts,
                              &all_words);
    const std::vector<std::string> trigram_terms = TrigramTerms(query, word_counts);
    // The searched tokens (the first max_tokens), read from one scan that also counts up to
    // as many again past them for the answer to report.
    sdk::FtsQueryOptions counting;
    const std::size_t searched = counting.max_tokens;
    counting.max_tokens = 2 * searched;
    std::vector<std::string> tokens = sdk::FtsTokens(query, counting);
    out.unsearched_tokens = tokens.size() > searched ? static_cast<int>(tokens.size() - searched) : 0;
    tokens.resize(std::min(tokens.size(), searched));
    // The lists whose rows may be shown, in fusion order after bm25 (and after the context
    // lists, which go between: feedback after expansion, neighbour after answer).
    std::optional<ListResult> expansion, answer;
    std::vector<ListResult> shown;
    if (rs.expansions && w.expansion > 0) {
      if (const auto extra = CuratedExpansions(tokens); !extra.empty()) {
        expansion = FtsList(env, "expansion", w.expansion, "semantic_fts", word_rank, Quoted(extra), filter,
                            r.as_of, n, &word_counts);
      }
    }
    if (const AnswerType type = QueryAnswerType(tokens);
        type != AnswerType::kAny && w.answer > 0 && rs.answer_hits > 0) {
      if (ListResult a = AnswerList(env, bm25, type); !a.rows.empty()) answer = std::move(a);
    }
    if (!trigram_terms.empty() && w.trigram > 0) {
      shown.push_back(SubstringList(env, w.trigram, trigram_terms, filter, r.as_of, n));
    }
    if (const auto cjk = CjkTerms(query); !cjk.empty() && w.cjk > 0) {
      shown.push_back(FtsList(env, "cjk", w.cjk, "semantic_fts_cjk", "", cjk, filter, r.as_of, n));
    }
    if (w.entity > 0) {
      const std::vector<std::int64_t> entities = QueryEntities(env, query);
      if (!entities.empty()) shown.push_back(EntityList(env, entities, filter, r.as_of, n));
    }
    if (!r.vector_seqs.empty() && env.settings.vectors.weight > 0) {
      shown.push_back(VectorList(env, r.vector_seqs, filter, r.as_of));
    }
    // The context lists (feedback, neighbour) only reorder what the other lists found unless
    // context_candidates is on, so with at most one such memory they are not built.
    std::set<std::int64_t> found;
    for (const ListResult* l : {&bm25, expansion ? &*expansion : nullptr, answer ? &*answer : nullptr}) {
      if (l != nullptr) for (const Candidate& c : l->rows) found.insert(c.seq);
    }
    for (const ListResult& l : shown) for (const Candidate& c : l.rows) found.insert(c.seq);
    const bool context = rs.context_candidates || found.size() > 1;
    std::optional<ListResult> feedback, neighbour;
    if (context && w.feedback > 0) {
      if (const auto extra = FeedbackTerms(env, bm25, tokens, word_counts); !extra.empty()) {
        std::vector<std::string> expanded = words;
        for (const std::string& t : Quoted(extra)) expanded.push_back(t);
        feedback = FtsList(env, "feedback", w.feedback, "semantic_fts", word_rank, expanded, filter, r.as_of, n,
                           &word_counts);
      }
    }
    if (context && w.neighbour > 0 && rs.neighbour_hits > 0) {
      if (ListResult nb = NeighbourList(env, bm25, filter, r.as_of, n); !nb.rows.empty()) neighbour = std::move(nb);
    }
    lists.push_back(std::move(bm25));
    for (std::optional<ListResult>* l : {&expansion, &feedback, &answer, &neighbour}) {
      if (*l) lists.push_back(std::move(**l));
    }
    for (ListResult& l : shown) lists.push_back(std::move(l));
  } else {
    // No text: newest and most important first, straight from their indexes.
    const char* time_col = r.as_of ? "m.captured_at" : "m.updated_at";
    lists.push_back(RunList(env, "recency", w.recency,
                            std::string("SELECT ") + kCandidateColumns +
                                " FROM semantic_memories m WHERE " + filter.text + " ORDER BY " +
                                time_col + " DESC LIMIT " + std::to_string(n),
                            filter.binds, r.as_of));
    lists.push_back(RunList(env, "importance", w.importance,
                            std::string("SELECT ") + kCandidateColumns +
                                " FROM semantic_memories m WHERE " + filter.text +
                                " ORDER BY m.importance DESC, m.updated_at DESC LIMIT " +
                                std::to_string(n),
                            filter.binds, r.as_of));
  }

  const auto is_context_list = [](const std::string& name) { return name == "feedback" || name == "neighbour"; };
  std::unordered_map<std::int64_t, Candidate> by_seq;
  std::vector<std::int64_t> showable;  // found by a list that is not only context
  std::vector<sdk::RankList> rank_lists;
  for (ListResult& l : lists) {
    const bool context_list = is_context_list(l.list.name);
    for (Candidate& c : l.rows) {
      if (!context_list) showable.push_back(c.seq);
      by_seq.emplace(c.seq, std::move(c));
    }
    rank_lists.push_back(std::move(l.list));
  }
  out.candidates = static_cast<int>(by_seq.size());
  if (by_seq.empty()) return out;
  if (out.text_query) {
    // Marked helpful (memory_used): a vote among what the other lists found, so a memory
    // that only a context list found is not shown for its votes alone.
    std::vector<std::int64_t> seqs;
    if (rs.context_candidates) {
      for (const auto& [seq, c] : by_seq) seqs.push_back(seq);
    } else {
      seqs = showable;
      std::sort(seqs.begin(), seqs.end());
      seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
    }
    if (sdk::RankList useful = UsefulnessList(env, seqs); !useful.ids.empty()) rank_lists.push_back(std::move(useful));
  }

  // Strength is 1 without uses whether or not every word matches: ask only about the
  // candidates that have been recalled or reaffirmed.
  std::set<std::int64_t> exact;
  if (all_words) {
    exact = std::move(*all_words);
  } else if (!words.empty()) {
    std::vector<std::int64_t> seqs;
    for (const auto& [seq, c] : by_seq) {
      if (c.in.recall_count + c.in.reaffirm_count > 0) seqs.push_back(seq);
    }
    exact = ExactMatches(env, words, seqs);
  }
  for (auto& [seq, c] : by_seq) c.in.usage_counts = words.empty() || exact.count(seq) > 0;

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
                      Score(it->second.in, it->second.status, item.score, score_time,
                            env.settings.multipliers)});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.parts.total > b.parts.total;
  });

  const bool asked_unconfirmed =
      std::any_of(r.statuses.begin(), r.statuses.end(),
                  [](const std::string& s) { return s == "pending" || s == "contested"; });
  int unconfirmed_shown = 0;
  std::vector<const Scored*> chosen;
  std::unordered_map<std::int64_t, std::string> verdicts;
  // Lists that only lend context (recall.context_candidates): a memory in none of the
  // others is not shown unless the setting allows it.
  std::vector<bool> context_list(rank_lists.size(), false);
  for (std::size_t i = 0; i < rank_lists.size(); ++i) context_list[i] = is_context_list(rank_lists[i].name);
  const auto context_only = [&](const sdk::FusedItem& item) {
    for (std::size_t i = 0; i < item.ranks.size(); ++i) {
      if (item.ranks[i] > 0 && !context_list[i]) return false;
    }
    return true;
  };
  const AnchorDeadline anchor_deadline = AnchorDeadline::ForOneRecall();
  for (const Scored& s : scored) {
    if (static_cast<int>(chosen.size()) >= r.limit) break;
    if (!rs.context_candidates && context_only(*s.item)) continue;
    // Anchors test the world as it is now, so only current recalls evaluate them.
    if (!s.cand->anchor.empty() && !r.as_of) {
      const std::string verdict = EvaluateAnchor(s.cand->anchor, viewer.project_root, now, anchor_deadline);
      if (verdict == "contradicted") {
        out.contradicted.push_back(s.cand->id);
        continue;
      }
      verdicts[s.cand->seq] = verdict;
    }
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

  // Full rows for the winners only, in one statement.
  std::unordered_map<std::int64_t, Memory> rows;
  if (!chosen.empty()) {
    sdk::CachedStatement q = env.Stmt(
        std::string("SELECT ") + MemoryColumns() +
                    " FROM semantic_memories m WHERE m.seq IN (" + Placeholders(chosen.size()) + ")");
    int i = 1;
    for (const Scored* s : chosen) q->bind(i++, s->cand->seq);
    while (q->executeStep()) {
      Memory m = ReadMemory(*q);
      const std::int64_t seq = m.seq;
      rows.emplace(seq, std::move(m));
    }
  }
  for (const Scored* s : chosen) {
    auto full = rows.find(s->cand->seq);
    if (full == rows.end()) continue;
    if (r.as_of) RestoreTextAsOf(env.db, full->second, *r.as_of);
    RecalledMemory rm;
    rm.memory = std::move(full->second);
    rm.status = s->cand->status;
    // A model's synthesis is never confirmed ground truth, whatever its status; one whose
    // sources are gone is outdated.
    rm.trust = TrustLabel(rm.status);
    if (IsModelDerived(rm.memory) && rm.trust == "confirmed") {
      rm.trust = CitesGoneMemory(env, rm.memory) ? "outdated" : "derived";
    }
    rm.score = s->parts;
    if (const auto v = verdicts.find(s->cand->seq); v != verdicts.end()) rm.anchor_verdict = v->second;
    for (std::size_t i = 0; i < rank_lists.size(); ++i) {
      if (s->item->ranks[i] > 0) rm.ranks[rank_lists[i].name] = s->item->ranks[i];
    }
    out.memories.push_back(std::move(rm));
  }
  return out;
}

}  // namespace kioku::semantic
