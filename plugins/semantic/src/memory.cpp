#include "memory.hpp"

#include <algorithm>

#include "keys.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "normalize.hpp"

namespace kioku::semantic {

std::string DerivedMemoryIdSql(std::string_view row) {
  static constexpr const char* kAlphabet = "'0123456789ABCDEFGHJKMNPQRSTVWXYZ'";
  const std::string r(row);
  const std::string time = "max(0, min(" + r + "captured_at, " + std::to_string(sdk::kMaxIdTimeMs) + "))";
  auto digit = [&](const std::string& value, int shift) {
    return std::string("substr(") + kAlphabet + ", ((" + value + " >> " + std::to_string(shift) + ") & 31) + 1, 1)";
  };
  std::string derived;  // sdk::SeqId: 10 characters of time, 4 of nonce, 12 of seq
  for (int i = 9; i >= 0; --i) derived += digit(time, 5 * i) + " || ";
  for (int i = 3; i >= 0; --i) derived += digit(r + "id_nonce", 5 * i) + " || ";
  for (int i = 11; i >= 0; --i) derived += digit("max(0, " + r + "seq)", 5 * i) + (i > 0 ? " || " : "");
  return derived;
}

std::string MemoryIdSql(std::string_view row) {
  return "coalesce(" + std::string(row) + "own_id, " + DerivedMemoryIdSql(row) + ")";
}

std::string MemoryId(const std::string& own_id, std::int64_t captured_at, std::int64_t nonce, std::int64_t seq) {
  return own_id.empty() ? sdk::SeqId(captured_at, nonce, seq) : own_id;
}

std::int64_t MemoryNonce(const std::string& agent_id, const std::string& session_id, const std::string& project_id,
                         const std::string& text, std::int64_t captured_at) {
  const auto h = static_cast<std::uint64_t>(
      KeyHash({"memory id", agent_id, session_id, project_id, text, std::to_string(captured_at)}));
  return static_cast<std::int64_t>(h & ((std::uint64_t{1} << sdk::kSeqIdNonceBits) - 1));
}

std::optional<std::int64_t> MemorySeqOfId(SQLite::Database& db, const std::string& id) {
  {
    SQLite::Statement q(db, "SELECT seq FROM semantic_memories WHERE own_id = ?");
    sdk::Bind(q, id);
    if (q.executeStep()) return q.getColumn(0).getInt64();
  }
  const std::optional<sdk::SeqIdParts> parts = sdk::ParseSeqId(id);
  if (!parts) return std::nullopt;
  SQLite::Statement q(db, "SELECT captured_at, id_nonce FROM semantic_memories WHERE seq = ? AND own_id IS NULL");
  sdk::Bind(q, parts->seq);
  if (!q.executeStep() || sdk::SeqId(q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), parts->seq) != id) {
    return std::nullopt;
  }
  return parts->seq;
}

const std::string& MemoryColumns() {
  static const std::string columns =
      "m.seq, m.own_id, m.kind, m.text, m.subject, m.value, m.tags, m.importance, m.confidence, "
      "m.status, m.prior_status, m.source, m.source_ref, m.scope, " + KeyTextSql("m.project_key") +
      ", m.path, m.anchor, m.expires_at, " + KeyTextSql("m.agent_key") + ", " + KeyTextSql("m.session_key") +
      ", m.captured_at, m.updated_at, m.recall_count, m.last_recalled_at, m.reaffirm_count, m.superseded_at, "
      "m.superseded_by, m.id_nonce";
  return columns;
}

namespace {
std::int64_t Int64Or0(const SQLite::Column& c) { return c.isNull() ? 0 : c.getInt64(); }
}  // namespace

std::string JoinTags(const std::vector<std::string>& tags) {
  std::string out;
  for (const std::string& t : tags) {
    if (!out.empty()) out.push_back(' ');
    out += t;
  }
  return out;
}

