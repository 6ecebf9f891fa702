#include "recall.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <variant>

#include <SQLiteCpp/Statement.h>

#include "tool_support.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/fusion.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

namespace {

constexpr int kListDepth = 300;
// BM25 needs every matching row scored, and a word in a tenth of 10,000 summaries is a
// thousand rows joined, scored and sorted per list (27 ms per session_recall). Each list
// scores the newest kScoreWindow matches that pass the filters instead (FTS5 streams a
// MATCH in rowid order without sorting; rowids follow insertion, so newest sessions first):
// exact whenever a query matches fewer rows, and otherwise a recency cut, which suits
// "what happened last time". 500 as memory_recall's scan_limit; the cost of a list is
// linear in it (5.6 ms at 1,000, 3.2 ms at 500 for a 4-word query over 10,000 sessions).
constexpr int kScoreWindow = 500;
constexpr const char* kLogPrefix = "log:";

using Bind = std::variant<std::string, std::int64_t>;

struct Filter {
  std::string sql;
  std::vector<Bind> binds;
  void Add(const std::string& clause, std::vector<Bind> b) {
    sql += " AND " + clause;
    for (auto& x : b) binds.push_back(std::move(x));
  }
};

void BindAll(SQLite::Statement& st, const std::vector<Bind>& binds, int first = 1) {
  int i = first;
  for (const auto& b : binds) {
    if (std::holds_alternative<std::string>(b)) {
      st.bind(i++, std::get<std::string>(b));
    } else {
      st.bind(i++, static_cast<int64_t>(std::get<std::int64_t>(b)));
    }
  }
}

// Session-level filters (alias `se`).
Filter SessionFilter(const RecallQuery& q) {
  Filter f;
  if (!q.session_id.empty()) f.Add("se.id = ?", {q.session_id});
  if (q.project) {
    std::vector<Bind> keys(q.project->begin(), q.project->end());
    f.Add(ProjectClause(q.project->size()), keys);
  }
  return f;
}

// Summary filters (alias `s`, joined with `se`).
Filter SummaryFilter(const RecallQuery& q) {
  Filter f = SessionFilter(q);
  if (q.since) f.Add("s.ended_at >= ?", {*q.since});
  if (q.until) f.Add("s.started_at < ?", {*q.until});
  if (!q.agent_id.empty()) {
    f.Add("(s.agent_id = ? OR (s.agent_id = '' AND se.agent_id = ?))", {q.agent_id, q.agent_id});
  }
  return f;
}

// Sessions without an active summary, seen through their log (alias `se`).
Filter LogOnlyFilter(const RecallQuery& q) {
  Filter f = SessionFilter(q);
  f.Add("se.active_summaries = 0 AND se.log_entries > 0", {});  // index episodic_sessions_log_only
  if (q.since) f.Add("se.last_activity_at >= ?", {*q.since});
  if (q.until) f.Add("se.started_at < ?", {*q.until});
  if (!q.agent_id.empty()) f.Add("se.agent_id = ?", {q.agent_id});
  return f;
}

const char* kSummarySelect =
    "SELECT s.id, s.session_id, s.kind, s.ended_at, s.started_at, s.model, s.message_count, "
    "se.title, s.summary, s.highlights_model FROM episodic_summaries s JOIN episodic_sessions se ON se.id = "
    "s.session_id";

RecallItem ReadSummaryItem(SQLite::Statement& st) {
  RecallItem it;
  it.summary_id = st.getColumn(0).getString();
  it.session_id = st.getColumn(1).getString();
  it.kind = st.getColumn(2).getString();
  it.time = st.getColumn(3).getInt64();
  it.started_at = st.getColumn(4).getInt64();
  it.model = st.getColumn(5).getString();
  it.message_count = st.getColumn(6).getInt64();
  it.title = st.getColumn(7).getString();
  it.text = st.getColumn(8).getString();
  it.highlights_model = st.getColumn(9).getString();
  return it;
}

// A session known only by its log: title plus its latest entries (decisions/issues first).
RecallItem LogOnlyItem(SQLite::Database& db, const std::string& session_id) {
  RecallItem it;
  SQLite::Statement s(db,
                      "SELECT id, title, model, started_at, last_activity_at, message_count "
                      "FROM episodic_sessions WHERE id = ?");
  sdk::Bind(s, session_id);
  if (!s.executeStep()) return it;
  it.session_id = s.getColumn(0).getString();
  it.kind = "log";
  it.title = s.getColumn(1).getString();
  it.model = s.getColumn(2).getString();
  it.started_at = s.getColumn(3).getInt64();
  it.time = s.getColumn(4).getInt64();
  it.message_count = s.getColumn(5).getInt64();
  SQLite::Statement l(db,
                      "SELECT type, entry FROM episodic_log WHERE session_id = ? ORDER BY "
                      "CASE type WHEN 'decision' THEN 0 WHEN 'issue' THEN 1 ELSE 2 END, seq "
                      "DESC LIMIT 6");
  sdk::Bind(l, session_id);
  std::string text = it.title.empty() ? "(no summary yet)" : it.title + " (no summary yet)";
  std::int64_t entries = 0;
  while (l.executeStep()) {
    text += "\n" + l.getColumn(0).getString() + ": " + l.getColumn(1).getString();
    ++entries;
  }
  if (it.message_count == 0) it.message_count = entries;
  it.text = text;
  return it;
}

// Document frequencies of quoted FTS5 phrases in one FTS table, for kioku_bm25 (sdk
// fts_rank.hpp). bm25() gets a phrase's IDF by visiting every row it matches (fts5_aux.c,
// xQueryPhrase), once per list: a word in a tenth of 10,000 summaries is 1,000 rows per word
// per list, 0.4 of the 1.9 ms of the word list for a 4-word query. Here each phrase's
// matches are counted in rowid order up to kCountCap + 1, a bounded streaming read (FTS5
// reads newest-first by loading whole doclists, so the count reads oldest-first): exact for
// a phrase in at most kCountCap rows; for a commoner one, the density of its first
// kCountCap + 1 matches over the rowids they span, scaled to the rowids from its first
// match to the newest (rowids follow insertion, so a word that came into use late is not
// diluted by the rows before it). A density from n rows is off by about 1/√n (9 % at 129),
// which moves IDF = ln((N − df + 0.5)/(df + 0.5)) by about 0.09. Counts are kept per
// phrase, so the lists and the trigram rule that share a table count each phrase once.
class PhraseCounts {
 public:
  PhraseCounts(SQLite::Database& db, const std::string& fts_table, const std::string& content_table)
      : count_(db, "SELECT count(*), min(rowid), max(rowid) FROM (SELECT rowid FROM " + fts_table + " WHERE " +
                       fts_table + " MATCH ? LIMIT " + std::to_string(kCountCap + 1) + ")") {
    SQLite::Statement newest(db, "SELECT coalesce(max(rowid), 0) FROM " + content_table);
    newest.executeStep();
    newest_rowid_ = newest.getColumn(0).getInt64();
  }

