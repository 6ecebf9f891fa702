#include "context_provider.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "keys.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "anchors.hpp"
#include "normalize.hpp"
#include "review_store.hpp"

namespace kioku::semantic {
namespace {

constexpr int kPinnedLimit = 6;
constexpr int kTopLimit = 30;  // ranked memories at session start
constexpr int kContestLimit = 2;  // open contests shown as one line each
constexpr double kContestPriority = 0.7;

std::vector<std::string> ContentStems(std::string_view text) {
  std::set<std::string> stems;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 3 && !IsStopword(word)) {
      stems.insert(word.substr(0, std::max<std::size_t>(4, word.size() - 2)));
    }
    word.clear();
  };
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      word += static_cast<char>(std::tolower(u));
    } else {
      flush();
    }
  }
  flush();
  return {stems.begin(), stems.end()};
}

std::string ItemText(const RecalledMemory& rm) {
  const Memory& m = rm.memory;
  std::string text = m.text;
  if (!m.scope.path.empty()) text += " @" + m.scope.path;
  if (!rm.anchor_verdict.empty() && rm.anchor_verdict != "affirmed") text += " (anchor " + rm.anchor_verdict + ")";
  // The whole id: memories written in one millisecond share their first ten characters (the
  // ULID's time), so a shorter cut named several memories.
  return text + " · " + m.id;
}

double RankPriority(std::size_t rank) { return std::max(0.5, 0.75 - 0.02 * static_cast<double>(rank)); }

// One pass over the review states in the viewer's scope (global + this project): the
// pinned memories (most important first, at most kPinnedLimit) and how many are pending or
// contested. A plain scan (no status index): about 3 ms at 10,000 memories.
struct ReviewStates {
  std::vector<std::int64_t> pinned;  // seqs, best first
  std::vector<std::int64_t> contested_first;  // up to kContestLimit × 2 contested seqs, best first
  int pending = 0;
  int contested = 0;
};

ReviewStates ScanReviewStates(const Env& env, const Viewer& viewer, std::int64_t now) {
  sdk::CachedStatement q = env.Stmt(
      "SELECT m.seq, m.status FROM semantic_memories m "
      "WHERE m.status IN ('pinned', 'pending', 'contested') AND (m.expires_at IS NULL OR m.expires_at > ?1) "
      "AND " + InViewerScopeSql("?2") + " "
      "ORDER BY m.status = 'pinned' DESC, m.importance DESC, m.updated_at DESC");
  sdk::Bind(*q, now, viewer.project_id);
  ReviewStates out;
  while (q->executeStep()) {
    const std::string status = q->getColumn(1).getString();
    if (status == "pinned") {
      if (out.pinned.size() < static_cast<std::size_t>(kPinnedLimit)) out.pinned.push_back(q->getColumn(0).getInt64());
    } else if (status == "pending") {
      ++out.pending;
    } else {
      if (out.contested_first.size() < 2 * static_cast<std::size_t>(kContestLimit)) {
        out.contested_first.push_back(q->getColumn(0).getInt64());
      }
      ++out.contested;
    }
  }
  q->reset();
  return out;
}

// A contested memory is never injected as a fact, but its contest is, as one line naming
// both sides and what settles it: an agent that only saw "withheld: 2 contested" did not
// know what was in dispute. Adds at most kContestLimit lines; `shown` collects the
// contested memories named (both sides), so a pair shows once.
void AddContests(const Env& env, const std::vector<std::int64_t>& contested, sdk::ContextContribution& out,
                 std::set<std::int64_t>& shown) {
  int lines = 0;
  for (const std::int64_t seq : contested) {
    if (lines >= kContestLimit || shown.count(seq) > 0) continue;
    const std::optional<Memory> m = LoadMemoryBySeq(env.db, seq);
    if (!m || m->status != "contested") continue;
    const std::vector<RivalNote> rivals = OpenRivals(env, seq);
    if (rivals.empty()) continue;  // contested by a pinned memory of its subject: counted only
    const RivalNote& r = rivals.front();
    const std::optional<Memory> other = LoadMemoryById(env.db, r.id);
    // Newer side first, marked, as the pair's reason reads ("weekday: mondays vs fridays").
    std::string newer = "\"" + Preview(m->text, 100) + "\" (" + m->id;
    std::string older = "\"" + Preview(r.text, 100) + "\" (" + r.id + ")";
    if (other && other->seq > m->seq) {
      newer = "\"" + Preview(r.text, 100) + "\" (" + r.id;
      older = "\"" + Preview(m->text, 100) + "\" (" + m->id + ")";
    }
    newer += ", newer)";
    out.items.push_back({m->kind, "contested",
                         newer + " vs " + older + ": " + r.reason + "; confirm one with memory_edit status \"active\", or ask",
                         kContestPriority});
    ++lines;
    shown.insert(seq);
    if (other && other->status == "contested") shown.insert(other->seq);
  }
}

