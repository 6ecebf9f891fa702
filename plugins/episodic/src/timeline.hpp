#pragma once
/// @file timeline.hpp
/// session_timeline: a digest of a time window (a day, a week): the sessions active in it,
/// the decisions and issues logged, the open items and the files touched.
/// Window [since, until): since inclusive, until exclusive. A session is in it when
/// started_at < until and last_activity_at >= since. Decisions and open items come from the
/// log (type decision / entries classified open) and from the active summaries overlapping
/// the window (facets.hpp), de-duplicated by normalized text. Each section is cut at
/// `max_items` and reports how many were left out.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

namespace kioku::episodic {

struct TimelineQuery {
  std::int64_t since = 0;
  std::int64_t until = 0;
  std::optional<std::vector<std::string>> project;  ///< keys; nullopt = all
  std::string agent_id;
  int max_items = 25;
};

/// Structured digest (the tool's structuredContent).
nlohmann::json BuildTimeline(SQLite::Database& db, const TimelineQuery& q);

/// Compact text of a digest built by BuildTimeline.
std::string FormatTimeline(const nlohmann::json& digest);

}  // namespace kioku::episodic
