#include "kioku/sdk/sql.hpp"
#include "project_merge.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "latency_histogram.hpp"

namespace kioku::affective {
namespace {

// Migration 3's code: it runs on the v2 schema, so it names the columns as they were
// before migration 4 renamed them (last_at_ms, landmark_ms).

constexpr const char* kAdd =
    "n = t.n + s.n, success = t.success + s.success, failure = t.failure + s.failure, "
    "partial = t.partial + s.partial, rejected = t.rejected + s.rejected, "
    "timeout = t.timeout + s.timeout, last_at_ms = max(t.last_at_ms, s.last_at_ms), "
    "latency_n = t.latency_n + s.latency_n, latency_sum_ms = t.latency_sum_ms + s.latency_sum_ms, "
    "confidence_n = t.confidence_n + s.confidence_n, "
    "confidence_sum = t.confidence_sum + s.confidence_sum";

std::string Blob(const SQLite::Column& col) {
  const int size = col.getBytes();
  const void* data = col.getBlob();
  if (size <= 0 || data == nullptr) return {};
  return {static_cast<const char*>(data), static_cast<std::size_t>(size)};
}

void BindBlob(SQLite::Statement& st, int index, const std::string& bytes) {
  static const char kEmpty = 0;  // the column is NOT NULL: never bind a null pointer
  st.bind(index, bytes.empty() ? static_cast<const void*>(&kEmpty) : bytes.data(),
          static_cast<int>(bytes.size()));
}

std::vector<std::pair<std::string, std::string>> Moves(SQLite::Database& db,
                                                       const std::string& table,
                                                       const sdk::ProjectOptions& options) {
  std::vector<std::pair<std::string, std::string>> out;
  SQLite::Statement q(db, "SELECT DISTINCT project_id FROM " + table);
  while (q.executeStep()) {
    std::string old_key = q.getColumn(0).getString();
    std::string new_key = sdk::CanonicalProjectKey(old_key, options);
    if (new_key != old_key) out.emplace_back(std::move(old_key), std::move(new_key));
  }
  return out;
}

// One table: `day` says whether the unique key has a day column (buckets) or the row
// carries forward-decay sums (totals).
int MergeTable(SQLite::Database& db, const std::string& table, bool buckets,
               const sdk::ProjectOptions& options) {
  const std::string day_match = buckets ? " AND t.day = s.day" : "";
  SQLite::Statement sources(db, "SELECT id FROM " + table + " WHERE project_id = ?");
  SQLite::Statement target(db, "SELECT t.id FROM " + table + " t, " + table +
                                   " s WHERE s.id = ?1 AND t.project_id = ?2 AND t.tool = s.tool "
                                   "AND t.agent_id = s.agent_id AND t.model = s.model" +
                                   day_match);
  SQLite::Statement move(db, "UPDATE " + table + " SET project_id = ?1 WHERE id = ?2");
  SQLite::Statement add(
      db, "UPDATE " + table + " AS t SET " + kAdd +
              (buckets ? ", offset_sum_ms = t.offset_sum_ms + s.offset_sum_ms" : "") + " FROM " +
              table + " AS s WHERE t.id = ?1 AND s.id = ?2");
  SQLite::Statement pair_state(
      db, std::string("SELECT a.latency_bins, b.latency_bins") +
              (buckets ? ""
                       : ", a.half_life_ms, a.landmark_ms, a.decay_n, a.decay_s, "
                         "b.half_life_ms, b.landmark_ms, b.decay_n, b.decay_s") +
              " FROM " + table + " a, " + table + " b WHERE a.id = ?1 AND b.id = ?2");
  SQLite::Statement set_bins(db, "UPDATE " + table + " SET latency_bins = ?1 WHERE id = ?2");
  std::optional<SQLite::Statement> decay_update;  // totals only
  if (!buckets) {
    decay_update.emplace(db, "UPDATE " + table +
                                 " SET half_life_ms = ?1, landmark_ms = ?2, decay_n = ?3, "
                                 "decay_s = ?4 WHERE id = ?5");
  }
  SQLite::Statement drop(db, "DELETE FROM " + table + " WHERE id = ?");
  int changed = 0;
  for (const auto& [old_key, new_key] : Moves(db, table, options)) {
    std::vector<std::int64_t> ids;
    sdk::Bind(sources, old_key);
    while (sources.executeStep()) ids.push_back(sources.getColumn(0).getInt64());
    sources.reset();
    for (const std::int64_t src : ids) {
      sdk::Bind(target, static_cast<int64_t>(src), new_key);
      std::optional<std::int64_t> dst;
      if (target.executeStep()) dst = target.getColumn(0).getInt64();
      target.reset();
      ++changed;
      if (!dst) {
        sdk::Bind(move, new_key, static_cast<int64_t>(src));
        move.exec();
        move.reset();
        continue;
      }
      sdk::Bind(pair_state, static_cast<int64_t>(*dst), static_cast<int64_t>(src));
      pair_state.executeStep();
      LatencyHistogram bins = LatencyHistogram::Decode(Blob(pair_state.getColumn(0)));
      bins.Merge(LatencyHistogram::Decode(Blob(pair_state.getColumn(1))));
      if (!buckets) {
        const std::int64_t h_a = pair_state.getColumn(2).getInt64();
        const std::int64_t l_a = pair_state.getColumn(3).getInt64();
        const double n_a = pair_state.getColumn(4).getDouble();
        const double s_a = pair_state.getColumn(5).getDouble();
        const std::int64_t h_b = pair_state.getColumn(6).getInt64();
        const std::int64_t l_b = pair_state.getColumn(7).getInt64();
        const double n_b = pair_state.getColumn(8).getDouble();
        const double s_b = pair_state.getColumn(9).getDouble();
        std::int64_t half_life = 0, landmark = std::max(l_a, l_b);
        double n = n_a, s = s_a;
        if (h_a == h_b && h_a > 0) {
          const double w_a =
              std::exp2(-static_cast<double>(landmark - l_a) / static_cast<double>(h_a));
          const double w_b =
              std::exp2(-static_cast<double>(landmark - l_b) / static_cast<double>(h_a));
          half_life = h_a;
          n = n_a * w_a + n_b * w_b;
          s = s_a * w_a + s_b * w_b;
        }
        SQLite::Statement& set_decay = *decay_update;
        sdk::Bind(set_decay, static_cast<int64_t>(half_life), static_cast<int64_t>(landmark), n, s,
                  static_cast<int64_t>(*dst));
      }
      pair_state.reset();
      sdk::Bind(add, static_cast<int64_t>(*dst), static_cast<int64_t>(src));
      add.exec();
      add.reset();
      set_bins.bind(2, static_cast<int64_t>(*dst));
      BindBlob(set_bins, 1, bins.Encode());
      set_bins.exec();
      set_bins.reset();
      if (decay_update) {
        decay_update->exec();
        decay_update->reset();
      }
      sdk::Bind(drop, static_cast<int64_t>(src));
      drop.exec();
      drop.reset();
    }
  }
  return changed;
}

}  // namespace

int MergeProjectSpellings(SQLite::Database& db, const sdk::ProjectOptions& options) {
  return MergeTable(db, "affective_buckets", true, options) +
         MergeTable(db, "affective_totals", false, options);
}

}  // namespace kioku::affective