// Active memories in the viewer's scope, counted up to kCountCap (a bounded scan: ~2 ms per
// 10,000 rows); kCountCap means at least that many.
constexpr int kCountCap = 10'000;
int CountActive(const Env& env, const Viewer& viewer, std::int64_t now) {
  sdk::CachedStatement q = env.Stmt(
      "SELECT count(*) FROM (SELECT 1 FROM semantic_memories m WHERE m.status = 'active' "
      "AND (m.expires_at IS NULL OR m.expires_at > ?1) AND " + InViewerScopeSql("?2") + " "
      "LIMIT " + std::to_string(kCountCap) + ")");
  sdk::Bind(*q, now, viewer.project_id);
  q->executeStep();
  const int n = q->getColumn(0).getInt();
  q->reset();
  return n;
}

void AddWithheld(sdk::ContextContribution& c, int pending, int contested, std::size_t contradicted, int stale = 0,
                 int unconfirmed = 0) {
  if (pending > 0) c.withheld.push_back({"pending review (kioku review)", pending});
  if (unconfirmed > 0) c.withheld.push_back({"more unconfirmed (kioku review)", unconfirmed});
  if (stale > 0) c.withheld.push_back({"stale", stale});
  if (contested > 0) c.withheld.push_back({"contested", contested});
  if (contradicted > 0) c.withheld.push_back({"contradicted by an anchor", static_cast<int>(contradicted)});
}

// Active, unpinned memories whose decayed confidence fell below housekeeping.stale_below.
int CountStale(const Env& env, const Viewer& viewer, std::int64_t now) {
  sdk::CachedStatement q = env.Stmt(
      "SELECT COUNT(*) FROM semantic_memories m JOIN semantic_memory_decay d ON d.memory_seq = m.seq "
      "WHERE m.status = 'active' AND d.confidence < ?3 AND d.ref_at >= m.updated_at "
      "AND (m.expires_at IS NULL OR m.expires_at > ?1) AND " + InViewerScopeSql("?2"));
  sdk::Bind(*q, now, viewer.project_id, env.settings.housekeeping.stale_below);
  q->executeStep();
  const int n = q->getColumn(0).getInt();
  q->reset();
  return n;
}

}  // namespace

bool RelevantToPrompt(std::string_view query, std::string_view memory_text) {
  const std::vector<std::string> stems = ContentStems(query);
  if (stems.empty()) return false;
  const std::string haystack = AsciiLower(memory_text);
  std::size_t hits = 0;
  for (const std::string& s : stems) {
    // A stem must start a word of the memory.
    for (std::size_t pos = haystack.find(s); pos != std::string::npos; pos = haystack.find(s, pos + 1)) {
      const auto before = pos == 0 ? ' ' : static_cast<unsigned char>(haystack[pos - 1]);
      if (pos == 0 || !(std::isalnum(before) || before >= 0x80)) {
        ++hits;
        break;
      }
    }
  }
  return hits >= std::min<std::size_t>(2, stems.size());
}

