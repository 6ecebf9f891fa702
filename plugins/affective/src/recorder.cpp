#include "recorder.hpp"

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::affective {

std::string Recorder::CleanError(std::string_view error) const {
  if (error.empty()) return {};
  std::string text = sdk::RedactSecrets(sdk::SanitizeUtf8(error));
  text = sdk::CollapseWhitespace(text);
  return sdk::TruncateUtf8(text, static_cast<std::size_t>(settings_.error_max_bytes));
}

WriteStats Recorder::Record(const std::vector<OutcomeRecord>& records) {
  // A deduplicated record older than the retention window could be counted twice on a
  // re-ingest (its raw row, the dedup key, is pruned), so it is refused and reported.
  const std::int64_t cutoff = host_.GetClock().NowMs() -
                              static_cast<std::int64_t>(settings_.retention_days) * sdk::kMsPerDay;
  std::int64_t expired = 0;
  std::vector<OutcomeRecord> kept;
  kept.reserve(records.size());
  for (const auto& r : records) {
    if (!r.source_id.empty() && r.at_ms < cutoff) {
      ++expired;
    } else {
      kept.push_back(r);
    }
  }
  WriteStats stats;
  auto& db = host_.Db();
  sdk::WithWriteTransaction(db, [&] { stats = WriteOutcomes(db, kept, HalfLifeMs()); });
  stats.expired = expired;
  MaybePrune(1);
  return stats;
}

double Recorder::HalfLifeMs() const {
  return settings_.half_life_days * static_cast<double>(sdk::kMsPerDay);
}

std::int64_t Recorder::RebuildDecayIfNeeded() {
  std::int64_t changed = 0;
  auto& db = host_.Db();
  if (!DecayStale(db, HalfLifeMs())) return 0;  // the usual start: no write lock
  sdk::WithWriteTransaction(db, [&] { changed = RebuildDecay(db, HalfLifeMs()); });
  if (changed > 0) {
    host_.Log().Info("half_life_days changed: rebuilt the decayed totals of " +
                     std::to_string(changed) + " tool/agent keys from day buckets");
  }
  return changed;
}

PruneStats Recorder::MaybePrune(int max_chunks) {
  const std::int64_t now = host_.GetClock().NowMs();
  if (now < next_check_ms_.load()) return {};
  if (auto last = ReadMeta(host_.Db(), kMetaLastPrune); last && now - *last < kPruneIntervalMs) {
    next_check_ms_.store(*last + kPruneIntervalMs);
    return {};
  }
  return Prune(max_chunks);
}

PruneStats Recorder::Prune(int max_chunks) {
  PruneStats stats;
  stats.ran = true;
  auto& db = host_.Db();
  const std::int64_t now = host_.GetClock().NowMs();
  const std::int64_t cutoff = now - static_cast<std::int64_t>(settings_.retention_days) * sdk::kMsPerDay;
  for (int chunk = 0; chunk < max_chunks; ++chunk) {
    std::int64_t deleted = 0;
    sdk::WithWriteTransaction(db, [&] {
      deleted = DeleteRawBefore(db, cutoff, kPruneChunkRows);
      if (deleted < kPruneChunkRows) WriteMeta(db, kMetaLastPrune, now);
    });
    stats.deleted += deleted;
    if (deleted < kPruneChunkRows) {
      stats.completed = true;
      next_check_ms_.store(now + kPruneIntervalMs);
      break;
    }
  }
  if (stats.deleted > 0) {
    host_.Log().Debug("retention: deleted " + std::to_string(stats.deleted) +
                      " raw outcomes older than " + sdk::FormatRfc3339(cutoff));
  }
  return stats;
}

}  // namespace kioku::affective
