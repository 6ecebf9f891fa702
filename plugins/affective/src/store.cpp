#include "store.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/sql.hpp"

namespace kioku::affective {
namespace {

// Adds the filter's conditions (no tool list = every tool).
void AddFilter(sdk::SqlWhere& w, const Filter& f) {
  if (!f.tools.empty()) w.In("tool", f.tools);
  w.Prefix("tool", f.tool_prefix)
      .Equal("agent_id", f.agent_id)
      .Equal("model", f.model)
      .Equal("project_id", f.project_id);
}

void BindBlob(SQLite::Statement& st, int index, const std::string& bytes) {
  // SQLite treats a null pointer as NULL; the column is NOT NULL, so pass a real pointer.
  static const char kEmpty = 0;
  st.bind(index, bytes.empty() ? static_cast<const void*>(&kEmpty) : bytes.data(),
          static_cast<int>(bytes.size()));
}

std::string_view BlobOf(const SQLite::Column& col) {
  const int size = col.getBytes();
  const void* data = col.getBlob();
  if (size <= 0 || data == nullptr) return {};
  return {static_cast<const char*>(data), static_cast<std::size_t>(size)};
}

// Counter columns shared by buckets and totals, in this order.
constexpr const char* kCounterColumns =
    "n, success, failure, partial, rejected, timeout, last_at, latency_n, latency_sum_ms, "
    "confidence_n, confidence_sum";
constexpr int kCounterColumnCount = 11;
constexpr const char* kCounterAdd =
    "n = n + ?, success = success + ?, failure = failure + ?, partial = partial + ?, "
    "rejected = rejected + ?, timeout = timeout + ?, last_at = max(last_at, ?), "
    "latency_n = latency_n + ?, latency_sum_ms = latency_sum_ms + ?, "
    "confidence_n = confidence_n + ?, confidence_sum = confidence_sum + ?";

// Binds kCounterColumnCount values starting at `first`; returns the next index.
int BindCounters(SQLite::Statement& st, int first, const Counters& c) {
  int i = first;
  st.bind(i++, static_cast<int64_t>(c.n));
  for (auto count : c.counts) st.bind(i++, static_cast<int64_t>(count));
  st.bind(i++, static_cast<int64_t>(c.last_at_ms));
  st.bind(i++, static_cast<int64_t>(c.latency_n));
  st.bind(i++, c.latency_sum_ms);
  st.bind(i++, static_cast<int64_t>(c.confidence_n));
  st.bind(i++, c.confidence_sum);
  return i;
}

// Reads kCounterColumnCount columns starting at `first`.
void ReadCounters(SQLite::Statement& q, int first, Counters& c) {
  int i = first;
  c.n = q.getColumn(i++).getInt64();
  for (auto& count : c.counts) count = q.getColumn(i++).getInt64();
  c.last_at_ms = q.getColumn(i++).getInt64();
  c.latency_n = q.getColumn(i++).getInt64();
  c.latency_sum_ms = q.getColumn(i++).getDouble();
  c.confidence_n = q.getColumn(i++).getInt64();
  c.confidence_sum = q.getColumn(i++).getDouble();
}

void BindKey(SQLite::Statement& st, int first, const KeyFields& k) {
  st.bind(first, k.tool);
  st.bind(first + 1, k.agent_id);
  st.bind(first + 2, k.model);
  st.bind(first + 3, k.project_id);
}

using Key4 = std::tuple<std::string, std::string, std::string, std::string>;
using Key5 = std::tuple<std::string, std::string, std::string, std::string, std::int64_t>;

KeyFields ToFields(const Key4& k) {
  return {std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k)};
}

struct BucketDelta {
  Counters c;
  std::int64_t offset_sum_ms = 0;
};

struct TotalDelta {
  Counters c;
  std::vector<std::pair<std::int64_t, double>> events;  // (at_ms, success credit)
};

// Forward-decay state of one key rebuilt from its buckets (after this batch's updates).
ForwardDecay DecayFromBuckets(SQLite::Database& db, const KeyFields& key, double half_life_ms) {
  ForwardDecay fd;
  fd.half_life_ms = half_life_ms;
  SQLite::Statement q(db,
                      "SELECT day, offset_sum_ms, n, success, partial FROM affective_buckets "
                      "WHERE tool = ? AND agent_id = ? AND model = ? AND project_id = ? "
                      "ORDER BY day");
  BindKey(q, 1, key);
  while (q.executeStep()) {
    const std::int64_t n = q.getColumn(2).getInt64();
    if (n <= 0) continue;
    const std::int64_t at = q.getColumn(0).getInt64() * sdk::kMsPerDay + q.getColumn(1).getInt64() / n;
    fd.Add(at, static_cast<double>(n),
           static_cast<double>(q.getColumn(3).getInt64()) + 0.5 * static_cast<double>(q.getColumn(4).getInt64()));
  }
  return fd;
}

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
    "at, tool, agent_id, model, project_id, session_id, outcome, latency_ms, confidence, "
    "error_class, error, source, source_id";

}  // namespace