std::vector<std::string> SplitTags(const std::string& joined) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < joined.size()) {
    std::size_t end = joined.find(' ', start);
    if (end == std::string::npos) end = joined.size();
    if (end > start) out.push_back(joined.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Memory ReadMemoryHead(SQLite::Statement& q, int captured_at_column, int nonce_column) {
  Memory m;
  m.seq = q.getColumn(0).getInt64();
  m.captured_at = q.getColumn(captured_at_column).getInt64();
  m.id = MemoryId(q.getColumn(1).getString(), m.captured_at, q.getColumn(nonce_column).getInt64(), m.seq);
  m.kind = q.getColumn(2).getString();
  m.text = q.getColumn(3).getString();
  m.subject = q.getColumn(4).getString();
  m.value = q.getColumn(5).getString();
  return m;
}

Memory ReadMemory(SQLite::Statement& q) {
  Memory m = ReadMemoryHead(q, 20, 27);
  m.tags = SplitTags(q.getColumn(6).getString());
  m.importance = q.getColumn(7).getInt();
  m.confidence = q.getColumn(8).getDouble();
  m.status = q.getColumn(9).getString();
  m.prior_status = q.getColumn(10).getString();
  m.source = q.getColumn(11).getString();
  m.source_ref = q.getColumn(12).getString();
  m.scope.kind = q.getColumn(13).getString();
  m.scope.project_id = q.getColumn(14).getString();
  m.scope.path = q.getColumn(15).getString();
  m.anchor = q.getColumn(16).getString();
  m.expires_at = Int64Or0(q.getColumn(17));
  m.agent_id = q.getColumn(18).getString();
  m.session_id = q.getColumn(19).getString();
  m.updated_at = q.getColumn(21).getInt64();
  m.recall_count = q.getColumn(22).getInt();
  m.last_recalled_at = Int64Or0(q.getColumn(23));
  m.reaffirm_count = q.getColumn(24).getInt();
  m.superseded_at = Int64Or0(q.getColumn(25));
  m.superseded_by = q.getColumn(26).isNull() ? "" : q.getColumn(26).getString();
  return m;
}

std::optional<Memory> LoadMemoryBySeq(SQLite::Database& db, std::int64_t seq) {
  SQLite::Statement q(db, std::string("SELECT ") + MemoryColumns() +
                              " FROM semantic_memories m WHERE m.seq = ?");
  sdk::Bind(q, seq);
  if (!q.executeStep()) return std::nullopt;
  return ReadMemory(q);
}

std::optional<Memory> LoadMemoryById(SQLite::Database& db, const std::string& id) {
  const std::optional<std::int64_t> seq = MemorySeqOfId(db, id);
  return seq ? LoadMemoryBySeq(db, *seq) : std::nullopt;
}

namespace {

// Up to `n` ids of memories starting with `prefix` (as typed: ids are upper case), ascending:
// kept ids by their index range ('[' follows 'Z'), computed ones by the time their first ten
// characters give (the captured_at index), each computed and compared.
std::vector<std::string> MemoryIdsStartingWith(SQLite::Database& db, const std::string& prefix, std::size_t n) {
  std::vector<std::string> ids;
  {
    SQLite::Statement q(db, "SELECT own_id FROM semantic_memories WHERE own_id >= ? AND own_id < ? ORDER BY own_id LIMIT " +
                                std::to_string(n));
    sdk::Bind(q, prefix, prefix + "[");
    while (q.executeStep()) ids.push_back(q.getColumn(0).getString());
  }
  const std::optional<sdk::DerivedIdRange> range = sdk::DerivedIdPrefixRange(prefix.substr(0, 10));
  if (range && ids.size() < n) {
    SQLite::Statement q(db, "SELECT captured_at, id_nonce, seq FROM semantic_memories WHERE captured_at BETWEEN ? AND ? "
                            "AND own_id IS NULL ORDER BY captured_at, seq");
    sdk::Bind(q, range->ms_lo, range->ms_hi);
    while (ids.size() < n && q.executeStep()) {
      std::string id = sdk::SeqId(q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64());
      if (id.compare(0, prefix.size(), prefix) == 0) ids.push_back(std::move(id));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

Memory ResolveMemory(SQLite::Database& db, const std::string& id_or_prefix) {
  sdk::IdLookup lookup;
  lookup.exact = [&](const std::string& id) { return MemorySeqOfId(db, id).has_value(); };
  lookup.starting = [&](const std::string& prefix, std::size_t n) { return MemoryIdsStartingWith(db, prefix, n); };
  std::string id;
  try {
    id = sdk::ResolveIdPrefix(lookup, id_or_prefix, "memory");
  } catch (const sdk::ToolError& e) {
    throw sdk::ToolError(std::string(e.what()) +
                         "; send an id from memory_recall or memory_list");
  }
  auto m = LoadMemoryById(db, id);
  if (!m) throw sdk::ToolError("unknown memory id '" + id + "'");
  return *m;
}

nlohmann::json MemoryToJson(const Memory& m) {
  nlohmann::json j = {
      {"id", m.id},
      {"kind", m.kind},
      {"text", m.text},
      {"status", m.status},
      {"tags", m.tags},
      {"importance", m.importance},
      {"confidence", m.confidence},
      {"source", m.source},
      {"scope", m.scope.kind},
      {"captured_at", sdk::FormatRfc3339(m.captured_at)},
      {"updated_at", sdk::FormatRfc3339(m.updated_at)},
      {"recall_count", m.recall_count},
      {"reaffirm_count", m.reaffirm_count},
      {"expires", m.expires_at == 0 ? "permanent" : sdk::FormatRfc3339(m.expires_at)},
  };
  if (!m.subject.empty()) j["subject"] = m.subject;
  if (!m.value.empty()) j["value"] = m.value;
  if (!m.source_ref.empty()) j["source_ref"] = m.source_ref;
  if (!m.scope.project_id.empty()) j["project_id"] = m.scope.project_id;
  if (!m.scope.path.empty()) j["path"] = m.scope.path;
  if (!m.anchor.empty()) j["anchor"] = m.anchor;
  if (!m.agent_id.empty()) j["agent_id"] = m.agent_id;
  if (!m.session_id.empty()) j["session_id"] = m.session_id;
  if (m.last_recalled_at != 0) j["last_recalled_at"] = sdk::FormatRfc3339(m.last_recalled_at);
  if (m.superseded_at != 0) j["superseded_at"] = sdk::FormatRfc3339(m.superseded_at);
  if (!m.superseded_by.empty()) j["superseded_by"] = m.superseded_by;
  return j;
}

std::string FormatAge(std::int64_t now_ms, std::int64_t then_ms) {
  const std::int64_t d = now_ms > then_ms ? now_ms - then_ms : 0;
  const std::int64_t minutes = d / 60'000;
  if (minutes < 1) return "now";
  if (minutes < 60) return std::to_string(minutes) + "m";
  const std::int64_t hours = minutes / 60;
  if (hours < 24) return std::to_string(hours) + "h";
  const std::int64_t days = hours / 24;
  if (days < 60) return std::to_string(days) + "d";
  if (days < 730) return std::to_string(days / 30) + "mo";
  return std::to_string(days / 365) + "y";
}

}  // namespace kioku::semantic
