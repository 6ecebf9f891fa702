#include "review_store.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "keys.hpp"
#include "anchors.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/sql.hpp"
#include "normalize.hpp"
#include "rivals.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {

const char* const kTrustMigrationSql = R"SQL(
CREATE TABLE semantic_rivals (
  seq         INTEGER PRIMARY KEY,
  a_seq       INTEGER NOT NULL REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  b_seq       INTEGER NOT NULL REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  a_prior     TEXT NOT NULL,
  b_prior     TEXT NOT NULL,
  reason      TEXT NOT NULL DEFAULT '',
  detected_at INTEGER NOT NULL,
  resolved_at INTEGER,
  resolution  TEXT NOT NULL DEFAULT '',
  UNIQUE (a_seq, b_seq)
);
CREATE INDEX semantic_rivals_b ON semantic_rivals(b_seq);
CREATE INDEX semantic_rivals_open ON semantic_rivals(resolved_at) WHERE resolved_at IS NULL;

CREATE TABLE semantic_memory_usage (
  memory_seq INTEGER NOT NULL REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  agent_id   TEXT NOT NULL DEFAULT '',
  at         INTEGER NOT NULL,
  PRIMARY KEY (memory_seq, session_id)
) WITHOUT ROWID;

CREATE TABLE semantic_memory_decay (
  memory_seq INTEGER PRIMARY KEY REFERENCES semantic_memories(seq) ON DELETE CASCADE,
  confidence REAL NOT NULL,
  ref_at     INTEGER NOT NULL
);

CREATE TABLE semantic_maintenance (
  name   TEXT PRIMARY KEY,
  at     INTEGER NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
)SQL";

namespace {

constexpr std::size_t kMaxRivalsPerWrite = 5;
constexpr int kMaxAnchorScan = 500;


std::vector<Memory> Query(const Env& env, const std::string& where_sql, const std::vector<sdk::SqlValue>& binds) {
  SQLite::Statement q(env.db, std::string("SELECT ") + MemoryColumns() + " FROM semantic_memories m " + where_sql);
  sdk::BindAll(q, binds);
  std::vector<Memory> out;
  while (q.executeStep()) out.push_back(ReadMemory(q));
  return out;
}

void SetStatus(const Env& env, std::int64_t seq, const std::string& status) {
  SQLite::Statement q(env.db, "UPDATE semantic_memories SET status = ? WHERE seq = ?");
  sdk::Bind(q, status, seq);
  q.exec();
}

struct Pair {
  std::int64_t seq = 0;
  std::int64_t other = 0;
  std::string self_prior, other_prior, reason;
};

// Open pairs that involve `seq`, seen from its side.
std::vector<Pair> OpenPairs(const Env& env, std::int64_t seq) {
  // Two index lookups (the (a_seq, b_seq) key and semantic_rivals_b): written as one OR,
  // the planner scanned every open pair, which made each write O(open pairs).
  sdk::CachedStatement stmt = env.Stmt(
      "SELECT seq, a_seq, b_seq, a_prior, b_prior, reason FROM semantic_rivals "
      "WHERE a_seq = ?1 AND resolved_at IS NULL UNION ALL "
      "SELECT seq, a_seq, b_seq, a_prior, b_prior, reason FROM semantic_rivals "
      "WHERE b_seq = ?1 AND a_seq <> ?1 AND resolved_at IS NULL ORDER BY 1");
  SQLite::Statement& q = *stmt;
  sdk::Bind(q, seq);
  std::vector<Pair> out;
  while (q.executeStep()) {
    Pair p;
    p.seq = q.getColumn(0).getInt64();
    const bool a_side = q.getColumn(1).getInt64() == seq;
    p.other = a_side ? q.getColumn(2).getInt64() : q.getColumn(1).getInt64();
    p.self_prior = a_side ? q.getColumn(3).getString() : q.getColumn(4).getString();
    p.other_prior = a_side ? q.getColumn(4).getString() : q.getColumn(3).getString();
    p.reason = q.getColumn(5).getString();
    out.push_back(std::move(p));
  }
  return out;
}

void ClosePair(const Env& env, std::int64_t pair_seq, const std::string& resolution) {
  SQLite::Statement q(env.db, "UPDATE semantic_rivals SET resolved_at = ?, resolution = ? WHERE seq = ?");
  sdk::Bind(q, env.clock.NowMs(), resolution, pair_seq);
  q.exec();
}

// Status a memory had before any open pair made it contested ("active" when unknown).
std::string PriorOf(const Env& env, const Memory& m) {
  if (m.status != "contested") return m.status;
  for (const Pair& p : OpenPairs(env, m.seq)) return p.self_prior;
  return "active";
}

// A live pinned memory with the same subject and another value keeps `m` contested.
bool HasPinnedSubjectRival(const Env& env, const Memory& m) {
  if (m.subject.empty()) return false;
  for (const Memory& r : Query(env,
                               "WHERE m.subject <> '' AND m.subject = ? AND m.scope = ? AND m.project_key = " + KeyOfSql("?") + " AND m.path = ? "
                               "AND m.seq <> ? AND m.status = 'pinned'",
                               {m.subject, m.scope.kind, m.scope.project_id, m.scope.path, m.seq})) {
    if (NormalizeText(r.value) != NormalizeText(m.value)) return true;
  }
  return false;
}

// An open pair contests `seq` only while its other side is live and not pending: a pending
// suggestion's pair waits in review and never made the older side contested (DetectRivals),
// and a superseded side's pair is closed by ResolveGoneRivals.
bool ContestedByAPair(const Env& env, std::int64_t seq) {
  for (const Pair& p : OpenPairs(env, seq)) {
    const std::optional<Memory> other = LoadMemoryBySeq(env.db, p.other);
    if (other && other->status != "pending" && other->status != "superseded") return true;
  }
  return false;
}

// The status a memory returns to when its contest ends, from the prior status its pair
// recorded: pinned and pending come back, anything else is active.
std::string StatusAfterContest(const std::string& prior) {
  return prior == "pinned" ? "pinned" : prior == "pending" ? "pending" : "active";
}

// After a pair closed: the other side goes back to its prior status unless something
// else still contests it. Returns true when it was reinstated.
bool MaybeReinstate(const Env& env, std::int64_t seq, const std::string& prior, const std::string& agent) {
  std::optional<Memory> m = LoadMemoryBySeq(env.db, seq);
  if (!m || m->status != "contested") return false;
  if (ContestedByAPair(env, seq) || HasPinnedSubjectRival(env, *m)) return false;
  const std::string to = StatusAfterContest(prior);
  SetStatus(env, seq, to);
  AddHistory(env, m->id, "reinstated", agent, "rival resolved; back to " + to);
  return true;
}

}  // namespace