std::int64_t DayOf(std::int64_t at_ms) {
  std::int64_t day = at_ms / sdk::kMsPerDay;
  if (at_ms % sdk::kMsPerDay < 0) --day;
  return day;
}

void Counters::Add(const OutcomeRecord& r) {
  ++counts[static_cast<std::size_t>(r.outcome)];
  if (n == 0 || r.at_ms > last_at_ms) last_at_ms = r.at_ms;
  ++n;
  if (r.latency_ms) {
    ++latency_n;
    latency_sum_ms += *r.latency_ms;
    latency.AddValue(*r.latency_ms);
  }
  if (r.confidence) {
    ++confidence_n;
    confidence_sum += *r.confidence;
  }
}

void Counters::Merge(const Counters& o) {
  if (o.n == 0) return;
  for (std::size_t k = 0; k < counts.size(); ++k) counts[k] += o.counts[k];
  last_at_ms = n == 0 ? o.last_at_ms : std::max(last_at_ms, o.last_at_ms);
  n += o.n;
  latency_n += o.latency_n;
  latency_sum_ms += o.latency_sum_ms;
  confidence_n += o.confidence_n;
  confidence_sum += o.confidence_sum;
  latency.Merge(o.latency);
}

double Counters::SuccessCredit() const {
  return static_cast<double>(Count(OutcomeKind::kSuccess)) +
         0.5 * static_cast<double>(Count(OutcomeKind::kPartial));
}

double BucketRow::MeanAtMs() const {
  const double start = static_cast<double>(day) * static_cast<double>(sdk::kMsPerDay);
  if (c.n <= 0) return start + sdk::kMsPerDay / 2.0;
  return start + static_cast<double>(offset_sum_ms) / static_cast<double>(c.n);
}

WriteStats WriteOutcomes(SQLite::Database& db, const std::vector<OutcomeRecord>& records,
                         double half_life_ms) {
  WriteStats stats;
  if (records.empty()) return stats;
  SQLite::Statement insert(
      db,
      "INSERT INTO affective_outcomes (at, tool, agent_id, model, project_id, session_id, "
      "outcome, latency_ms, confidence, error_class, error, source, source_id) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING");
  std::vector<OutcomeRecord> inserted;
  for (const auto& r : records) {
    insert.reset();
    insert.clearBindings();
    sdk::Bind(insert, static_cast<int64_t>(r.at_ms), r.tool, r.agent_id, r.model, r.project_id,
              r.session_id, std::string(OutcomeName(r.outcome)));
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
    inserted.push_back(r);
  }
  FoldOutcomes(db, inserted, inserted, half_life_ms);
  return stats;
}

