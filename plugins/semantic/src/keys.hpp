#pragma once
/// @file keys.hpp
/// Interned texts: a memory's project, writing agent and session (migration 16) and an
/// entity's type (migration 18) are stored as the seq of their text in semantic_keys, one to
/// three bytes a column where the text cost 4 to 40 (dbstat, the bench's memories at
/// 100,000: 86 of 723 bytes a memory, then 24 of 621 for its two entities' types).
/// Seq 0 is "" (no project, agent or session): no row holds it, so a new database's tables
/// stay empty (the host then creates them in one step from the migrations' result, and a
/// first start stays fast), and it costs no byte (SQLite stores 0 in the record header).
/// A key's text never changes; a key no row uses any more goes with a purge or an import's
/// leftovers (DropUnusedKeys) and its seq may be given again, so nothing keeps key numbers
/// beyond one transaction, and files name keys by their text.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/sql.hpp"

namespace kioku::semantic {

struct Env;

/// SQL whose value is the text of key column `column` (e.g. "m.project_key"), "" for 0.
std::string KeyTextSql(std::string_view column);

/// SQL whose value is the key of text parameter `param` (e.g. "?", "?2"): 0 for "", NULL
/// when no row has that text, so `m.project_key = <KeyOfSql>` matches no memory then.
/// Computed once per statement by SQLite (an uncorrelated subquery), so a key column's index
/// still serves it.
std::string KeyOfSql(std::string_view param);

/// SQL that holds for the memories (alias `m`) a viewer of the project in text parameter
/// `param` sees: the global ones, and its project's when it has one. `param` appears twice,
/// so bind a plain "?" twice or use a numbered one ("?2").
std::string InViewerScopeSql(std::string_view param);

/// Deletes every key no memory or entity uses any more: a purge leaves no trace of a
/// project, agent or session only its memory named (nor of one an edit moved it from), and
/// an import none of the texts of rows it skipped. One scan of the memories and entities.
/// Inside the caller's write transaction; an interner of that transaction must not be used
/// after it.
void DropUnusedKeys(SQLite::Database& db);

/// Interns texts within one write transaction: Key gives the seq of `text` in
/// semantic_keys, adding the row when it is new. Remembers what it gave, as one write's rows
/// share their agent, session and project; one interner per transaction, since a key it
/// added is gone when the transaction rolls back.
class KeyInterner {
 public:
  std::int64_t Key(const Env& env, const std::string& text);
  std::int64_t Key(SQLite::Database& db, sdk::StatementCache& statements, const std::string& text);

 private:
  std::vector<std::pair<std::string, std::int64_t>> given_;
};

}  // namespace kioku::semantic