std::vector<std::string> ResolveGoneRivals(const Env& env, const std::string& agent) {
  struct Gone {
    std::int64_t pair, survivor;
    std::string prior, gone_id;
  };
  std::vector<Gone> gone;
  {
    SQLite::Statement q(env.db,
                        "SELECT r.seq, a.status, b.status, r.a_seq, r.b_seq, r.a_prior, r.b_prior, " + MemoryIdSql("a.") +
                            ", " + MemoryIdSql("b.") + " "
                        "FROM semantic_rivals r JOIN semantic_memories a ON a.seq = r.a_seq "
                        "JOIN semantic_memories b ON b.seq = r.b_seq WHERE r.resolved_at IS NULL AND "
                        "(a.status = 'superseded' OR b.status = 'superseded')");
    while (q.executeStep()) {
      const bool a_gone = q.getColumn(1).getString() == "superseded";
      const bool b_gone = q.getColumn(2).getString() == "superseded";
      Gone g;
      g.pair = q.getColumn(0).getInt64();
      g.survivor = a_gone && b_gone ? 0 : a_gone ? q.getColumn(4).getInt64() : q.getColumn(3).getInt64();
      g.prior = a_gone ? q.getColumn(6).getString() : q.getColumn(5).getString();
      g.gone_id = a_gone ? q.getColumn(7).getString() : q.getColumn(8).getString();
      gone.push_back(std::move(g));
    }
  }
  std::vector<std::string> reinstated;
  for (const Gone& g : gone) ClosePair(env, g.pair, "gone:" + g.gone_id);
  for (const Gone& g : gone) {
    if (g.survivor != 0 && MaybeReinstate(env, g.survivor, g.prior, agent)) {
      if (std::optional<Memory> m = LoadMemoryBySeq(env.db, g.survivor)) reinstated.push_back(m->id);
    }
  }
  return reinstated;
}