void FoldOutcomes(SQLite::Database& db, const std::vector<OutcomeRecord>& into_buckets,
                  const std::vector<OutcomeRecord>& into_totals, double half_life_ms) {
  std::map<Key5, BucketDelta> buckets;
  std::map<Key4, TotalDelta> totals;
  for (const auto& r : into_buckets) {
    const std::int64_t day = DayOf(r.at_ms);
    auto& b = buckets[Key5{r.tool, r.agent_id, r.model, r.project_id, day}];
    b.c.Add(r);
    b.offset_sum_ms += r.at_ms - day * sdk::kMsPerDay;
  }
  for (const auto& r : into_totals) {
    auto& t = totals[Key4{r.tool, r.agent_id, r.model, r.project_id}];
    t.c.Add(r);
    t.events.emplace_back(r.at_ms, SuccessCredit(r.outcome));
  }
  if (buckets.empty() && totals.empty()) return;

  // Day buckets: counters add up in SQL; the histogram BLOB is merged here.
  SQLite::Statement find_bucket(
      db,
      "SELECT id, latency_bins FROM affective_buckets "
      "WHERE tool = ? AND agent_id = ? AND model = ? AND project_id = ? AND day = ?");
  SQLite::Statement update_bucket(
      db, std::string("UPDATE affective_buckets SET ") + kCounterAdd +
              ", offset_sum_ms = offset_sum_ms + ?, latency_bins = ? WHERE id = ?");
  SQLite::Statement insert_bucket(
      db, std::string("INSERT INTO affective_buckets (tool, agent_id, model, project_id, day, ") +
              kCounterColumns + ", offset_sum_ms, latency_bins) VALUES (?,?,?,?,?," +
              "?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& [key, d] : buckets) {
    const KeyFields fields{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key)};
    find_bucket.reset();
    BindKey(find_bucket, 1, fields);
    find_bucket.bind(5, static_cast<int64_t>(std::get<4>(key)));
    if (find_bucket.executeStep()) {
      const std::int64_t id = find_bucket.getColumn(0).getInt64();
      LatencyHistogram h = LatencyHistogram::Decode(BlobOf(find_bucket.getColumn(1)));
      h.Merge(d.c.latency);
      update_bucket.reset();
      int i = BindCounters(update_bucket, 1, d.c);
      update_bucket.bind(i++, static_cast<int64_t>(d.offset_sum_ms));
      BindBlob(update_bucket, i++, h.Encode());
      update_bucket.bind(i++, static_cast<int64_t>(id));
      update_bucket.exec();
    } else {
      insert_bucket.reset();
      BindKey(insert_bucket, 1, fields);
      insert_bucket.bind(5, static_cast<int64_t>(std::get<4>(key)));
      int i = BindCounters(insert_bucket, 6, d.c);
      insert_bucket.bind(i++, static_cast<int64_t>(d.offset_sum_ms));
      BindBlob(insert_bucket, i++, d.c.latency.Encode());
      insert_bucket.exec();
    }
    find_bucket.reset();
  }

  // All-time totals with forward-decay accumulators.
  SQLite::Statement find_total(
      db,
      "SELECT id, latency_bins, half_life_ms, landmark_at, decay_n, decay_s FROM affective_totals "
      "WHERE tool = ? AND agent_id = ? AND model = ? AND project_id = ?");
  SQLite::Statement update_total(
      db, std::string("UPDATE affective_totals SET ") + kCounterAdd +
              ", latency_bins = ?, half_life_ms = ?, landmark_at = ?, decay_n = ?, decay_s = ? "
              "WHERE id = ?");
  SQLite::Statement insert_total(
      db, std::string("INSERT INTO affective_totals (tool, agent_id, model, project_id, ") +
              kCounterColumns +
              ", latency_bins, half_life_ms, landmark_at, decay_n, decay_s) VALUES (?,?,?,?," +
              "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  const auto half_life_key = static_cast<std::int64_t>(std::llround(half_life_ms));
  for (const auto& [key, d] : totals) {
    const KeyFields fields = ToFields(key);
    find_total.reset();
    BindKey(find_total, 1, fields);
    ForwardDecay fd;
    fd.half_life_ms = static_cast<double>(half_life_key);
    std::optional<std::int64_t> id;
    LatencyHistogram h = d.c.latency;
    bool rebuilt = false;
    if (find_total.executeStep()) {
      id = find_total.getColumn(0).getInt64();
      h.Merge(LatencyHistogram::Decode(BlobOf(find_total.getColumn(1))));
      if (find_total.getColumn(2).getInt64() == half_life_key) {
        fd.landmark_ms = find_total.getColumn(3).getInt64();
        fd.n = find_total.getColumn(4).getDouble();
        fd.s = find_total.getColumn(5).getDouble();
      } else {
        // Written under another half-life setting: rebuild from the buckets, which already
        // include this batch.
        find_total.reset();
        fd = DecayFromBuckets(db, fields, fd.half_life_ms);
        rebuilt = true;
      }
    }
    find_total.reset();
    if (!rebuilt) {
      for (const auto& [at, credit] : d.events) fd.Add(at, 1.0, credit);
    }
    const std::string blob = h.Encode();
    if (id) {
      update_total.reset();
      int i = BindCounters(update_total, 1, d.c);
      BindBlob(update_total, i++, blob);
      update_total.bind(i++, static_cast<int64_t>(half_life_key));
      update_total.bind(i++, static_cast<int64_t>(fd.landmark_ms));
      update_total.bind(i++, fd.n);
      update_total.bind(i++, fd.s);
      update_total.bind(i++, static_cast<int64_t>(*id));
      update_total.exec();
    } else {
      insert_total.reset();
      BindKey(insert_total, 1, fields);
      int i = BindCounters(insert_total, 5, d.c);
      BindBlob(insert_total, i++, blob);
      insert_total.bind(i++, static_cast<int64_t>(half_life_key));
      insert_total.bind(i++, static_cast<int64_t>(fd.landmark_ms));
      insert_total.bind(i++, fd.n);
      insert_total.bind(i++, fd.s);
      insert_total.exec();
    }
  }
}

