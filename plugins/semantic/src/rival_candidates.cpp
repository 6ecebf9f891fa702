#include "rival_candidates.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "index_terms.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/sql.hpp"
#include "memory_store.hpp"
#include "rival_cache.hpp"

namespace kioku::semantic {
namespace {

// Pieces of a search word as the text index tokenizes them (unicode61 splits on ASCII
// punctuation): "src/auth/file5.ts" → src, auth, file5, ts. One single-token lookup per
// piece instead of a phrase: a phrase walks the doclists of all its tokens ("src", "ts"
// are in every row of a code store), a token reads only its own.
std::vector<std::string> IndexTokens(const std::string& word) {
  std::vector<std::string> out;
  std::string piece;
  for (char c : word + " ") {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u)) {
      piece += c;
    } else if (!piece.empty()) {
      out.push_back(std::move(piece));
      piece.clear();
    }
  }
  return out;
}

// Rows matching one token, ascending, once per batch. A category word: its newest
// scan_limit + 1 rows (used however many there are). Any other token: all its rows, or
// `common` past scan_limit — what RivalCache::postings keeps of it plus the rows added since
// (rowid > through), so a process reads a token's rows once, not in every write. What the
// write itself added may still roll back, so only rows up to RivalScan::committed are kept.
const TokenRows& Postings(const Env& env, RivalScan& memo, const std::string& token, bool newest) {
  auto [it, fresh] = memo.postings.try_emplace((newest ? "+" : "-") + token);
  TokenRows& out = it->second;
  if (!fresh) return out;
  const auto scan = static_cast<std::size_t>(env.settings.recall.scan_limit);
  if (newest) {
    sdk::CachedStatement q =
        env.Stmt("SELECT rowid FROM semantic_fts WHERE semantic_fts MATCH ? ORDER BY rowid DESC LIMIT ?");
    sdk::Bind(*q, sdk::QuoteFtsToken(token), static_cast<std::int64_t>(scan + 1));
    while (q->executeStep()) out.rows.push_back(q->getColumn(0).getInt64());
    std::reverse(out.rows.begin(), out.rows.end());
    return out;
  }
  PostingsCache::Entry kept = env.rivals != nullptr ? env.rivals->postings.Find(token) : PostingsCache::Entry{};
  if (kept.common) {
    out.common = true;
    return out;
  }
  out.rows = std::move(kept.rows);
  const auto term = memo.tokenizer ? memo.tokenizer->QueryTerm(token) : std::nullopt;
  if (term && (kept.through == memo.committed || env.rivals->terms.Lacks(TermFilter::Hash(*term), memo.committed))) {
    // The kept rows are all the committed ones (a write keeps its token rows whole once it
    // has committed: KeepScan), or no row before this write holds the term: its rows past
    // `through` are the write's own.
    if (const auto own = memo.own_terms.find(*term); own != memo.own_terms.end()) {
      for (const std::int64_t seq : own->second) {
        if (seq > kept.through && out.rows.size() <= scan) out.rows.push_back(seq);
      }
    }
  } else {
    sdk::CachedStatement q = env.Stmt("SELECT rowid FROM semantic_fts WHERE semantic_fts MATCH ? AND rowid > ? LIMIT ?");
    sdk::Bind(*q, sdk::QuoteFtsToken(token), kept.through, static_cast<std::int64_t>(scan + 1 - out.rows.size()));
    while (q->executeStep()) out.rows.push_back(q->getColumn(0).getInt64());
  }
  out.common = out.rows.size() > scan;
  if (env.rivals == nullptr || memo.committed <= 0) return out;
  PostingsCache::Entry keep;
  if (out.common) {
    if (out.rows[scan] > memo.committed) return out;  // common only counting this write's rows
    keep.common = true;
  } else {
    keep.through = std::max(kept.through, memo.committed);
    keep.rows.assign(out.rows.begin(), std::upper_bound(out.rows.begin(), out.rows.end(), memo.committed));
  }
  env.rivals->postings.Put(token, std::move(keep));
  return out;
}

// The columns rival detection reads (kind, scope and status filter candidates; text,
// subject and value make the profile; id and status go into pairs and history), beginning
// as MemoryColumns() does (ReadMemoryHead).
const std::string& RivalColumns() {
  static const std::string columns = "m.seq, m.own_id, m.kind, m.text, m.subject, m.value, m.status, m.scope, " +
                                     KeyTextSql("m.project_key") + ", m.path, m.expires_at, m.captured_at, m.id_nonce";
  return columns;
}