namespace {

RivalNote NoteOf(const Memory& m, std::string reason) { return {m.id, Preview(m.text, 80), std::move(reason)}; }

void RequireReviewable(const Memory& m, const char* verb) {
  if (m.status == "pending" || m.status == "contested") return;
  throw sdk::ToolError(std::string("memory ") + m.id + " is " + m.status + "; only pending or contested memories can be " +
                       verb + " (memory_review or `kioku review` lists them)");
}

}  // namespace

void AddHistory(const Env& env, const std::string& memory_id, const std::string& action,
                const std::string& agent_id, const std::string& detail) {
  SQLite::Statement q(env.db,
                      "INSERT INTO semantic_memory_history(memory_id, action, at, agent_id, detail) VALUES (?,?,?,?,?)");
  sdk::Bind(q, memory_id, action, env.clock.NowMs(), agent_id, detail);
  q.exec();
}

std::vector<RivalNote> DetectRivals(const Env& env, std::int64_t seq, const Author& author, RivalScan* scan_memo) {
  RivalScan local;
  RivalScan& memo = scan_memo != nullptr ? *scan_memo : local;
  Memory* found_m = RivalSide(env, memo, seq);
  if (found_m == nullptr || found_m->status == "superseded" || found_m->status == "pinned") return {};
  Memory& m = *found_m;  // the scan's copy: a later memory of the batch sees its status
  const TopicProfile& mine = ProfileOf(env, memo, m);
  std::vector<Memory*> candidates = RivalCandidates(env, memo, m, RivalSearchTerms(mine));
  std::vector<RivalNote> found;
  for (Memory* candidate : candidates) {
    Memory& r = *candidate;
    if (found.size() >= kMaxRivalsPerWrite) break;
    if (!r.subject.empty() && !m.subject.empty()) continue;  // keyed: ResolveSubject decides
    const PairVerdict v = ClassifyPair(ProfileOf(env, memo, r), mine);
    if (v.kind != PairKind::kRival) continue;
    {
      SQLite::Statement q(env.db,
                          "INSERT OR IGNORE INTO semantic_rivals(a_seq, b_seq, a_prior, b_prior, reason, detected_at) "
                          "VALUES (?,?,?,?,?,?)");
      sdk::Bind(q, r.seq, m.seq, PriorOf(env, r), m.status == "contested" ? PriorOf(env, m) : m.status,
                v.reason, env.clock.NowMs());
      if (q.exec() == 0) continue;
    }
    found.push_back(NoteOf(r, v.reason));
    if (r.status == "pending") {  // an older suggestion: the pair waits in review with it
      found.back().pending = true;
      continue;
    }
    if (m.status == "pending") continue;  // a suggestion waits in review; it changes nothing
    if (r.status == "active") {
      SetStatus(env, r.seq, "contested");
      r.status = "contested";  // the batch's memo sees it too
      AddHistory(env, r.id, "contested", author.agent_id, "may be replaced by " + m.id + " (" + v.reason + ")");
    }
    if (m.status != "contested") {
      SetStatus(env, m.seq, "contested");
      m.status = "contested";
    }
    AddHistory(env, m.id, "contested", author.agent_id, "may replace " + r.id + " (" + v.reason + ")");
  }
  return found;
}

bool AnyContest(const std::vector<RivalNote>& notes) {
  return std::any_of(notes.begin(), notes.end(), [](const RivalNote& n) { return !n.pending; });
}

std::vector<RivalNote> OpenRivals(const Env& env, std::int64_t seq) {
  std::vector<RivalNote> out;
  for (const Pair& p : OpenPairs(env, seq)) {
    if (std::optional<Memory> r = LoadMemoryBySeq(env.db, p.other)) out.push_back(NoteOf(*r, p.reason));
  }
  return out;
}