void BeginImportBaseline(SQLite::Database& db) {
  // TEMP tables live in this connection's temp schema: a retried transaction recreates them.
  db.exec(
      "DROP TABLE IF EXISTS temp.affective_import_outcomes;"
      "DROP TABLE IF EXISTS temp.affective_import_buckets;"
      "DROP TABLE IF EXISTS temp.affective_import_totals;"
      "CREATE TEMP TABLE affective_import_outcomes (id INTEGER PRIMARY KEY);"
      "CREATE TEMP TABLE affective_import_buckets (id INTEGER PRIMARY KEY);"
      "CREATE TEMP TABLE affective_import_totals (id INTEGER PRIMARY KEY);"
      "INSERT INTO temp.affective_import_outcomes SELECT id FROM main.affective_outcomes;"
      "INSERT INTO temp.affective_import_buckets SELECT id FROM main.affective_buckets;"
      "INSERT INTO temp.affective_import_totals SELECT id FROM main.affective_totals;");
}

std::int64_t FoldImportedOutcomes(SQLite::Database& db, double half_life_ms) {
  std::vector<OutcomeRecord> added;
  {
    SQLite::Statement q(db, std::string("SELECT ") + kRawColumns +
                                " FROM main.affective_outcomes WHERE id NOT IN "
                                "(SELECT id FROM temp.affective_import_outcomes) ORDER BY id");
    while (q.executeStep()) added.push_back(ReadRaw(q));
  }
  SQLite::Statement had_bucket(
      db,
      "SELECT EXISTS(SELECT 1 FROM main.affective_buckets b JOIN temp.affective_import_buckets x "
      "ON x.id = b.id WHERE b.tool = ? AND b.agent_id = ? AND b.model = ? AND b.project_id = ? "
      "AND b.day = ?)");
  SQLite::Statement had_total(
      db,
      "SELECT EXISTS(SELECT 1 FROM main.affective_totals t JOIN temp.affective_import_totals x "
      "ON x.id = t.id WHERE t.tool = ? AND t.agent_id = ? AND t.model = ? AND t.project_id = ?)");
  std::map<Key5, bool> bucket_known;
  std::map<Key4, bool> total_known;
  std::vector<OutcomeRecord> into_buckets, into_totals;
  for (const auto& r : added) {
    const KeyFields fields{r.tool, r.agent_id, r.model, r.project_id};
    const Key5 k5{r.tool, r.agent_id, r.model, r.project_id, DayOf(r.at_ms)};
    auto b = bucket_known.find(k5);
    if (b == bucket_known.end()) {
      had_bucket.reset();
      BindKey(had_bucket, 1, fields);
      had_bucket.bind(5, static_cast<int64_t>(std::get<4>(k5)));
      b = bucket_known.emplace(k5, had_bucket.executeStep() && had_bucket.getColumn(0).getInt() != 0).first;
    }
    if (b->second) into_buckets.push_back(r);
    const Key4 k4{r.tool, r.agent_id, r.model, r.project_id};
    auto t = total_known.find(k4);
    if (t == total_known.end()) {
      had_total.reset();
      BindKey(had_total, 1, fields);
      t = total_known.emplace(k4, had_total.executeStep() && had_total.getColumn(0).getInt() != 0).first;
    }
    if (t->second) into_totals.push_back(r);
  }
  had_bucket.reset();
  had_total.reset();
  FoldOutcomes(db, into_buckets, into_totals, half_life_ms);
  db.exec(
      "DROP TABLE temp.affective_import_outcomes;"
      "DROP TABLE temp.affective_import_buckets;"
      "DROP TABLE temp.affective_import_totals;");
  return static_cast<std::int64_t>(std::max(into_buckets.size(), into_totals.size()));
}

