#include "memory_store.hpp"

#include <algorithm>

#include "entities.hpp"
#include "entity_store.hpp"
#include "index_lag.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/sql.hpp"
#include "normalize.hpp"

namespace kioku::semantic {
namespace {

constexpr const char* kLiveStatuses = "('active','pinned','pending','contested')";

bool SameKey(const Memory& m, const MemoryDraft& d) {
  return m.kind == d.kind && m.scope.kind == d.scope.kind &&
         m.scope.project_id == d.scope.project_id && m.scope.path == d.scope.path &&
         m.subject == d.subject && NormalizeText(m.value) == NormalizeText(d.value) &&
         NormalizeText(m.text) == NormalizeText(d.text);
}

}  // namespace

std::int64_t DedupHash(const std::string& kind, const Scope& scope, const std::string& subject,
                       const std::string& value, const std::string& text) {
  const std::string nv = NormalizeText(value);
  const std::string nt = NormalizeText(text);
  return KeyHash({kind, scope.kind, scope.project_id, scope.path, subject, nv, nt}) & kDedupHashMask;
}

void CutDedupHashes(SQLite::Database& db) {
  const std::string mask = std::to_string(kDedupHashMask);
  db.exec("UPDATE semantic_memories SET dedup_hash = dedup_hash & " + mask + " WHERE dedup_hash < 0 OR dedup_hash > " +
          mask);
}

// OR FAIL: the insert's own constraints cannot make it abort, so with the insert triggers of
// migration 19 it opens no statement journal (schema.cpp kJournalFreeInsertsSql). A failing
// insert changes nothing before its constraint checks, and any error rolls the whole write
// back (sdk::WithWriteTransaction).
const std::string kInsertSql =
    "INSERT OR FAIL INTO semantic_memories(kind, text, subject, value, tags, cjk, importance, "
    "confidence, status, source, source_ref, scope, project_key, path, anchor, expires_at, "
    "agent_key, session_key, captured_at, updated_at, dedup_hash, id_nonce) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
const std::string kFindSameSql = std::string("SELECT ") + MemoryColumns() +
                                 " FROM semantic_memories m WHERE m.dedup_hash = ? AND "
                                 "m.status IN " + kLiveStatuses +
                                 " ORDER BY (m.status = 'pending'), m.seq";
const std::string kRivalsSql = std::string("SELECT ") + MemoryColumns() +
                               " FROM semantic_memories m WHERE m.subject <> '' AND "
                               "m.subject = ? AND m.scope = ? AND m.project_key = ? AND "
                               "m.path = ? AND m.seq <> ? AND m.status IN " + kLiveStatuses;
const std::string kSupersedeSql =
    "UPDATE semantic_memories SET prior_status = status, status = 'superseded', "
    "superseded_at = ?, superseded_by = ? WHERE seq = ?";
const std::string kHistorySql =
    "INSERT INTO semantic_memory_history(memory_id, action, at, agent_id, detail, snapshot) "
    "VALUES (?,?,?,?,?,?)";
const std::string kMentionSql = "INSERT INTO temp.semantic_mentions VALUES (?, ?, ?, ?, ?)";
const std::string kTagSql =
    "INSERT OR IGNORE INTO semantic_memory_tags(tag, memory_seq) VALUES (?, ?)";

std::int64_t MaxMemorySeq(const Env& env) {
  sdk::CachedStatement q = env.Stmt("SELECT coalesce(max(seq), 0) FROM semantic_memories");
  q->executeStep();
  const std::int64_t seq = q->getColumn(0).getInt64();
  q->reset();
  return seq;
}

MemoryWriter::MemoryWriter(Env env) : env_(env) {
  memory_floor_ = MaxMemorySeq(env_);
}

void MemoryWriter::Finish() {
  if (added_) {
    FlushEntityLinks();
    for (const char* sql :
         {"INSERT INTO semantic_fts(rowid, text, subject, value, tags) SELECT seq, text, "
          "subject, value, tags FROM semantic_memories WHERE seq > ?",
          "INSERT INTO semantic_fts_cjk(rowid, cjk) SELECT seq, cjk FROM semantic_memories "
          "WHERE seq > ? AND cjk <> ''"}) {
      sdk::CachedStatement q = env_.Stmt(sql);
      sdk::Bind(*q, memory_floor_);
      q->exec();
    }
    // The word index, which every recall and rival lookup reads, merged a bounded step: up
    // to 64 pages (256 KB) on levels holding two segments (usermerge, schema.cpp); a large
    // merge goes on in the writes after. The substring and name indexes, read by fewer
    // queries, keep FTS5's own merging: merging them too cost 11% of a batch write at 1,000
    // memories.
    env_.Stmt("INSERT INTO semantic_fts(semantic_fts, rank) VALUES ('merge', 64)")->exec();
    memory_floor_ = MaxMemorySeq(env_);
    added_ = false;
  }
  // The substring and entity-name indexes (index_lag.hpp), also for entities this writer's
  // transaction made without a memory (an mcp-memory import's).
  SettleLaggingIndexes(env_, added_text_bytes_);
  added_text_bytes_ = 0;
}

void WithMemoryWriter(const Env& env, const std::function<void(MemoryWriter&)>& body) {
  sdk::WithWriteTransaction(env.db, [&] {
    MemoryWriter writer(env);
    body(writer);
    writer.Finish();
  });
}
MemoryWriter::~MemoryWriter() = default;

void MemoryWriter::History(const std::string& memory_id, const std::string& action,
                           const Author& author, const std::string& detail,
                           const std::string* snapshot) {
  sdk::CachedStatement q = env_.Stmt(kHistorySql);
  sdk::Bind(*q, memory_id, action, env_.clock.NowMs(), author.agent_id, detail);
  if (snapshot != nullptr) {
    q->bind(6, *snapshot);
  } else {
    q->bind(6);
  }
  q->exec();
}

void MemoryWriter::LinkEntities(std::int64_t seq, const std::string& text) {
  const std::int64_t now = env_.clock.NowMs();
  added_ = true;  // new entities may need indexing
  for (const EntityMention& e : ExtractEntities(text)) {
    if (!mentions_) {
      env_.db.exec(
          "CREATE TEMP TABLE IF NOT EXISTS semantic_mentions(memory_seq INTEGER, type_key INTEGER, name TEXT, "
          "norm_name TEXT, created_at INTEGER)");
      mentions_ = true;
    }
    // As EnsureEntity stores them: the name only where it differs from norm_name.
    SQLite::Statement& q = Held(kMentionSql);
    sdk::Bind(q, seq, keys_.Key(env_, e.type), e.name == e.norm ? std::string() : e.name, e.norm, now);
    q.exec();
  }
}

void MemoryWriter::FlushEntityLinks() {
  if (!mentions_) return;
  mentions_ = false;
  // In mention order; the first of two mentions of one entity names it. A mention of an
  // entity already there takes an AUTOINCREMENT seq all the same (SQLite gives the row its
  // seq before the conflict skips it), so seqs have gaps, as after a purge: unused, never
  // reused. Skipping those mentions first (NOT EXISTS, a lookup each, or a GROUP BY) cost
  // 5,000 to 12,000 instructions a mention.
  for (const char* sql :
       {"INSERT OR IGNORE INTO semantic_entities(type_key, name, norm_name, created_at) "
        "SELECT type_key, name, norm_name, created_at FROM temp.semantic_mentions ORDER BY rowid",
        "INSERT OR IGNORE INTO semantic_memory_entities(memory_seq, entity_seq) "
        "SELECT m.memory_seq, e.seq FROM temp.semantic_mentions m "
        "JOIN semantic_entities e ON e.norm_name = m.norm_name AND e.type_key = m.type_key",
        "DELETE FROM temp.semantic_mentions"}) {
    env_.Stmt(sql)->exec();
  }
}

SQLite::Statement& MemoryWriter::Held(const std::string& sql) {
  for (auto& [key, lease] : held_) {
    if (key == &sql) {
      lease->reset();
      return *lease;
    }
  }
  held_.emplace_back(&sql, env_.Stmt(sql));
  return *held_.back().second;
}

void MemoryWriter::WriteTags(std::int64_t seq, const std::vector<std::string>& tags) {
  for (const std::string& t : tags) {
    SQLite::Statement& q = Held(kTagSql);
    sdk::Bind(q, t, seq);
    q.exec();
  }
}

std::optional<Memory> MemoryWriter::FindSame(const MemoryDraft& d, std::int64_t hash) {
  SQLite::Statement& q = Held(kFindSameSql);
  sdk::Bind(q, hash);
  std::optional<Memory> found;
  while (q.executeStep()) {
    Memory m = ReadMemory(q);
    if (SameKey(m, d)) {
      found = std::move(m);
      break;
    }
  }
  q.reset();
  return found;
}

void MemoryWriter::ResolveSubject(Memory& m, const Author& author, bool force,
                                  std::vector<std::string>& replaced,
                                  std::vector<std::string>& conflicts) {
  if (m.subject.empty()) return;
  std::vector<Memory> rivals;
  {
    sdk::CachedStatement q = env_.Stmt(kRivalsSql);
    sdk::Bind(*q, m.subject, m.scope.kind, keys_.Key(env_, m.scope.project_id), m.scope.path, m.seq);
    const std::string value = NormalizeText(m.value);
    while (q->executeStep()) {
      Memory r = ReadMemory(*q);
      if (NormalizeText(r.value) != value) rivals.push_back(std::move(r));
    }
    q->reset();
  }
  if (rivals.empty()) return;
  if (m.status == "pending") {
    // A suggestion never overrides what was said; it waits for confirmation.
    for (const Memory& r : rivals) conflicts.push_back(r.id);
    return;
  }
  const bool pinned_rival =
      std::any_of(rivals.begin(), rivals.end(), [](const Memory& r) { return r.status == "pinned"; });
  if (pinned_rival && !force) {
    // A pinned memory is the user's explicit word: the newcomer is contested, not the winner.
    for (const Memory& r : rivals) conflicts.push_back(r.id);
    if (m.status != "contested") {
      SQLite::Statement q(env_.db, "UPDATE semantic_memories SET status = 'contested' WHERE seq = ?");
      sdk::Bind(q, m.seq);
      q.exec();
      m.status = "contested";
    }
    return;
  }
  const std::int64_t now = env_.clock.NowMs();
  for (const Memory& r : rivals) {
    sdk::CachedStatement q = env_.Stmt(kSupersedeSql);
    sdk::Bind(*q, now, m.id, r.seq);
    q->exec();
    History(r.id, "superseded", author,
            "by " + m.id + " (" + m.subject + " = " + m.value + ")");
    replaced.push_back(r.id);
  }
}

WriteResult MemoryWriter::Remember(const MemoryDraft& d, const Author& author) {
  const std::int64_t now = env_.clock.NowMs();
  const std::int64_t hash = DedupHash(d.kind, d.scope, d.subject, d.value, d.text);
  WriteResult result;

  if (std::optional<Memory> same = FindSame(d, hash)) {
    result.seq = same->seq;
    result.id = same->id;
    if (d.suggest) {
      result.action = "known";
      result.status = same->status;
      return result;
    }
    result.action = "reaffirmed";
    if (same->status == "pending") {
      // Saying a suggested memory explicitly confirms it.
      SQLite::Statement q(env_.db,
                          "UPDATE semantic_memories SET status = 'active', updated_at = ?, "
                          "confidence = max(confidence, ?), reaffirm_count = reaffirm_count + 1 "
                          "WHERE seq = ?");
      sdk::Bind(q, now, d.confidence, same->seq);
      q.exec();
      same->status = "active";
      History(same->id, "confirmed", author, "stated by memory_remember");
      ResolveSubject(*same, author, false, result.replaced, result.conflicts);
    } else {
      SQLite::Statement q(env_.db,
                          "UPDATE semantic_memories SET updated_at = ?, reaffirm_count = "
                          "reaffirm_count + 1, confidence = max(confidence, ?), importance = "
                          "max(importance, ?) WHERE seq = ?");
      sdk::Bind(q, now, d.confidence, d.importance, same->seq);
      q.exec();
      History(same->id, "reaffirmed", author, "");
    }
    result.status = same->status;
    return result;
  }

  Memory m;
  m.kind = d.kind;
  m.text = d.text;
  m.subject = d.subject;
  m.value = d.value;
  m.tags = d.tags;
  m.importance = d.importance;
  m.confidence = d.confidence;
  m.status = d.suggest ? "pending" : "active";
  m.source = d.source;
  m.source_ref = d.source_ref;
  m.scope = d.scope;
  m.anchor = d.anchor;
  m.expires_at = d.expires_at;
  m.agent_id = author.agent_id;
  m.session_id = author.session_id;
  m.captured_at = now;
  m.updated_at = now;

  SQLite::Statement& q = Held(kInsertSql);
  sdk::Bind(q,
            m.kind, m.text, m.subject, m.value, JoinTags(m.tags), CjkIndexTerms(m.text),
            m.importance, m.confidence, m.status, m.source, m.source_ref, m.scope.kind,
            keys_.Key(env_, m.scope.project_id), m.scope.path, m.anchor);
  if (m.expires_at != 0) {
    q.bind(16, m.expires_at);
  } else {
    q.bind(16);
  }
  q.bind(17, keys_.Key(env_, m.agent_id));
  q.bind(18, keys_.Key(env_, m.session_id));
  q.bind(19, m.captured_at);
  q.bind(20, m.updated_at);
  q.bind(21, hash);
  const std::int64_t nonce = MemoryNonce(m.agent_id, m.session_id, m.scope.project_id, m.text, m.captured_at);
  q.bind(22, nonce);
  q.exec();
  m.seq = env_.db.getLastInsertRowid();
  m.id = MemoryId("", m.captured_at, nonce, m.seq);
  added_ = true;
  added_text_bytes_ += static_cast<std::int64_t>(m.text.size());

  WriteTags(m.seq, m.tags);
  LinkEntities(m.seq, m.text);
  ResolveSubject(m, author, false, result.replaced, result.conflicts);

  result.seq = m.seq;
  result.id = m.id;
  result.status = m.status;
  result.action = result.replaced.empty() ? "remembered" : "superseded";
  return result;
}

EditResult MemoryWriter::Edit(const Memory& current, const MemoryEdit& e, const Author& author) {
  if (current.status == "superseded") {
    throw sdk::ToolError("memory " + current.id + " is superseded" +
                         (current.superseded_by.empty() ? std::string(" (forgotten)")
                                                        : " by " + current.superseded_by) +
                         "; edit the current memory instead, or remember a new one");
  }
  EditResult out;
  Memory m = current;
  const auto set = [&](auto& field, const auto& maybe, const char* name) {
    if (maybe && !(field == *maybe)) {
      field = *maybe;
      out.changed.emplace_back(name);
    }
  };
  set(m.text, e.text, "text");
  set(m.kind, e.kind, "kind");
  set(m.subject, e.subject, "subject");
  set(m.value, e.value, "value");
  set(m.tags, e.tags, "tags");
  set(m.importance, e.importance, "importance");
  set(m.confidence, e.confidence, "confidence");
  set(m.expires_at, e.expires_at, "expires");
  set(m.anchor, e.anchor, "anchor");
  set(m.source_ref, e.source_ref, "source_ref");
  if (e.scope && (e.scope->kind != m.scope.kind || e.scope->project_id != m.scope.project_id ||
                  e.scope->path != m.scope.path)) {
    m.scope = *e.scope;
    out.changed.emplace_back("scope");
  }
  bool confirming = false;
  if (e.status && *e.status != m.status) {
    if (*e.status == "active" && m.status == "pinned") {
      throw sdk::ToolError("memory " + m.id + " is pinned; use memory_pin with pinned: false to make it active");
    }
    confirming = *e.status == "active";
    m.status = *e.status;
    out.changed.emplace_back("status");
  }
  if (m.subject.empty() && !m.value.empty()) {
    throw sdk::ToolError("a value needs a subject: send subject too, or value \"\" to clear it");
  }
  if (out.changed.empty()) {
    out.memory = m;
    return out;
  }
  const std::int64_t hash = DedupHash(m.kind, m.scope, m.subject, m.value, m.text);
  {
    MemoryDraft probe;
    probe.kind = m.kind;
    probe.scope = m.scope;
    probe.subject = m.subject;
    probe.value = m.value;
    probe.text = m.text;
    std::optional<Memory> same = FindSame(probe, hash);
    if (same && same->seq != m.seq) {
      throw sdk::ToolError("after this edit memory " + m.id + " would say exactly what memory " +
                           same->id + " says; forget one of them instead");
    }
  }
  // Rows added earlier in this transaction must be in FTS before the update trigger deletes
  // their old terms.
  Finish();
  const std::int64_t now = env_.clock.NowMs();
  m.updated_at = now;
  SQLite::Statement q(env_.db,
                      "UPDATE semantic_memories SET text = ?, kind = ?, subject = ?, value = ?, "
                      "tags = ?, cjk = ?, importance = ?, confidence = ?, scope = ?, "
                      "project_key = ?, path = ?, expires_at = ?, anchor = ?, source_ref = ?, "
                      "status = ?, updated_at = ?, dedup_hash = ? WHERE seq = ?");
  sdk::Bind(q,
            m.text, m.kind, m.subject, m.value, JoinTags(m.tags), CjkIndexTerms(m.text),
            m.importance, m.confidence, m.scope.kind, keys_.Key(env_, m.scope.project_id), m.scope.path);
  if (m.expires_at != 0) {
    q.bind(12, m.expires_at);
  } else {
    q.bind(12);
  }
  q.bind(13, m.anchor);
  q.bind(14, m.source_ref);
  q.bind(15, m.status);
  q.bind(16, now);
  q.bind(17, hash);
  q.bind(18, m.seq);
  q.exec();

  if (e.tags && m.tags != current.tags) {
    SQLite::Statement del(env_.db, "DELETE FROM semantic_memory_tags WHERE memory_seq = ?");
    sdk::Bind(del, m.seq);
    del.exec();
    WriteTags(m.seq, m.tags);
  }
  if (m.text != current.text) {
    FlushEntityLinks();
    SQLite::Statement del(env_.db, "DELETE FROM semantic_memory_entities WHERE memory_seq = ?");
    sdk::Bind(del, m.seq);
    del.exec();
    LinkEntities(m.seq, m.text);
  }
  std::string changed;
  for (const std::string& c : out.changed) changed += (changed.empty() ? "" : ",") + c;
  const std::string snapshot = sdk::DumpJson(MemoryToJson(current));
  History(m.id, confirming ? "confirmed" : "edited", author, changed, &snapshot);

  const bool key_changed = m.subject != current.subject || m.value != current.value ||
                           m.scope.kind != current.scope.kind ||
                           m.scope.project_id != current.scope.project_id ||
                           m.scope.path != current.scope.path;
  if (key_changed || confirming) {
    ResolveSubject(m, author, confirming, out.replaced, out.conflicts);
  }
  out.memory = m;
  return out;
}

bool MemoryWriter::Forget(const Memory& m, const Author& author) {
  if (m.status == "superseded") return false;
  SQLite::Statement q(env_.db,
                      "UPDATE semantic_memories SET prior_status = status, status = "
                      "'superseded', superseded_at = ? WHERE seq = ?");
  sdk::Bind(q, env_.clock.NowMs(), m.seq);
  q.exec();
  History(m.id, "forgotten", author, "was " + m.status);
  return true;
}

void MemoryWriter::Purge(const Memory& m, const Author& author) {
  Finish();  // the delete trigger removes FTS terms, so the row must be indexed first
  {
    // Memories it superseded keep their status but no longer name it: an id that names no
    // memory made every later edit of them fail with "superseded by <gone id>".
    SQLite::Statement q(env_.db, "UPDATE semantic_memories SET superseded_by = NULL WHERE superseded_by = ?");
    sdk::Bind(q, m.id);
    q.exec();
  }
  {
    SQLite::Statement q(env_.db, "DELETE FROM semantic_memory_history WHERE memory_id = ?");
    sdk::Bind(q, m.id);
    q.exec();
  }
  {
    SQLite::Statement q(env_.db, "DELETE FROM semantic_memories WHERE seq = ?");
    sdk::Bind(q, m.seq);
    q.exec();
  }
  // Names are content too: entities no memory links and no relation uses (this memory's,
  // and those its earlier versions named, whose text went with its history) are deleted,
  // so entity_graph cannot find "src/secret_plan.go" after its memory was purged.
  env_.db.exec(
      "DELETE FROM semantic_entities WHERE NOT EXISTS (SELECT 1 FROM semantic_memory_entities l WHERE "
      "l.entity_seq = semantic_entities.seq) AND NOT EXISTS (SELECT 1 FROM semantic_relations r WHERE "
      "r.from_seq = semantic_entities.seq) AND NOT EXISTS (SELECT 1 FROM semantic_relations r WHERE "
      "r.to_seq = semantic_entities.seq)");
  DropUnusedKeys(env_.db);  // after the entities, whose types are keys too
  keys_ = KeyInterner();    // it may hold a key just dropped
  History(m.id, "purged", author, "content deleted");
}

std::vector<std::string> MemoryWriter::Pin(const Memory& current, const Author& author) {
  if (current.status == "superseded") {
    throw sdk::ToolError("memory " + current.id + " is superseded" +
                         (current.superseded_by.empty() ? std::string(" (forgotten)")
                                                        : " by " + current.superseded_by) +
                         "; pin the current memory instead");
  }
  std::vector<std::string> replaced, conflicts;
  if (current.status == "pinned") return replaced;
  Memory m = current;
  SQLite::Statement q(env_.db,
                      "UPDATE semantic_memories SET status = 'pinned' WHERE seq = ?");
  sdk::Bind(q, m.seq);
  q.exec();
  History(m.id, "pinned", author, "was " + m.status);
  m.status = "pinned";
  // The latest explicit pin wins its subject, even over an older pin.
  ResolveSubject(m, author, true, replaced, conflicts);
  return replaced;
}

bool MemoryWriter::Unpin(const Memory& m, const Author& author) {
  if (m.status != "pinned") return false;
  SQLite::Statement q(env_.db, "UPDATE semantic_memories SET status = 'active' WHERE seq = ?");
  sdk::Bind(q, m.seq);
  q.exec();
  History(m.id, "unpinned", author, "");
  return true;
}

void MarkRecalled(SQLite::Database& db, sdk::StatementCache& statements, const std::vector<std::int64_t>& seqs,
                  std::int64_t at_ms) {
  if (seqs.empty()) return;
  const std::string list = sdk::Json(seqs).dump();
  sdk::CachedStatement q = statements.Get(
      db, "UPDATE semantic_memories SET recall_count = recall_count + 1, "
          "last_recalled_at = max(coalesce(last_recalled_at, 0), ?) WHERE seq IN (SELECT value FROM json_each(?))");
  sdk::Bind(*q, at_ms, list);
  q->exec();
}

}  // namespace kioku::semantic