  double Df(const std::string& phrase) {
    if (const auto it = df_.find(phrase); it != df_.end()) return it->second;
    count_.reset();
    sdk::Bind(count_, phrase);
    count_.executeStep();
    const auto count = static_cast<double>(count_.getColumn(0).getInt64());
    double df = count;
    if (count > kCountCap) {
      const std::int64_t first = count_.getColumn(1).getInt64();
      const auto span = static_cast<double>(count_.getColumn(2).getInt64() - first + 1);
      df = std::max(count, count * static_cast<double>(newest_rowid_ - first + 1) / span);
    }
    count_.reset();
    return df_[phrase] = df;
  }

 private:
  static constexpr int kCountCap = 128;
  SQLite::Statement count_;
  std::int64_t newest_rowid_ = 0;
  std::map<std::string, double> df_;
};

// A MATCH expression of quoted phrases OR-ed and the kioku_bm25 call that ranks it: the
// FTS table, its one column's weight, then each phrase's document frequency as a parameter,
// in the order the phrases appear in the expression (fts_rank.hpp).
struct RankedMatch {
  std::string match;
  std::string rank;
  std::vector<double> df;
};

RankedMatch Ranked(const std::string& fts_table, const std::vector<std::string>& phrases, PhraseCounts& counts) {
  RankedMatch m;
  m.rank = "kioku_bm25(" + fts_table + ", 1.0";
  for (const std::string& p : phrases) {
    m.match += (m.match.empty() ? "" : " OR ") + p;
    m.rank += ", ?";
    m.df.push_back(counts.Df(p));
  }
  m.rank += ")";
  return m;
}

std::vector<std::string> QuotedTokens(const std::string& query, const sdk::FtsQueryOptions& opts) {
  std::vector<std::string> out;
  for (const std::string& tok : sdk::FtsTokens(query, opts)) out.push_back(sdk::QuoteFtsToken(tok));
  return out;
}

// The trigram (substring) list's phrases: tokens of >= 3 characters that the word index
// does not hold as words (partial words "BookingOverlap", fragments of identifiers, CJK
// substrings); empty when there are none. Words the word index already finds add no recall
// there but cost the most (a common word's trigrams have the longest doclists: 9 of the
// 15 ms of a 10,000-session recall). The same rule as memory_recall's trigram list
// (plugins/semantic/src/recall.cpp, TrigramTerms).
std::vector<std::string> TrigramPhrases(const std::string& query, PhraseCounts& words) {
  sdk::FtsQueryOptions opts;
  opts.min_token_chars = 3;
  std::vector<std::string> out;
  for (std::string& quoted : QuotedTokens(query, opts)) {
    if (words.Df(quoted) == 0) out.push_back(std::move(quoted));
  }
  return out;
}

// Rowids of the active summaries in a window that has an `until`: the summary lists' MATCH
// then reads only that range (FTS5 bounds its doclist read by rowid) instead of passing over
// every newer match to drop it after the join (1.3 of the 2.5 ms of the word list for a
// three-day window ending halfway through 10,000 sessions; reading the range of its 4,300
// summaries costs 0.7 ms, linear in the summaries it reads). From the
// covering index episodic_summaries_start (schema v8) over the summaries starting in
// [since − longest span, until), the longest span from index episodic_summaries_span.
// nullopt (no bound) without `until`, or when fewer than kScoreWindow summaries start at or
// after it: then the newest-first read passes over fewer rows than the range would cost.
// An empty window gives {1, 0}, a range no rowid is in.
std::optional<std::pair<std::int64_t, std::int64_t>> WindowRowids(SQLite::Database& db, const RecallQuery& q) {
  if (!q.until) return std::nullopt;
  SQLite::Statement later(db,
                          "SELECT count(*) FROM (SELECT 1 FROM episodic_summaries WHERE status = 'active' AND "
                          "started_at >= ? LIMIT " + std::to_string(kScoreWindow) + ")");
  sdk::Bind(later, *q.until);
  later.executeStep();
  if (later.getColumn(0).getInt() < kScoreWindow) return std::nullopt;
  std::int64_t first_start = std::numeric_limits<std::int64_t>::min();
  if (q.since) {
    SQLite::Statement span(db,
                           "SELECT coalesce(max(ended_at - started_at), 0) FROM episodic_summaries WHERE "
                           "status = 'active'");
    span.executeStep();
    first_start = *q.since - span.getColumn(0).getInt64();
  }
  SQLite::Statement range(db,
                          "SELECT min(rowid), max(rowid) FROM episodic_summaries WHERE status = 'active' AND "
                          "started_at >= ? AND started_at < ? AND ended_at >= ?");
  sdk::Bind(range, first_start, *q.until, q.since.value_or(first_start));
  range.executeStep();
  if (range.getColumn(0).isNull()) return std::pair<std::int64_t, std::int64_t>{1, 0};
  return std::pair{range.getColumn(0).getInt64(), range.getColumn(1).getInt64()};
}

RecallResult Recency(SQLite::Database& db, const RecallQuery& q) {
  RecallResult r;
  r.mode = "recency";
  const Filter sf = SummaryFilter(q);
  const Filter lf = LogOnlyFilter(q);
  if (!q.since && !q.until && q.agent_id.empty()) {
    // Every active summary and log-only session in scope: the sessions' trigger-kept counts
    // (covering index episodic_sessions_counts), not a probe per session.
    const Filter f = SessionFilter(q);
    SQLite::Statement c(db,
                        "SELECT (SELECT total(se.active_summaries) FROM episodic_sessions se "
                        "WHERE 1" + f.sql + ") + (SELECT count(*) FROM episodic_sessions se WHERE 1" +
                            lf.sql + ")");
    BindAll(c, f.binds);
    BindAll(c, lf.binds, static_cast<int>(f.binds.size()) + 1);
    c.executeStep();
    r.matched = static_cast<std::size_t>(c.getColumn(0).getInt64());
  } else {
    SQLite::Statement c(db,
                        "SELECT (SELECT COUNT(*) FROM episodic_summaries s JOIN "
                        "episodic_sessions se ON se.id = s.session_id WHERE s.status = 'active'" +
                            sf.sql +
                            ") + (SELECT COUNT(*) FROM episodic_sessions se WHERE 1" + lf.sql +
                            ")");
    BindAll(c, sf.binds);
    BindAll(c, lf.binds, static_cast<int>(sf.binds.size()) + 1);
    c.executeStep();
    r.matched = static_cast<std::size_t>(c.getColumn(0).getInt64());
  }
  // Newest summaries and newest log-only sessions, merged by time.
  std::vector<RecallItem> items;
  {
    SQLite::Statement st(db, std::string(kSummarySelect) + " WHERE s.status = 'active'" + sf.sql +
                                 " ORDER BY s.ended_at DESC, s.id DESC LIMIT ?");
    BindAll(st, sf.binds);
    st.bind(static_cast<int>(sf.binds.size()) + 1, q.limit);
    while (st.executeStep()) items.push_back(ReadSummaryItem(st));
  }
  {
    SQLite::Statement st(db, "SELECT se.id FROM episodic_sessions se WHERE 1" + lf.sql +
                                 " ORDER BY se.last_activity_at DESC, se.id DESC LIMIT ?");
    BindAll(st, lf.binds);
    st.bind(static_cast<int>(lf.binds.size()) + 1, q.limit);
    std::vector<std::string> ids;
    while (st.executeStep()) ids.push_back(st.getColumn(0).getString());
    for (auto& id : ids) items.push_back(LogOnlyItem(db, id));
  }
  std::stable_sort(items.begin(), items.end(), [](const RecallItem& a, const RecallItem& b) {
    if (a.time != b.time) return a.time > b.time;
    return a.summary_id + a.session_id > b.summary_id + b.session_id;
  });
  if (items.size() > static_cast<std::size_t>(q.limit)) items.resize(q.limit);
  for (std::size_t i = 0; i < items.size(); ++i) items[i].score = 1.0 / (60.0 + double(i + 1));
  r.items = std::move(items);
  return r;
}

}  // namespace