sdk::ContextContribution ProvideContext(ToolContext& ctx, const sdk::ContextRequest& request) {
  Env env = ctx.MakeEnv();
  const Viewer viewer = ViewerOf(request.caller);
  const int limit = static_cast<int>(std::max<std::size_t>(request.max_items, 1));
  sdk::ContextContribution out;

  if (request.query.empty()) {
    const ReviewStates states = ScanReviewStates(env, viewer, request.now_ms);
    std::size_t contradicted = 0;
    const AnchorDeadline anchor_deadline = AnchorDeadline::ForOneRecall();
    for (const std::int64_t seq : states.pinned) {
      std::optional<Memory> m = LoadMemoryBySeq(env.db, seq);
      if (!m) continue;
      RecalledMemory rm;
      if (!m->anchor.empty()) {
        rm.anchor_verdict = EvaluateAnchor(m->anchor, viewer.project_root, request.now_ms, anchor_deadline);
        if (rm.anchor_verdict == "contradicted") {
          ++contradicted;
          continue;
        }
      }
      rm.memory = std::move(*m);
      out.items.push_back({rm.memory.kind, "pinned", ItemText(rm), 1.0});
    }

    // The best confirmed memories by recency and importance; a session start needs the
    // top of the list, not all that the budget could hold.
    RecallRequest top;
    top.statuses = {"active"};
    top.limit = std::clamp(limit - static_cast<int>(out.items.size()), 1, kTopLimit);
    const RecallOutcome t = Recall(env, top, viewer);
    for (std::size_t i = 0; i < t.memories.size(); ++i) {
      if (t.memories[i].trust == "outdated") continue;  // built on memories since superseded
      out.items.push_back({t.memories[i].memory.kind, t.memories[i].trust, ItemText(t.memories[i]), RankPriority(i)});
    }
    std::set<std::int64_t> contests_shown;  // both sides of a pair are in this scope
    AddContests(env, states.contested_first, out, contests_shown);
    const int stale = CountStale(env, viewer, request.now_ms);
    AddWithheld(out, states.pending, states.contested - static_cast<int>(contests_shown.size()),
                contradicted + t.contradicted.size(), stale);
    // The active memories the top list left out, so the footer does not read as everything
    // known (recall reaches them).
    const int active = CountActive(env, viewer, request.now_ms);
    if (const int more = active - static_cast<int>(t.memories.size()) - stale; more > 0) {
      out.withheld.push_back({active >= kCountCap ? "or more memories" : "more memories", more});
    }
    return out;
  }

  RecallRequest r;
  r.query = std::string(sdk::TruncateUtf8(request.query, kMaxQueryChars, ""));
  r.limit = limit;
  RecallOutcome found;
  try {
    found = Recall(env, r, viewer);
  } catch (const sdk::ToolError&) {
    return out;  // the prompt has no searchable word
  }
  int pending = 0, contested = 0;
  std::vector<std::int64_t> contested_seqs;
  std::size_t rank = 0;
  for (const RecalledMemory& rm : found.memories) {
    const Memory& m = rm.memory;
    const bool relevant = rm.ranks.count("entity") > 0 ||
                          RelevantToPrompt(request.query, m.text + " " + m.subject + " " + m.value);
    if (!relevant) continue;
    if (rm.status == "pending") {
      ++pending;
    } else if (rm.status == "contested") {
      ++contested;
      contested_seqs.push_back(m.seq);
    } else if ((rm.status == "active" || rm.status == "pinned") && rm.trust != "outdated") {
      out.items.push_back({m.kind, rm.trust == "derived" ? "derived" : rm.status == "pinned" ? "pinned" : "confirmed",
                           ItemText(rm), RankPriority(rank++)});
    }
  }
  std::set<std::int64_t> contests_shown;
  AddContests(env, contested_seqs, out, contests_shown);
  contested -= static_cast<int>(std::count_if(contested_seqs.begin(), contested_seqs.end(),
                                              [&](std::int64_t s) { return contests_shown.count(s) > 0; }));
  // Recall itself held back unconfirmed matches (pending or contested) beyond its display
  // cap; counted apart, since they are not all pending.
  AddWithheld(out, pending, contested, found.contradicted.size(), 0, found.withheld);
  return out;
}

}  // namespace kioku::semantic
