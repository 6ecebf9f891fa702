#include "consolidate.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <set>
#include <unordered_map>

#include "keys.hpp"
#include "kioku/sdk/sql.hpp"
#include "review_store.hpp"
#include "rivals.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {
namespace {

constexpr int kBands = 16;
constexpr int kRows = 2;
constexpr int kHashes = kBands * kRows;

std::uint64_t Mix(std::uint64_t x) {  // splitmix64 finalizer (Steele, Lea & Flood 2014)
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t Fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

struct Item {
  Memory memory;
  TopicProfile profile;
  SortedWords tokens;
};

SortedWords Tokens(const TopicProfile& p) {
  SortedWords t = p.terms;
  for (const std::string& v : p.values) t.push_back("=" + v);
  for (const CategoryMembers& c : p.mentioned) {
    for (const std::string& m : c.members) t.push_back("=" + m);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t Find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void Join(std::size_t a, std::size_t b) { parent[Find(a)] = Find(b); }
};

// Better keeper first: pinned, then more confident, then newer.
bool BetterKeeper(const Memory& a, const Memory& b) {
  if ((a.status == "pinned") != (b.status == "pinned")) return a.status == "pinned";
  if (a.confidence != b.confidence) return a.confidence > b.confidence;
  if (a.captured_at != b.captured_at) return a.captured_at > b.captured_at;
  return a.seq > b.seq;
}

}  // namespace

ConsolidateReport Consolidate(const Env& env, const Viewer& viewer, const ConsolidateOptions& o,
                              const std::string& agent_id) {
  ConsolidateReport report;
  std::vector<Item> items;
  {
    sdk::SqlWhere w;
    w.Raw("m.status IN ('active','pinned')")
        .Raw("(m.expires_at IS NULL OR m.expires_at > ?)", {env.clock.NowMs()})
        .Raw(InViewerScopeSql("?"), {viewer.project_id, viewer.project_id});
    if (!o.kind.empty()) w.Equal("m.kind", o.kind);
    SQLite::Statement q(env.db, std::string("SELECT ") + MemoryColumns() + " FROM semantic_memories m" + w.Sql() +
                                    " ORDER BY m.seq");
    sdk::BindAll(q, w.Values());
    while (q.executeStep()) {
      Item it;
      it.memory = ReadMemory(q);
      it.profile = BuildTopicProfile(it.memory.text, it.memory.subject, it.memory.value);
      it.tokens = Tokens(it.profile);
      if (!it.tokens.empty()) items.push_back(std::move(it));
    }
  }
  report.memories = static_cast<int>(items.size());

  // LSH buckets keyed by (kind, scope binding, band, band signature).
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> buckets;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Memory& m = items[i].memory;
    const std::uint64_t group = Fnv(m.kind + '\x1f' + m.scope.kind + '\x1f' + m.scope.project_id + '\x1f' + m.scope.path);
    std::array<std::uint64_t, kHashes> sig;
    sig.fill(UINT64_MAX);
    for (const std::string& t : items[i].tokens) {
      const std::uint64_t base = Fnv(t);
      for (int h = 0; h < kHashes; ++h) sig[h] = std::min(sig[h], Mix(base ^ (0x51ed270b7f4a7c15ULL * (h + 1))));
    }
    for (int b = 0; b < kBands; ++b) {
      std::uint64_t key = Mix(group ^ static_cast<std::uint64_t>(b));
      for (int r = 0; r < kRows; ++r) key = Mix(key ^ sig[b * kRows + r]);
      buckets[key].push_back(i);
    }
  }
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (const auto& [key, members] : buckets) {
    (void)key;
    // A bucket this large holds near-identical boilerplate; its pairs are still bounded.
    const std::size_t n = std::min<std::size_t>(members.size(), 200);
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = a + 1; b < n; ++b) pairs.emplace(std::min(members[a], members[b]), std::max(members[a], members[b]));
    }
  }
  report.candidate_pairs = static_cast<int>(pairs.size());
  UnionFind uf(items.size());
  for (const auto& [a, b] : pairs) {
    const Item& x = items[a];
    const Item& y = items[b];
    if (x.memory.kind != y.memory.kind || x.memory.scope.kind != y.memory.scope.kind ||
        x.memory.scope.project_id != y.memory.scope.project_id || x.memory.scope.path != y.memory.scope.path) {
      continue;  // band-key collision across groups
    }
    if (TermJaccard(x.tokens, y.tokens) < o.threshold) continue;
    if (ClassifyPair(x.profile, y.profile).kind == PairKind::kRival) continue;
    if (!x.memory.subject.empty() && !y.memory.subject.empty() && x.memory.subject != y.memory.subject) continue;
    uf.Join(a, b);
  }
  std::unordered_map<std::size_t, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < items.size(); ++i) groups[uf.Find(i)].push_back(i);
  for (auto& [root, members] : groups) {
    (void)root;
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end(),
              [&](std::size_t a, std::size_t b) { return BetterKeeper(items[a].memory, items[b].memory); });
    Cluster c;
    c.keep = items[members.front()].memory.id;
    for (std::size_t i : members) {
      c.members.push_back(items[i].memory.id);
      c.texts.push_back(Preview(items[i].memory.text, 80));
    }
    for (std::size_t i : members) c.has_pinned = c.has_pinned || items[i].memory.status == "pinned";
    if (o.apply) {
      std::vector<Memory> rest;
      for (std::size_t k = 1; k < members.size(); ++k) rest.push_back(items[members[k]].memory);
      report.superseded += SupersedeInto(env, c.keep, rest, agent_id, "restates " + c.keep + "; superseded by it");
    }
    report.clusters.push_back(std::move(c));
  }
  std::sort(report.clusters.begin(), report.clusters.end(), [](const Cluster& a, const Cluster& b) {
    return a.members.size() != b.members.size() ? a.members.size() > b.members.size() : a.keep < b.keep;
  });
  return report;
}

int SupersedeInto(const Env& env, const std::string& keeper_id, const std::vector<Memory>& members,
                  const std::string& agent_id, const std::string& detail) {
  int superseded = 0;
  for (const Memory& m : members) {
    if (m.id == keeper_id) continue;
    sdk::CachedStatement q = env.Stmt(
        "UPDATE semantic_memories SET prior_status = status, status = 'superseded', "
        "superseded_at = ?, superseded_by = ? WHERE seq = ? AND status = 'active'");
    sdk::Bind(*q, env.clock.NowMs(), keeper_id, m.seq);
    if (q->exec() == 0) continue;
    AddHistory(env, m.id, "consolidated", agent_id, detail);
    ++superseded;
  }
  return superseded;
}

}  // namespace kioku::semantic
