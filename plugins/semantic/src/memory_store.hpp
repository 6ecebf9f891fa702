#pragma once
/// @file memory_store.hpp
/// Writes to the memory tables: remember (with reaffirm and supersession), edit, forget,
/// purge, pin/unpin, recall bookkeeping. Every method must run inside one write
/// transaction opened by the caller (sdk::WithWriteTransaction), so a batch or a rejected
/// call leaves nothing half-written. Input is validated before it reaches this class.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "keys.hpp"
#include "memory.hpp"

namespace kioku::semantic {

/// A validated new memory.
struct MemoryDraft {
  std::string text;
  std::string kind;
  std::string subject;  ///< Already NormalizeSubject'ed; "" = none.
  std::string value;
  std::vector<std::string> tags;  ///< Already NormalizeTag'ed, unique.
  int importance = 5;
  double confidence = 1.0;
  std::string source = "agent";
  std::string source_ref;
  Scope scope;
  std::string anchor;
  std::int64_t expires_at = 0;  ///< 0 = permanent
  bool suggest = false;         ///< memory_suggest: stored pending, never reaffirms.
};

/// Who writes (from the call's Caller).
struct Author {
  std::string agent_id;
  std::string session_id;
};

/// Outcome of one remember.
/// action: "remembered" (new row), "reaffirmed" (same memory said again: refreshed, or a
/// pending one confirmed), "superseded" (new row that replaced older values of its
/// subject, listed in `replaced`), "known" (memory_suggest of something already stored:
/// nothing written). `conflicts`: live memories with another value for the subject that
/// this one did not replace (a pinned rival, or any rival of a pending suggestion).
struct WriteResult {
  std::int64_t seq = 0;  ///< the memory written or reaffirmed
  std::string id;
  std::string action;
  std::string status;
  std::vector<std::string> replaced;
  std::vector<std::string> conflicts;
};

/// Changes for memory_edit; unset = unchanged.
struct MemoryEdit {
  std::optional<std::string> text;
  std::optional<std::string> kind;
  std::optional<std::string> subject;  ///< Normalized; "" clears (with value).
  std::optional<std::string> value;
  std::optional<std::vector<std::string>> tags;
  std::optional<int> importance;
  std::optional<double> confidence;
  std::optional<Scope> scope;
  std::optional<std::int64_t> expires_at;  ///< 0 = permanent
  std::optional<std::string> anchor;
  std::optional<std::string> source_ref;
  std::optional<std::string> status;  ///< "active" confirms a pending/contested memory.
};

struct EditResult {
  Memory memory;
  std::vector<std::string> changed;   ///< Field names that changed.
  std::vector<std::string> replaced;  ///< Rivals superseded by the edit.
  std::vector<std::string> conflicts;
};

/// The bits a reaffirm key keeps (31: SQLite stores it in 4 bytes where 64 bits took 8, in
/// the row and in its index; migration 17). A match is confirmed by comparing what the hash
/// covers, so a collision costs one more row read, never a wrong reaffirm.
inline constexpr std::int64_t kDedupHashMask = 0x7FFFFFFF;

/// Cuts stored reaffirm keys to kDedupHashMask's bits (migration 17, and an import of a file
/// written before it). Reads the dedup index for the rows whose key is out of range.
void CutDedupHashes(SQLite::Database& db);

/// Reaffirm key of a memory: hash over kind, scope, subject, normalized value and text
/// (KeyHash, FNV-1a 64), its low 31 bits (kDedupHashMask).
std::int64_t DedupHash(const std::string& kind, const Scope& scope, const std::string& subject,
                       const std::string& value, const std::string& text);

/// Writer used inside one write transaction (statements come from the env's cache).
/// Finish() must run before the transaction commits: it indexes the rows this writer added
/// (see schema.hpp). Use WithMemoryWriter, which does both.
class MemoryWriter {
 public:
  explicit MemoryWriter(Env env);
  ~MemoryWriter();

  /// Indexes new memories and entities in FTS. Idempotent; call last in the transaction.
  void Finish();
  MemoryWriter(const MemoryWriter&) = delete;
  MemoryWriter& operator=(const MemoryWriter&) = delete;

