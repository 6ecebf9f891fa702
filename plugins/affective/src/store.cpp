#include "store.hpp"

#include <map>
#include <tuple>
#include <variant>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/clock.hpp"
#include "latency_histogram.hpp"

namespace kioku::affective {
namespace {

using Binding = std::variant<std::string, std::int64_t>;

// Smallest string above every string that starts with `prefix` (byte order), or "" when
// none exists; lets a prefix filter use the (tool, ...) index instead of LIKE.
std::string PrefixUpperBound(std::string prefix) {
  while (!prefix.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(prefix.back());
    if (c != 0xff) {
      ++c;
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

// Appends the filter's conditions (each starting with " AND ") for columns qualified
// by `alias`.
void AppendFilter(const Filter& f, const std::string& alias, std::string& sql,
                  std::vector<Binding>& binds) {
  const std::string a = alias.empty() ? "" : alias + ".";
  if (!f.tools.empty()) {
    sql += " AND " + a + "tool IN (";
    for (std::size_t i = 0; i < f.tools.size(); ++i) {
      sql += i == 0 ? "?" : ",?";
      binds.emplace_back(f.tools[i]);
    }
    sql += ")";
  }
  if (!f.tool_prefix.empty()) {
    sql += " AND " + a + "tool >= ?";
    binds.emplace_back(f.tool_prefix);
    if (std::string upper = PrefixUpperBound(f.tool_prefix); !upper.empty()) {
      sql += " AND " + a + "tool < ?";
      binds.emplace_back(std::move(upper));
    }
  }
  const std::pair<const char*, const std::optional<std::string>*> eq[] = {
      {"agent_id", &f.agent_id}, {"model", &f.model}, {"project_id", &f.project_id}};
  for (const auto& [column, value] : eq) {
    if (!value->has_value()) continue;
    sql += " AND " + a + column + " = ?";
    binds.emplace_back(**value);
  }
}

void BindAll(SQLite::Statement& st, const std::vector<Binding>& binds) {
  int i = 1;
  for (const auto& b : binds) {
    if (const auto* s = std::get_if<std::string>(&b)) {
      st.bind(i++, *s);
    } else {
      st.bind(i++, static_cast<int64_t>(std::get<std::int64_t>(b)));
    }
  }
}

struct BucketDelta {
  std::array<std::int64_t, kOutcomeKinds> counts{};
  std::int64_t n = 0;
  std::int64_t offset_sum_ms = 0;
  std::int64_t last_at_ms = 0;
  std::int64_t latency_n = 0;
  double latency_sum_ms = 0;
  std::int64_t confidence_n = 0;
  double confidence_sum = 0;
  std::map<int, std::int64_t> bins;
};

using BucketKey = std::tuple<std::string, std::string, std::string, std::string, std::int64_t>;

OutcomeRecord ReadRaw(SQLite::Statement& q) {
  // Column order of kRawColumns.
  OutcomeRecord r;
  r.at_ms = q.getColumn(0).getInt64();
  r.tool = q.getColumn(1).getString();
  r.agent_id = q.getColumn(2).getString();
  r.model = q.getColumn(3).getString();
  r.project_id = q.getColumn(4).getString();
  r.session_id = q.getColumn(5).getString();
  r.outcome = ParseOutcome(q.getColumn(6).getString()).value_or(OutcomeKind::kFailure);
  if (!q.getColumn(7).isNull()) r.latency_ms = q.getColumn(7).getDouble();
  if (!q.getColumn(8).isNull()) r.confidence = q.getColumn(8).getDouble();
  r.error_class = q.getColumn(9).getString();
  r.error = q.getColumn(10).getString();
  r.source = q.getColumn(11).getString();
  if (!q.getColumn(12).isNull()) r.source_id = q.getColumn(12).getString();
  return r;
}

constexpr const char* kRawColumns =
    "at_ms, tool, agent_id, model, project_id, session_id, outcome, latency_ms, confidence, "
    "error_class, error, source, source_id";

}  // namespace

std::int64_t DayOf(std::int64_t at_ms) {
  std::int64_t day = at_ms / sdk::kMsPerDay;
  if (at_ms % sdk::kMsPerDay < 0) --day;
  return day;
}

double BucketRow::MeanAtMs() const {
  const double start = static_cast<double>(day) * static_cast<double>(sdk::kMsPerDay);
  if (n <= 0) return start + sdk::kMsPerDay / 2.0;
  return start + static_cast<double>(offset_sum_ms) / static_cast<double>(n);
}

WriteStats WriteOutcomes(SQLite::Database& db, const std::vector<OutcomeRecord>& records) {
  WriteStats stats;
  if (records.empty()) return stats;
  SQLite::Statement insert(
      db,
      "INSERT INTO affective_outcomes (at_ms, tool, agent_id, model, project_id, session_id, "
      "outcome, latency_ms, confidence, error_class, error, source, source_id) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING");
  std::map<BucketKey, BucketDelta> deltas;
  for (const auto& r : records) {
    insert.reset();
    insert.clearBindings();
    insert.bind(1, static_cast<int64_t>(r.at_ms));
    insert.bind(2, r.tool);
    insert.bind(3, r.agent_id);
    insert.bind(4, r.model);
    insert.bind(5, r.project_id);
    insert.bind(6, r.session_id);
    insert.bind(7, std::string(OutcomeName(r.outcome)));
    if (r.latency_ms) insert.bind(8, *r.latency_ms);
    if (r.confidence) insert.bind(9, *r.confidence);
    insert.bind(10, r.error_class);
    insert.bind(11, r.error);
    insert.bind(12, r.source);
    if (!r.source_id.empty()) insert.bind(13, r.source_id);
    if (insert.exec() == 0) {
      ++stats.duplicates;
      continue;
    }
    ++stats.inserted;
    const std::int64_t day = DayOf(r.at_ms);
    auto& d = deltas[BucketKey{r.tool, r.agent_id, r.model, r.project_id, day}];
    ++d.counts[static_cast<std::size_t>(r.outcome)];
    ++d.n;
    d.offset_sum_ms += r.at_ms - day * sdk::kMsPerDay;
    d.last_at_ms = std::max(d.last_at_ms, r.at_ms);
    if (r.latency_ms) {
      ++d.latency_n;
      d.latency_sum_ms += *r.latency_ms;
      ++d.bins[LatencyBin(*r.latency_ms)];
    }
    if (r.confidence) {
      ++d.confidence_n;
      d.confidence_sum += *r.confidence;
    }
  }
  if (deltas.empty()) return stats;

  SQLite::Statement upsert(
      db,
      "INSERT INTO affective_buckets (tool, agent_id, model, project_id, day, n, success, "
      "failure, partial, rejected, timeout, offset_sum_ms, last_at_ms, latency_n, "
      "latency_sum_ms, confidence_n, confidence_sum) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT (tool, agent_id, model, project_id, day) DO UPDATE SET "
      "n = n + excluded.n, success = success + excluded.success, "
      "failure = failure + excluded.failure, partial = partial + excluded.partial, "
      "rejected = rejected + excluded.rejected, timeout = timeout + excluded.timeout, "
      "offset_sum_ms = offset_sum_ms + excluded.offset_sum_ms, "
      "last_at_ms = max(last_at_ms, excluded.last_at_ms), "
      "latency_n = latency_n + excluded.latency_n, "
      "latency_sum_ms = latency_sum_ms + excluded.latency_sum_ms, "
      "confidence_n = confidence_n + excluded.confidence_n, "
      "confidence_sum = confidence_sum + excluded.confidence_sum "
      "RETURNING id");
  SQLite::Statement add_bin(
      db,
      "INSERT INTO affective_latency_bins (bucket_id, bin, count) VALUES (?,?,?) "
      "ON CONFLICT (bucket_id, bin) DO UPDATE SET count = count + excluded.count");
  for (const auto& [key, d] : deltas) {
    upsert.reset();
    upsert.bind(1, std::get<0>(key));
    upsert.bind(2, std::get<1>(key));
    upsert.bind(3, std::get<2>(key));
    upsert.bind(4, std::get<3>(key));
    upsert.bind(5, static_cast<int64_t>(std::get<4>(key)));
    upsert.bind(6, static_cast<int64_t>(d.n));
    for (int k = 0; k < kOutcomeKinds; ++k) {
      upsert.bind(7 + k, static_cast<int64_t>(d.counts[static_cast<std::size_t>(k)]));
    }
    upsert.bind(12, static_cast<int64_t>(d.offset_sum_ms));
    upsert.bind(13, static_cast<int64_t>(d.last_at_ms));
    upsert.bind(14, static_cast<int64_t>(d.latency_n));
    upsert.bind(15, d.latency_sum_ms);
    upsert.bind(16, static_cast<int64_t>(d.confidence_n));
    upsert.bind(17, d.confidence_sum);
    if (!upsert.executeStep()) throw std::runtime_error("bucket upsert returned no id");
    const std::int64_t bucket_id = upsert.getColumn(0).getInt64();
    while (upsert.executeStep()) {
    }
    for (const auto& [bin, count] : d.bins) {
      add_bin.reset();
      add_bin.bind(1, static_cast<int64_t>(bucket_id));
      add_bin.bind(2, bin);
      add_bin.bind(3, static_cast<int64_t>(count));
      add_bin.exec();
    }
  }
  return stats;
}

void ForEachBucket(SQLite::Database& db, const Filter& filter, std::int64_t min_day,
                   std::int64_t max_day, const std::function<void(const BucketRow&)>& fn) {
  std::string sql =
      "SELECT id, tool, agent_id, model, project_id, day, n, success, failure, partial, "
      "rejected, timeout, offset_sum_ms, last_at_ms, latency_n, latency_sum_ms, confidence_n, "
      "confidence_sum FROM affective_buckets WHERE day >= ? AND day <= ?";
  std::vector<Binding> binds{min_day, max_day};
  AppendFilter(filter, "", sql, binds);
  SQLite::Statement q(db, sql);
  BindAll(q, binds);
  BucketRow row;
  while (q.executeStep()) {
    row.id = q.getColumn(0).getInt64();
    row.tool = q.getColumn(1).getString();
    row.agent_id = q.getColumn(2).getString();
    row.model = q.getColumn(3).getString();
    row.project_id = q.getColumn(4).getString();
    row.day = q.getColumn(5).getInt64();
    row.n = q.getColumn(6).getInt64();
    for (int k = 0; k < kOutcomeKinds; ++k) {
      row.counts[static_cast<std::size_t>(k)] = q.getColumn(7 + k).getInt64();
    }
    row.offset_sum_ms = q.getColumn(12).getInt64();
    row.last_at_ms = q.getColumn(13).getInt64();
    row.latency_n = q.getColumn(14).getInt64();
    row.latency_sum_ms = q.getColumn(15).getDouble();
    row.confidence_n = q.getColumn(16).getInt64();
    row.confidence_sum = q.getColumn(17).getDouble();
    fn(row);
  }
}

void ForEachBucketLatencyBin(
    SQLite::Database& db, const Filter& filter, std::int64_t min_day, std::int64_t max_day,
    const std::function<void(const BucketRow&, int bin, std::int64_t count)>& fn) {
  std::string sql =
      "SELECT b.tool, b.agent_id, b.model, b.project_id, b.day, h.bin, h.count "
      "FROM affective_buckets b JOIN affective_latency_bins h ON h.bucket_id = b.id "
      "WHERE b.day >= ? AND b.day <= ?";
  std::vector<Binding> binds{min_day, max_day};
  AppendFilter(filter, "b", sql, binds);
  SQLite::Statement q(db, sql);
  BindAll(q, binds);
  BucketRow row;
  while (q.executeStep()) {
    row.tool = q.getColumn(0).getString();
    row.agent_id = q.getColumn(1).getString();
    row.model = q.getColumn(2).getString();
    row.project_id = q.getColumn(3).getString();
    row.day = q.getColumn(4).getInt64();
    fn(row, q.getColumn(5).getInt(), q.getColumn(6).getInt64());
  }
}

void ForEachRawOutcome(SQLite::Database& db, const Filter& filter, std::int64_t from_ms,
                       std::int64_t to_ms, const std::function<void(const OutcomeRecord&)>& fn) {
  std::string sql = std::string("SELECT ") + kRawColumns +
                    " FROM affective_outcomes WHERE at_ms >= ? AND at_ms < ?";
  std::vector<Binding> binds{from_ms, to_ms};
  AppendFilter(filter, "", sql, binds);
  SQLite::Statement q(db, sql);
  BindAll(q, binds);
  while (q.executeStep()) fn(ReadRaw(q));
}

std::vector<OutcomeRecord> RecentFailures(SQLite::Database& db, const Filter& filter,
                                          std::int64_t from_ms, std::int64_t to_ms, int limit) {
  std::vector<OutcomeRecord> out;
  if (limit <= 0) return out;
  // `outcome <> 'success'` verbatim so the planner can use the partial failures index.
  std::string sql = std::string("SELECT ") + kRawColumns +
                    " FROM affective_outcomes WHERE outcome <> 'success' AND at_ms >= ? AND "
                    "at_ms < ?";
  std::vector<Binding> binds{from_ms, to_ms};
  AppendFilter(filter, "", sql, binds);
  sql += " ORDER BY at_ms DESC, id DESC LIMIT ?";
  binds.emplace_back(static_cast<std::int64_t>(limit));
  SQLite::Statement q(db, sql);
  BindAll(q, binds);
  while (q.executeStep()) out.push_back(ReadRaw(q));
  return out;
}

std::int64_t DeleteRawBefore(SQLite::Database& db, std::int64_t cutoff_ms, int limit) {
  SQLite::Statement del(db,
                        "DELETE FROM affective_outcomes WHERE id IN (SELECT id FROM "
                        "affective_outcomes WHERE at_ms < ? ORDER BY at_ms LIMIT ?)");
  del.bind(1, static_cast<int64_t>(cutoff_ms));
  del.bind(2, limit);
  return del.exec();
}

std::int64_t CountRawOutcomes(SQLite::Database& db) {
  return db.execAndGet("SELECT count(*) FROM affective_outcomes").getInt64();
}

std::optional<std::int64_t> ReadMeta(SQLite::Database& db, const std::string& key) {
  SQLite::Statement q(db, "SELECT value FROM affective_meta WHERE key = ?");
  q.bind(1, key);
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getInt64();
}

void WriteMeta(SQLite::Database& db, const std::string& key, std::int64_t value) {
  SQLite::Statement q(db,
                      "INSERT INTO affective_meta (key, value) VALUES (?, ?) "
                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  q.bind(1, key);
  q.bind(2, static_cast<int64_t>(value));
  q.exec();
}

}  // namespace kioku::affective