ReviewListing ListReview(const Env& env, const Viewer& viewer, const std::string& bucket, int limit) {
  const std::int64_t now = env.clock.NowMs();
  const double stale_below = env.settings.housekeeping.stale_below;
  ReviewListing out;
  // The viewer's scope: global memories plus its project's (and paths in it).
  const std::string live = " AND " + InViewerScopeSql("?1") + " AND (m.expires_at IS NULL OR m.expires_at > ?2)";
  struct Bucket {
    const char* name;
    std::string where;
  };
  const std::vector<Bucket> simple = {
      {"pending", "WHERE m.status = 'pending'" + live},
      {"contested", "WHERE m.status = 'contested'" + live},
      {"stale", "WHERE m.status = 'active' AND EXISTS (SELECT 1 FROM semantic_memory_decay d WHERE "
                "d.memory_seq = m.seq AND d.confidence < ?3 AND d.ref_at >= m.updated_at)" + live},
  };
  for (const Bucket& b : simple) {
    {
      SQLite::Statement q(env.db, std::string("SELECT COUNT(*) FROM semantic_memories m ") + b.where);
      std::vector<sdk::SqlValue> binds = {viewer.project_id, now};
      if (b.name == std::string("stale")) binds.emplace_back(stale_below);
      sdk::BindAll(q, binds);
      q.executeStep();
      out.counts[b.name] = q.getColumn(0).getInt();
    }
    if (!bucket.empty() && bucket != b.name) continue;
    for (Memory& m : Query(env, b.where + " ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?4",
                           {viewer.project_id, now, stale_below, std::int64_t{limit}})) {
      ReviewItem item;
      item.bucket = b.name;
      item.rivals = OpenRivals(env, m.seq);
      if (!m.subject.empty()) {
        for (const Memory& r : Query(env,
                                     "WHERE m.subject <> '' AND m.subject = ? AND m.scope = ? AND m.project_key = " + KeyOfSql("?") + " AND m.path = ? AND "
                                     "m.seq <> ? AND m.status IN ('active','pinned','contested','pending')",
                                     {m.subject, m.scope.kind, m.scope.project_id, m.scope.path, m.seq})) {
          if (NormalizeText(r.value) != NormalizeText(m.value)) item.rivals.push_back(NoteOf(r, m.subject + " = " + r.value));
        }
      }
      if (item.bucket == std::string("stale")) {
        SQLite::Statement d(env.db, "SELECT confidence FROM semantic_memory_decay WHERE memory_seq = ?");
        sdk::Bind(d, m.seq);
        const double decayed = d.executeStep() ? d.getColumn(0).getDouble() : m.confidence;
        item.note = "confidence decayed to " + std::to_string(decayed).substr(0, 4) +
                    " (reaffirm it, mark it used, or forget it)";
      }
      item.memory = std::move(m);
      out.items.push_back(std::move(item));
    }
  }
  // Anchors: evaluated now, against the viewer's project.
  int contradicted = 0;
  for (Memory& m : Query(env,
                         std::string("WHERE m.anchor <> '' AND m.status IN ('active','pinned')") + live +
                             " ORDER BY m.updated_at DESC LIMIT ?3",
                         {viewer.project_id, now, std::int64_t{kMaxAnchorScan}})) {
    if (EvaluateAnchor(m.anchor, viewer.project_root, now) != "contradicted") continue;
    ++contradicted;
    if ((!bucket.empty() && bucket != "contradicted") || contradicted > limit) continue;
    ReviewItem item;
    item.bucket = "contradicted";
    item.note = "anchor contradicted: " + m.anchor;
    item.memory = std::move(m);
    out.items.push_back(std::move(item));
  }
  out.counts["contradicted"] = contradicted;
  return out;
}

namespace {

// Closes `m`'s open pairs ("promoted:<id>") and supersedes their other sides by it.
std::vector<std::string> SupersedePairs(const Env& env, const Memory& m, const std::vector<Pair>& pairs,
                                        const Author& author) {
  std::vector<std::string> superseded;
  for (const Pair& p : pairs) {
    ClosePair(env, p.seq, "promoted:" + m.id);
    std::optional<Memory> r = LoadMemoryBySeq(env.db, p.other);
    if (!r || r->status == "superseded") continue;
    SQLite::Statement q(env.db,
                        "UPDATE semantic_memories SET prior_status = ?, status = 'superseded', superseded_at = ?, "
                        "superseded_by = ? WHERE seq = ?");
    sdk::Bind(q, r->status == "contested" ? p.other_prior : r->status, env.clock.NowMs(), m.id, r->seq);
    q.exec();
    AddHistory(env, r->id, "superseded", author.agent_id, "by " + m.id + " (review: " + p.reason + ")");
    superseded.push_back(r->id);
  }
  return superseded;
}

}  // namespace

std::vector<std::string> SettlePinnedContests(const Env& env, const Memory& m, const Author& author) {
  if (m.status != "pinned") return {};
  const std::vector<Pair> pairs = OpenPairs(env, m.seq);
  if (pairs.empty()) return {};
  AddHistory(env, m.id, "confirmed", author.agent_id, "its open rivals superseded");
  std::vector<std::string> out = SupersedePairs(env, m, pairs, author);
  ResolveGoneRivals(env, author.agent_id);
  return out;
}