bool DecayStale(SQLite::Database& db, double half_life_ms) {
  SQLite::Statement q(db, "SELECT EXISTS(SELECT 1 FROM affective_totals WHERE half_life_ms <> ?)");
  sdk::Bind(q, static_cast<int64_t>(std::llround(half_life_ms)));
  return q.executeStep() && q.getColumn(0).getInt() != 0;
}

std::int64_t RebuildDecay(SQLite::Database& db, double half_life_ms) {
  const auto half_life_key = static_cast<std::int64_t>(std::llround(half_life_ms));
  std::vector<std::pair<std::int64_t, KeyFields>> stale;
  {
    SQLite::Statement q(db,
                        "SELECT id, tool, agent_id, model, project_id FROM affective_totals "
                        "WHERE half_life_ms <> ?");
    sdk::Bind(q, static_cast<int64_t>(half_life_key));
    while (q.executeStep()) {
      stale.push_back({q.getColumn(0).getInt64(),
                       {q.getColumn(1).getString(), q.getColumn(2).getString(),
                        q.getColumn(3).getString(), q.getColumn(4).getString()}});
    }
  }
  SQLite::Statement update(db,
                           "UPDATE affective_totals SET half_life_ms = ?, landmark_at = ?, "
                           "decay_n = ?, decay_s = ? WHERE id = ?");
  for (const auto& [id, key] : stale) {
    const ForwardDecay fd = DecayFromBuckets(db, key, static_cast<double>(half_life_key));
    update.reset();
    sdk::Bind(update, static_cast<int64_t>(half_life_key), static_cast<int64_t>(fd.landmark_ms),
              fd.n, fd.s, static_cast<int64_t>(id));
    update.exec();
  }
  return static_cast<std::int64_t>(stale.size());
}

void ForEachBucket(SQLite::Database& db, const Filter& filter, std::int64_t min_day,
                   std::int64_t max_day, bool with_latency,
                   const std::function<void(const BucketRow&)>& fn) {
  std::string sql = std::string("SELECT tool, agent_id, model, project_id, day, offset_sum_ms, ") +
                    kCounterColumns + (with_latency ? ", latency_bins" : "") +
                    " FROM affective_buckets";
  sdk::SqlWhere w;
  w.Raw("day >= ?", {min_day}).Raw("day <= ?", {max_day});
  AddFilter(w, filter);
  SQLite::Statement q(db, sql + w.Sql());
  sdk::BindAll(q, w.Values());
  BucketRow row;
  while (q.executeStep()) {
    row.tool = q.getColumn(0).getString();
    row.agent_id = q.getColumn(1).getString();
    row.model = q.getColumn(2).getString();
    row.project_id = q.getColumn(3).getString();
    row.day = q.getColumn(4).getInt64();
    row.offset_sum_ms = q.getColumn(5).getInt64();
    ReadCounters(q, 6, row.c);
    row.c.latency = with_latency ? LatencyHistogram::Decode(BlobOf(q.getColumn(6 + kCounterColumnCount)))
                                 : LatencyHistogram();
    fn(row);
  }
}