  WriteResult Remember(const MemoryDraft& draft, const Author& author);

  /// Throws ToolError when the memory is superseded (edit its successor instead) or the
  /// edit would make it identical to another live memory.
  EditResult Edit(const Memory& current, const MemoryEdit& edit, const Author& author);

  /// Soft forget: status superseded + audit row. Returns false when it already was.
  bool Forget(const Memory& m, const Author& author);

  /// Deletes the row, its tags, entity links and history; leaves one 'purged' audit row
  /// without content.
  void Purge(const Memory& m, const Author& author);

  /// Pin: status pinned (confirming a pending/contested one and superseding its rivals).
  /// Returns the superseded rival ids. ToolError for a superseded memory.
  std::vector<std::string> Pin(const Memory& m, const Author& author);
  /// Unpin: pinned → active. Returns false when it was not pinned.
  bool Unpin(const Memory& m, const Author& author);

 private:
  void History(const std::string& memory_id, const std::string& action, const Author& author,
               const std::string& detail, const std::string* snapshot = nullptr);
  /// Extracts the entities `text` names and queues them with their links to memory `seq`;
  /// FlushEntityLinks writes what is queued.
  void LinkEntities(std::int64_t seq, const std::string& text);
  /// Writes the queued entities (those not there yet) and links in two statements: per
  /// mention, a lookup, an insert and a link statement cost 34,000 instructions a memory at
  /// 1,000 batch writes (two mentions each), 9% of the write. Runs in Finish, and before a
  /// statement reads or deletes links or entities (Edit, Purge).
  void FlushEntityLinks();
  void WriteTags(std::int64_t seq, const std::vector<std::string>& tags);
  /// Supersedes live rivals of `m` (same subject and scope, other value). When a rival is
  /// pinned and `m` is not being pinned, `m` becomes contested instead.
  void ResolveSubject(Memory& m, const Author& author, bool force, std::vector<std::string>& replaced,
                      std::vector<std::string>& conflicts);
  std::optional<Memory> FindSame(const MemoryDraft& d, std::int64_t hash);
  /// The statement for `sql` (one of this file's SQL constants, told apart by address),
  /// reset, its parameters still bound: leased once per write for the statements every
  /// memory runs (insert, same-text lookup, mention, tag), where a lease per use and its return
  /// (cache lookup, reset, clearing bindings) cost ~1,300 instructions each, four or more times
  /// a memory.
  /// Callers bind every parameter.
  SQLite::Statement& Held(const std::string& sql);

  Env env_;
  std::int64_t memory_floor_ = 0;  // rows above this seq were added by this writer
  bool added_ = false;
  std::int64_t added_text_bytes_ = 0;  // of the memories added since the last Finish
  KeyInterner keys_;  // this transaction's project, agent and session keys
  bool mentions_ = false;  // LinkEntities queued mentions in temp.semantic_mentions
  std::vector<std::pair<const std::string*, sdk::CachedStatement>> held_;  // Held; last: returned first
};

/// Recall bookkeeping: recall_count += 1 and last_recalled_at = max(itself, `at_ms`) for
/// the given seqs (a row deleted meanwhile is skipped). Run through HostServices::DeferWrite
/// on the host's writer connection, inside its batch transaction — never on a read;
/// `statements` keeps the one UPDATE prepared per connection.
void MarkRecalled(SQLite::Database& db, sdk::StatementCache& statements, const std::vector<std::int64_t>& seqs,
                  std::int64_t at_ms);

/// The newest memory's seq (the highest FTS rowid), 0 when there is none.
std::int64_t MaxMemorySeq(const Env& env);

/// Runs `body` with a MemoryWriter inside one write transaction (BEGIN IMMEDIATE, retried on
/// SQLITE_BUSY — so `body` must keep its effects in the database), then Finish() and COMMIT.
void WithMemoryWriter(const Env& env, const std::function<void(MemoryWriter&)>& body);

}  // namespace kioku::semantic