ReviewActionResult Promote(const Env& env, MemoryWriter& writer, const Memory& m, const Author& author) {
  RequireReviewable(m, "promoted");
  ReviewActionResult out;
  out.id = m.id;
  out.action = "promoted";
  const std::vector<Pair> pairs = OpenPairs(env, m.seq);
  const std::string restore = pairs.empty() ? "active" : pairs.front().self_prior;
  MemoryEdit edit;
  edit.status = "active";
  const EditResult e = writer.Edit(m, edit, author);
  out.superseded = e.replaced;
  for (std::string& id : SupersedePairs(env, m, pairs, author)) out.superseded.push_back(std::move(id));
  if (restore == "pinned") {
    SetStatus(env, m.seq, "pinned");
    out.status = "pinned";
  } else {
    out.status = "active";
  }
  out.reinstated = ResolveGoneRivals(env, author.agent_id);
  if (m.subject.empty()) {
    out.note = "no subject/value: a later rival is found only by text; give it a subject to key it";
  }
  return out;
}

std::vector<std::string> ReleaseSubjectRivals(const Env& env, const Memory& gone, const std::string& agent_id) {
  std::vector<std::string> out;
  if (gone.status != "pinned" || gone.subject.empty()) return out;
  for (const Memory& m : Query(env,
                               "WHERE m.subject <> '' AND m.subject = ? AND m.scope = ? AND m.project_key = " + KeyOfSql("?") + " AND m.path = ? "
                               "AND m.status = 'contested'",
                               {gone.subject, gone.scope.kind, gone.scope.project_id, gone.scope.path})) {
    if (ContestedByAPair(env, m.seq) || HasPinnedSubjectRival(env, m)) continue;
    SetStatus(env, m.seq, "active");
    AddHistory(env, m.id, "reinstated", agent_id, "the pinned memory of " + m.subject + " it conflicted with is gone");
    out.push_back(m.id);
  }
  return out;
}

void UnpinnedInPairs(const Env& env, std::int64_t seq) {
  for (const char* sql : {"UPDATE semantic_rivals SET a_prior = 'active' WHERE a_seq = ? AND a_prior = 'pinned' "
                          "AND resolved_at IS NULL",
                          "UPDATE semantic_rivals SET b_prior = 'active' WHERE b_seq = ? AND b_prior = 'pinned' "
                          "AND resolved_at IS NULL"}) {
    SQLite::Statement q(env.db, sql);
    sdk::Bind(q, seq);
    q.exec();
  }
}

std::vector<std::string> ReleaseRivals(const Env& env, const Memory& m, const std::string& agent_id) {
  const std::vector<Pair> pairs = OpenPairs(env, m.seq);
  for (const Pair& p : pairs) ClosePair(env, p.seq, "gone:" + m.id);
  std::vector<std::string> reinstated;
  for (const Pair& p : pairs) {
    if (!MaybeReinstate(env, p.other, p.other_prior, agent_id)) continue;
    if (std::optional<Memory> other = LoadMemoryBySeq(env.db, p.other)) reinstated.push_back(other->id);
  }
  return reinstated;
}

ReviewActionResult Reject(const Env& env, const Memory& m, const Author& author) {
  RequireReviewable(m, "rejected");
  ReviewActionResult out;
  out.id = m.id;
  out.action = "rejected";
  out.status = "superseded";
  {
    SQLite::Statement q(env.db,
                        "UPDATE semantic_memories SET prior_status = status, status = 'superseded', superseded_at = ? "
                        "WHERE seq = ?");
    sdk::Bind(q, env.clock.NowMs(), m.seq);
    q.exec();
  }
  AddHistory(env, m.id, "rejected", author.agent_id, "was " + m.status);
  for (const Pair& p : OpenPairs(env, m.seq)) {
    ClosePair(env, p.seq, "rejected:" + m.id);
    if (MaybeReinstate(env, p.other, p.other_prior, author.agent_id)) {
      if (std::optional<Memory> r = LoadMemoryBySeq(env.db, p.other)) out.reinstated.push_back(r->id);
    }
  }
  for (const std::string& id : ResolveGoneRivals(env, author.agent_id)) out.reinstated.push_back(id);
  return out;
}