Memory ReadRivalSide(SQLite::Statement& q) {
  Memory m = ReadMemoryHead(q, 11, 12);
  m.status = q.getColumn(6).getString();
  m.scope.kind = q.getColumn(7).getString();
  m.scope.project_id = q.getColumn(8).getString();
  m.scope.path = q.getColumn(9).getString();
  m.expires_at = q.getColumn(10).isNull() ? 0 : q.getColumn(10).getInt64();
  return m;
}

// What tells a memory from another at the same seq in a store restored or replaced under
// the process (TermFilter::Covers, RivalCache::Anchor): its id, which is computed from its
// time and seq (two stores can give one seq at the same millisecond), and its content hash.
std::string RowKey(const std::string& id, std::int64_t dedup_hash) { return id + "#" + std::to_string(dedup_hash); }

// RowKey of the memory at `seq` in the store ("" when there is none).
std::string RowKeyAt(const Env& env, std::int64_t seq) {
  sdk::CachedStatement q =
      env.Stmt("SELECT own_id, captured_at, id_nonce, dedup_hash FROM semantic_memories WHERE seq = ?");
  sdk::Bind(*q, seq);
  if (!q->executeStep()) return "";
  return RowKey(MemoryId(q->getColumn(0).getString(), q->getColumn(1).getInt64(), q->getColumn(2).getInt64(), seq),
                q->getColumn(3).getInt64());
}

// When Env::rivals->terms covers the rows before this write (building it first when it is
// due): the tokenizer, with which ReadOwnRows collects the terms of the write's own rows
// (seq > committed), which the filter does not hold yet. `committed_id`: RowKey of the
// newest memory before this write ("" in an empty store).
void UseTermFilter(const Env& env, RivalScan& scan, const std::string& committed_id) {
  TermFilter& filter = env.rivals->terms;
  filter.Sync(scan.epochs.text);
  if (!filter.Covers(scan.committed, committed_id)) {
    const std::int64_t own = scan.rows - scan.committed;
    if (!TermFilter::BuildDue(scan.rows, env.rivals->written.load() - env.rivals->written_at_build.load(), own)) return;
    env.rivals->written_at_build = env.rivals->written.load() + own;
    env.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.semantic_fts_terms USING fts5vocab(main, semantic_fts, row)");
    std::vector<std::uint64_t> hashes;
    SQLite::Statement q(env.db, "SELECT term FROM temp.semantic_fts_terms");
    while (q.executeStep()) {
      const SQLite::Column term = q.getColumn(0);
      hashes.push_back(TermFilter::Hash(std::string_view(static_cast<const char*>(term.getBlob()),
                                                         static_cast<std::size_t>(term.getBytes()))));
    }
    // The vocabulary holds this write's terms too (Finish indexed its rows): a superset.
    filter.Reset(std::move(hashes), scan.committed, committed_id);
  }
  scan.tokenizer = std::make_shared<IndexTokenizer>(env.db.getHandle());
}

// The write's own rows (seq > committed), which the batch's DetectRivals calls read first:
// one range read instead of a point read each (~19,000 instructions a memory, 4% of a
// batch write of 100). Nothing else writes while the write holds the lock, and a status it
// changes later goes through these copies (DetectRivals), so they stay current. With the
// term filter in use (scan.tokenizer), the same read collects the rows' terms from the
// columns MemoryWriter::Finish indexes (text, subject, value, tags).
void ReadOwnRows(const Env& env, RivalScan& scan) {
  sdk::CachedStatement q = env.Stmt(std::string("SELECT ") + RivalColumns() +
                                    ", m.tags, m.dedup_hash FROM semantic_memories m WHERE m.seq > ? ORDER BY m.seq");
  sdk::Bind(*q, scan.committed);
  std::vector<std::string> terms;
  while (q->executeStep()) {
    Memory m = ReadRivalSide(*q);
    scan.newest_id = RowKey(m.id, q->getColumn(14).getInt64());
    if (scan.tokenizer) {
      terms.clear();
      for (const std::string* column : {&m.text, &m.subject, &m.value}) scan.tokenizer->Terms(*column, terms);
      scan.tokenizer->Terms(q->getColumn(13).getString(), terms);
      for (std::string& t : terms) {
        std::vector<std::int64_t>& rows = scan.own_terms[std::move(t)];
        if (rows.empty() || rows.back() != m.seq) rows.push_back(m.seq);
      }
    }
    const std::int64_t seq = m.seq;
    scan.memories.try_emplace(seq, std::move(m));
  }
}