void ForEachTotal(SQLite::Database& db, const Filter& filter, bool with_latency,
                  const std::function<void(const TotalsRow&)>& fn) {
  std::string sql = std::string(
                        "SELECT tool, agent_id, model, project_id, half_life_ms, "
                        "landmark_at, decay_n, decay_s, ") +
                    kCounterColumns + (with_latency ? ", latency_bins" : "") +
                    " FROM affective_totals";
  sdk::SqlWhere w;
  AddFilter(w, filter);
  SQLite::Statement q(db, sql + w.Sql());
  sdk::BindAll(q, w.Values());
  TotalsRow row;
  while (q.executeStep()) {
    row.tool = q.getColumn(0).getString();
    row.agent_id = q.getColumn(1).getString();
    row.model = q.getColumn(2).getString();
    row.project_id = q.getColumn(3).getString();
    row.decay.half_life_ms = static_cast<double>(q.getColumn(4).getInt64());
    row.decay.landmark_ms = q.getColumn(5).getInt64();
    row.decay.n = q.getColumn(6).getDouble();
    row.decay.s = q.getColumn(7).getDouble();
    ReadCounters(q, 8, row.c);
    row.c.latency = with_latency ? LatencyHistogram::Decode(BlobOf(q.getColumn(8 + kCounterColumnCount)))
                                 : LatencyHistogram();
    fn(row);
  }
}

void ForEachRawOutcome(SQLite::Database& db, const Filter& filter, std::int64_t from_ms,
                       std::int64_t to_ms, const std::function<void(const OutcomeRecord&)>& fn) {
  sdk::SqlWhere w;
  w.Raw("at >= ?", {from_ms}).Raw("at < ?", {to_ms});
  AddFilter(w, filter);
  SQLite::Statement q(db,
                      std::string("SELECT ") + kRawColumns + " FROM affective_outcomes" + w.Sql());
  sdk::BindAll(q, w.Values());
  while (q.executeStep()) fn(ReadRaw(q));
}

std::vector<OutcomeRecord> RecentFailures(SQLite::Database& db, const Filter& filter,
                                          std::int64_t from_ms, std::int64_t to_ms, int limit) {
  std::vector<OutcomeRecord> out;
  if (limit <= 0) return out;
  // `outcome <> 'success'` verbatim so the planner can use the partial failures index.
  sdk::SqlWhere w;
  w.Raw("outcome <> 'success'").Raw("at >= ?", {from_ms}).Raw("at < ?", {to_ms});
  AddFilter(w, filter);
  std::vector<sdk::SqlValue> values = w.Values();
  values.emplace_back(std::int64_t{limit});
  SQLite::Statement q(db, std::string("SELECT ") + kRawColumns + " FROM affective_outcomes" +
                              w.Sql() + " ORDER BY at DESC, id DESC LIMIT ?");
  sdk::BindAll(q, values);
  while (q.executeStep()) out.push_back(ReadRaw(q));
  return out;
}

std::int64_t DeleteRawBefore(SQLite::Database& db, std::int64_t cutoff_ms, int limit) {
  SQLite::Statement del(db,
                        "DELETE FROM affective_outcomes WHERE id IN (SELECT id FROM "
                        "affective_outcomes WHERE at < ? ORDER BY at LIMIT ?)");
  sdk::Bind(del, static_cast<int64_t>(cutoff_ms), limit);
  return del.exec();
}

std::optional<std::int64_t> ReadMeta(SQLite::Database& db, const std::string& key) {
  SQLite::Statement q(db, "SELECT value FROM affective_meta WHERE key = ?");
  sdk::Bind(q, key);
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getInt64();
}

void WriteMeta(SQLite::Database& db, const std::string& key, std::int64_t value) {
  SQLite::Statement q(db,
                      "INSERT INTO affective_meta (key, value) VALUES (?, ?) "
                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  sdk::Bind(q, key, static_cast<int64_t>(value));
  q.exec();
}

}  // namespace kioku::affective