ReviewActionResult Undo(const Env& env, const Memory& m, const Author& author) {
  {
    SQLite::Statement q(env.db,
                        "SELECT action FROM semantic_memory_history WHERE memory_id = ? ORDER BY at DESC, seq DESC LIMIT 1");
    sdk::Bind(q, m.id);
    const std::string last = q.executeStep() ? q.getColumn(0).getString() : "";
    if (last != "rejected" || m.status != "superseded") {
      throw sdk::ToolError("memory " + m.id + " was not rejected in review (last change: " +
                           (last.empty() ? std::string("none") : last) +
                           "); undo reverses a review rejection only — memory_forget is a considered decision");
    }
  }
  ReviewActionResult out;
  out.id = m.id;
  out.action = "undone";
  out.status = m.prior_status == "pending" ? "pending" : "contested";
  {
    SQLite::Statement q(env.db,
                        "UPDATE semantic_memories SET status = ?, prior_status = '', superseded_at = NULL WHERE seq = ?");
    sdk::Bind(q, out.status, m.seq);
    q.exec();
  }
  AddHistory(env, m.id, "undone", author.agent_id, "rejection reversed; back to " + out.status);
  struct Reopen {
    std::int64_t pair, other;
    std::string self_prior;
  };
  std::vector<Reopen> reopen;
  {
    SQLite::Statement q(env.db,
                        "SELECT seq, CASE WHEN a_seq = ?1 THEN b_seq ELSE a_seq END, "
                        "CASE WHEN a_seq = ?1 THEN a_prior ELSE b_prior END FROM semantic_rivals "
                        "WHERE (a_seq = ?1 OR b_seq = ?1) AND resolution = ?2");
    sdk::Bind(q, m.seq, "rejected:" + m.id);
    while (q.executeStep()) {
      reopen.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getString()});
    }
  }
  std::size_t reopened = 0;
  for (const Reopen& r : reopen) {
    std::optional<Memory> other = LoadMemoryBySeq(env.db, r.other);
    if (!other || other->status == "superseded") continue;
    SQLite::Statement q(env.db, "UPDATE semantic_rivals SET resolved_at = NULL, resolution = '' WHERE seq = ?");
    sdk::Bind(q, r.pair);
    q.exec();
    if (other->status != "pending") ++reopened;  // a suggestion's pair contests nothing
    if (out.status == "contested" && other->status == "active") {
      SetStatus(env, other->seq, "contested");
      AddHistory(env, other->id, "contested", author.agent_id, "rival " + m.id + " restored by undo");
      out.reinstated.push_back(other->id);
    }
  }
  if (out.status == "contested" && reopened == 0 && !HasPinnedSubjectRival(env, m)) {
    // Every rival it had is gone since (forgotten, or superseded by a confirmed memory), or
    // only a pending suggestion is left: no contest to restore, so it goes back to what it
    // was before the contest.
    const std::string prior = reopen.empty() ? "" : reopen.front().self_prior;
    out.status = StatusAfterContest(prior);
    SetStatus(env, m.seq, out.status);
    AddHistory(env, m.id, "reinstated", author.agent_id, "its rivals are gone; back to " + out.status);
  }
  return out;
}

int MarkUsed(const Env& env, const std::vector<Memory>& memories, const std::string& session_id,
             const std::string& agent_id) {
  int added = 0;
  for (const Memory& m : memories) {
    SQLite::Statement q(env.db,
                        "INSERT OR IGNORE INTO semantic_memory_usage(memory_seq, session_id, agent_id, at) VALUES (?,?,?,?)");
    sdk::Bind(q, m.seq, session_id, agent_id, env.clock.NowMs());
    added += q.exec();
  }
  return added;
}

sdk::RankList UsefulnessList(const Env& env, const std::vector<std::int64_t>& candidates) {
  sdk::RankList list;
  list.name = "useful";
  list.weight = env.settings.weights.useful;
  if (candidates.empty() || list.weight <= 0) return list;
  // Bounded: the candidate set is at most a few hundred rows (recall's lists). One cached
  // statement for any number of candidates (a JSON array), not one prepared per call.
  const std::string seqs = sdk::Json(candidates).dump();
  sdk::CachedStatement q = env.Stmt(
      "SELECT memory_seq FROM semantic_memory_usage WHERE memory_seq IN (SELECT value FROM json_each(?)) "
      "GROUP BY memory_seq ORDER BY COUNT(*) DESC, MAX(at) DESC");
  sdk::Bind(*q, seqs);
  while (q->executeStep()) list.ids.push_back(std::to_string(q->getColumn(0).getInt64()));
  return list;
}

}  // namespace kioku::semantic