// The memory at `seq` as rival detection reads it, from the store.
std::optional<Memory> ReadSide(const Env& env, std::int64_t seq) {
  sdk::CachedStatement q = env.Stmt(std::string("SELECT ") + RivalColumns() + " FROM semantic_memories m WHERE m.seq = ?");
  sdk::Bind(*q, seq);
  if (!q->executeStep()) return std::nullopt;
  return ReadRivalSide(*q);
}

// Reads what the scan is measured against, once: the newest seq and the epochs. Env::rivals
// is kept only while its anchor row is still in the store as it was: a store restored under
// the process from another history can keep its newest seq and its epochs, and then the
// kept rows, token rows and terms are another store's, so all of it goes. The anchor is
// mostly the newest row before this write, which the term filter checks too: one read.
void BeginScan(const Env& env, RivalScan& scan) {
  if (scan.rows != 0) return;
  scan.rows = std::max<std::int64_t>(1, MaxMemorySeq(env));
  scan.epochs = ReadRowEpochs(env.db);
  if (env.rivals != nullptr) {
    env.rivals->DropIfShrunk(scan.rows);
    const auto [anchor, anchor_key] = env.rivals->AnchorRow();
    std::optional<std::string> committed_id;
    if (anchor != 0) {
      std::string now = RowKeyAt(env, anchor);
      if (now != anchor_key) env.rivals->Drop();
      if (anchor == scan.committed) committed_id = std::move(now);
    }
    env.rivals->postings.Sync(scan.epochs.text);
    if (scan.own_rows_above_committed) UseTermFilter(env, scan, committed_id ? *committed_id : RowKeyAt(env, scan.committed));
  }
  if (scan.own_rows_above_committed) ReadOwnRows(env, scan);
}

}  // namespace

void SealScan(const Env& env, RivalScan& scan) { scan.sealed = ReadRowEpochs(env.db); }

void KeepScan(const Env& env, const RivalScan& scan) {
  if (env.rivals == nullptr || !scan.sealed) return;
  env.rivals->written += std::max<std::int64_t>(0, scan.rows - scan.committed);
  if (scan.tokenizer) {
    std::vector<std::uint64_t> hashes;
    hashes.reserve(scan.own_terms.size());
    for (const auto& [term, rows] : scan.own_terms) hashes.push_back(TermFilter::Hash(term));
    env.rivals->terms.Extend(scan.committed, scan.rows, scan.newest_id, std::move(hashes));
  }
  // The write's own rows too, with its newest row as the anchor that tells whether a later
  // store is this one: it has committed, and a status it changed went through these copies.
  // The next batch's candidates are mostly this one's rows (900 point reads of 1,000 batch
  // writes, 3% of their instructions, before they were kept). Without its newest row read,
  // only the rows that were committed before it are kept, as then.
  const bool anchored = !scan.newest_id.empty();
  if (anchored) env.rivals->Anchor(scan.rows, scan.newest_id);
  std::vector<const Memory*> rows;
  for (const auto& [seq, m] : scan.memories) {
    if (m && (anchored || seq <= scan.committed)) rows.push_back(&*m);
  }
  env.rivals->sides.Publish(*scan.sealed, rows);
  if (!anchored) return;
  // The token rows it looked up, its own rows among them: whole up to its newest row now
  // that it has committed, so the next write answers them without a query (Postings). At
  // 1,000 batch writes that was 301 FTS5 queries, 4% of the instructions.
  std::vector<std::pair<std::string, PostingsCache::Entry>> whole;
  whole.reserve(scan.postings.size());
  for (const auto& [key, found] : scan.postings) {
    if (key.empty() || key.front() != '-') continue;  // '+': a category word's newest rows
    PostingsCache::Entry keep;
    keep.common = found.common;
    if (!found.common) {
      keep.rows = found.rows;
      keep.through = scan.rows;
    }
    whole.emplace_back(key.substr(1), std::move(keep));
  }
  env.rivals->postings.PutAllAt(scan.sealed->text, std::move(whole));
}

Memory* RivalSide(const Env& env, RivalScan& scan, std::int64_t seq) {
  BeginScan(env, scan);
  auto [it, fresh] = scan.memories.try_emplace(seq);
  if (fresh && env.rivals != nullptr && seq <= scan.committed) it->second = env.rivals->sides.Find(seq, scan.epochs);
  if (fresh && !it->second) it->second = ReadSide(env, seq);
  return it->second ? &*it->second : nullptr;
}