RecallResult RunRecall(SQLite::Database& db, const RecallQuery& q) {
  const std::vector<std::string> word_phrases = QuotedTokens(q.query, sdk::FtsQueryOptions{});
  if (word_phrases.empty()) return Recency(db, q);

  RecallResult r;
  r.mode = "text";
  const Filter sf = SummaryFilter(q);
  // Rank lists carry ids and times only; full rows are read for the returned items.
  std::map<std::string, std::int64_t> time_of;  // key: summary id or "log:<session>"
  std::map<std::string, RecallItem> log_items;

  // Each list ranks with kioku_bm25 (PhraseCounts): binds are the phrases' document
  // frequencies, the MATCH expression, then the filters'.
  const auto window = WindowRowids(db, q);
  // The window's rows are ranked here, not by an outer ORDER BY: SQLite's sorter over the
  // subquery cost 0.3 of the 1.7 ms of the word list; a stable sort keeps ties newest first.
  auto summary_list = [&](const std::string& fts_table, const RankedMatch& m) {
    const std::string bound = window ? " AND " + fts_table + ".rowid BETWEEN ? AND ?" : "";
    SQLite::Statement st(db, "SELECT s.id, s.ended_at, " + m.rank + " FROM " + fts_table +
                                 " JOIN episodic_summaries s ON s.rowid = " + fts_table +
                                 ".rowid JOIN episodic_sessions se ON se.id = s.session_id WHERE " + fts_table +
                                 " MATCH ?" + bound + " AND s.status = 'active'" + sf.sql + " ORDER BY " + fts_table +
                                 ".rowid DESC LIMIT " + std::to_string(kScoreWindow));
    int i = 1;
    for (const double df : m.df) st.bind(i++, df);
    st.bind(i++, m.match);
    if (window) {
      st.bind(i++, static_cast<int64_t>(window->first));
      st.bind(i++, static_cast<int64_t>(window->second));
    }
    BindAll(st, sf.binds, i);
    struct Row {
      std::string id;
      std::int64_t time;
      double score;  // kioku_bm25: lower is better
    };
    std::vector<Row> rows;
    while (st.executeStep()) {
      rows.push_back({st.getColumn(0).getString(), st.getColumn(1).getInt64(), st.getColumn(2).getDouble()});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.score < b.score; });
    if (rows.size() > static_cast<std::size_t>(kListDepth)) rows.resize(kListDepth);
    sdk::RankList list;
    for (Row& r : rows) {
      time_of[r.id] = r.time;
      list.ids.push_back(std::move(r.id));
    }
    return list;
  };

  std::vector<sdk::RankList> lists;
  PhraseCounts words(db, "episodic_summaries_fts", "episodic_summaries");
  sdk::RankList bm25 = summary_list("episodic_summaries_fts", Ranked("episodic_summaries_fts", word_phrases, words));
  bm25.name = "bm25";
  bm25.weight = 1.0;
  lists.push_back(std::move(bm25));

  if (const std::vector<std::string> tri = TrigramPhrases(q.query, words); !tri.empty()) {
    PhraseCounts tri_counts(db, "episodic_summaries_tri", "episodic_summaries");
    sdk::RankList l = summary_list("episodic_summaries_tri", Ranked("episodic_summaries_tri", tri, tri_counts));
    l.name = "trigram";
    l.weight = 0.5;
    lists.push_back(std::move(l));
  }

  // Log entries: each hit votes for its session's newest active summary in the window, or
  // for the session itself when it has none.
  {
    Filter lf = SessionFilter(q);
    if (q.since) lf.Add("l.at >= ?", {*q.since});
    if (q.until) lf.Add("l.at < ?", {*q.until});
    if (!q.agent_id.empty()) lf.Add("(l.agent_id = ? OR se.agent_id = ?)", {q.agent_id, q.agent_id});
    PhraseCounts log_counts(db, "episodic_log_fts", "episodic_log");
    const RankedMatch m = Ranked("episodic_log_fts", word_phrases, log_counts);
    SQLite::Statement st(db,
                         "SELECT session_id FROM (SELECT l.session_id, " + m.rank + " AS score "
                         "FROM episodic_log_fts JOIN episodic_log l ON l.rowid = episodic_log_fts.rowid "
                         "JOIN episodic_sessions se ON se.id = l.session_id WHERE episodic_log_fts MATCH ?" +
                             lf.sql + " ORDER BY episodic_log_fts.rowid DESC LIMIT " +
                             std::to_string(kScoreWindow) + ") ORDER BY score LIMIT " +
                             std::to_string(kListDepth));
    int i = 1;
    for (const double df : m.df) st.bind(i++, df);
    st.bind(i++, m.match);
    BindAll(st, lf.binds, i);
    std::vector<std::string> sessions;
    while (st.executeStep()) {
      std::string id = st.getColumn(0).getString();
      if (std::find(sessions.begin(), sessions.end(), id) == sessions.end()) {
        sessions.push_back(std::move(id));
      }
    }
    sdk::RankList l;
    l.name = "log";
    l.weight = 0.7;
    SQLite::Statement newest(db, "SELECT s.id, s.ended_at FROM episodic_summaries s JOIN "
                                 "episodic_sessions se ON se.id = s.session_id WHERE s.status = "
                                 "'active' AND s.session_id = ?" +
                                     sf.sql + " ORDER BY s.ended_at DESC, s.id DESC LIMIT 1");
    for (const auto& sid : sessions) {
      newest.reset();
      newest.clearBindings();
      sdk::Bind(newest, sid);
      BindAll(newest, sf.binds, 2);
      if (newest.executeStep()) {
        std::string id = newest.getColumn(0).getString();
        time_of[id] = newest.getColumn(1).getInt64();
        l.ids.push_back(std::move(id));
        continue;
      }
      // No active summary matching the filters: only a summary-less session qualifies.
      SQLite::Statement any(db,
                            "SELECT 1 FROM episodic_summaries WHERE session_id = ? AND status = "
                            "'active' LIMIT 1");
      sdk::Bind(any, sid);
      if (any.executeStep()) continue;
      RecallItem it = LogOnlyItem(db, sid);
      if (q.since && it.time < *q.since) continue;
      if (q.until && it.started_at >= *q.until) continue;
      const std::string key = kLogPrefix + sid;
      l.ids.push_back(key);
      time_of[key] = it.time;
      log_items.emplace(key, std::move(it));
    }
    lists.push_back(std::move(l));
  }

  // Vector hits: summaries near the query in meaning, even sharing no word with it.
  if (!q.vector_rowids.empty()) {
    SQLite::Statement st(db, "SELECT s.rowid, s.id, s.ended_at FROM episodic_summaries s JOIN episodic_sessions se "
                             "ON se.id = s.session_id WHERE s.rowid IN (SELECT value FROM json_each(?)) AND "
                             "s.status = 'active'" + sf.sql);
    sdk::Bind(st, sdk::Json(q.vector_rowids).dump());
    BindAll(st, sf.binds, 2);
    std::map<std::int64_t, std::string> id_of;
    while (st.executeStep()) {
      std::string id = st.getColumn(1).getString();
      time_of[id] = st.getColumn(2).getInt64();
      id_of.emplace(st.getColumn(0).getInt64(), std::move(id));
    }
    sdk::RankList l;
    l.name = "vector";
    l.weight = q.vector_weight;
    for (const std::int64_t rowid : q.vector_rowids) {
      if (auto it = id_of.find(rowid); it != id_of.end()) l.ids.push_back(it->second);
    }
    lists.push_back(std::move(l));
  }

  // Recency as a weak tie-breaker among the matches only.
  {
    std::vector<std::pair<std::int64_t, std::string>> by_time;
    for (auto& [key, t] : time_of) by_time.emplace_back(t, key);
    std::sort(by_time.begin(), by_time.end(), [](auto& a, auto& b) {
      return a.first != b.first ? a.first > b.first : a.second > b.second;
    });
    sdk::RankList l;
    l.name = "recent";
    l.weight = 0.2;
    for (auto& [t, key] : by_time) l.ids.push_back(key);
    lists.push_back(std::move(l));
  }

  auto fused = sdk::ReciprocalRankFusion(lists);
  r.matched = fused.size();
  SQLite::Statement row(db, std::string(kSummarySelect) + " WHERE s.id = ?");
  for (const auto& f : fused) {
    if (r.items.size() >= static_cast<std::size_t>(q.limit)) break;
    RecallItem item;
    if (auto it = log_items.find(f.id); it != log_items.end()) {
      item = it->second;
    } else {
      row.reset();
      sdk::Bind(row, f.id);
      if (!row.executeStep()) continue;
      item = ReadSummaryItem(row);
    }
    item.score = f.score;
    r.items.push_back(std::move(item));
  }
  return r;
}

}  // namespace kioku::episodic