const TopicProfile& ProfileOf(const Env& env, RivalScan& scan, const Memory& m) {
  std::shared_ptr<const TopicProfile>& held = scan.profiles[m.seq];
  if (held) return *held;
  if (env.rivals != nullptr) held = env.rivals->profiles.Find(m.seq, m.text, m.subject, m.value);
  if (!held) {
    held = std::make_shared<const TopicProfile>(BuildTopicProfile(m.text, m.subject, m.value));
    if (env.rivals != nullptr) env.rivals->profiles.Put(m.seq, m.text, m.subject, m.value, held);
  }
  return *held;
}

std::vector<Memory*> RivalCandidates(const Env& env, RivalScan& memo, const Memory& m, const RivalTerms& terms) {
  BeginScan(env, memo);
  // Each proposing token's older rows (ascending) with its idf, in proposal order.
  struct Proposal {
    std::vector<std::int64_t>::const_iterator begin, end;
    double idf;
  };
  std::vector<Proposal> proposals;
  std::size_t postings = 0;
  std::int64_t low = m.seq, high = 0;
  std::set<std::string> seen;
  const auto propose = [&](const std::string& word, bool always) {
    for (const std::string& token : IndexTokens(word)) {
      if (!seen.insert(token).second) continue;
      const TokenRows& posting = Postings(env, memo, token, always);
      if (posting.rows.empty() || (posting.common && !always)) continue;
      // Older only: a batch pairs as one call at a time would.
      const auto end = std::lower_bound(posting.rows.begin(), posting.rows.end(), m.seq);
      if (end == posting.rows.begin()) continue;
      const double idf = std::log1p(static_cast<double>(memo.rows) / static_cast<double>(posting.rows.size()));
      proposals.push_back({posting.rows.begin(), end, idf});
      postings += static_cast<std::size_t>(end - posting.rows.begin());
      low = std::min(low, posting.rows.front());
      high = std::max(high, *(end - 1));
    }
  };
  for (const std::string& t : terms.category) propose(t, true);
  for (const std::string& t : terms.words) propose(t, false);
  // (summed idf, seq) per proposed row, each sum added in proposal order. Rows close together
  // (a young store, or tokens of one era) add into a dense array over [low, high]; rows spread
  // thin are sorted by seq, stably, so equal seqs keep proposal order.
  if (proposals.empty()) return {};
  std::vector<std::pair<double, std::int64_t>> ranked;
  const auto span = static_cast<std::size_t>(high - low + 1);
  if (span <= 8 * postings) {
    std::vector<double> score(span, 0.0);
    for (const Proposal& p : proposals) {
      for (auto r = p.begin; r != p.end; ++r) score[static_cast<std::size_t>(*r - low)] += p.idf;
    }
    for (std::size_t i = 0; i < span; ++i) {
      if (score[i] > 0) ranked.emplace_back(score[i], low + static_cast<std::int64_t>(i));
    }
  } else {
    std::vector<std::pair<std::int64_t, double>> hits;  // (seq, idf)
    hits.reserve(postings);
    for (const Proposal& p : proposals) {
      for (auto r = p.begin; r != p.end; ++r) hits.emplace_back(*r, p.idf);
    }
    std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [seq, idf] : hits) {
      if (!ranked.empty() && ranked.back().second == seq) {
        ranked.back().first += idf;
      } else {
        ranked.emplace_back(idf, seq);
      }
    }
  }
  const auto better = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  };
  const std::size_t read = std::min(ranked.size(), 4 * kMaxCandidates);
  const auto top = ranked.begin() + static_cast<std::ptrdiff_t>(read);
  std::nth_element(ranked.begin(), top, ranked.end(), better);
  std::sort(ranked.begin(), top, better);
  const std::int64_t now = env.clock.NowMs();
  std::vector<Memory*> out;
  for (std::size_t i = 0; i < read && out.size() < kMaxCandidates; ++i) {
    Memory* r = RivalSide(env, memo, ranked[i].second);
    if (r == nullptr || r->kind != m.kind || r->scope.kind != m.scope.kind ||
        r->scope.project_id != m.scope.project_id || r->scope.path != m.scope.path) {
      continue;
    }
    // A pending suggestion is a candidate of a confirmed newcomer (the pair waits in review,
    // so confirming the suggestion later supersedes what contradicts it), not of another one.
    const bool live = r->status == "active" || r->status == "pinned" || r->status == "contested" ||
                      (r->status == "pending" && m.status != "pending");
    if (!live) continue;
    if (r->expires_at != 0 && r->expires_at <= now) continue;
    out.push_back(r);
  }
  return out;
}

}  // namespace kioku::semantic
