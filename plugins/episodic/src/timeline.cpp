#include "timeline.hpp"

#include <map>
#include <set>

#include <SQLiteCpp/Statement.h>

#include "tool_support.hpp"
#include "facets.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

namespace {

using Json = nlohmann::json;

constexpr int kScanRows = 5'000;

struct Section {
  std::vector<Json> items;
  std::set<std::string> seen;
  void Add(const std::string& session_id, std::int64_t at, const std::string& text) {
    if (!seen.insert(NormalizeKey(text)).second) return;
    items.push_back({{"session_id", session_id}, {"at", at}, {"text", text}});
  }
};

std::string ScopeSql(const TimelineQuery& q) {
  std::string sql;
  if (q.project) {
    sql += " AND (se.project IN (";
    for (std::size_t i = 0; i < q.project->size(); ++i) {
      sql += (i ? ", :p" : ":p") + std::to_string(i);
    }
    sql += ") OR se.project = '')";
  }
  if (!q.agent_id.empty()) sql += " AND se.agent_id = :agent";
  return sql;
}

void BindScope(SQLite::Statement& st, const TimelineQuery& q) {
  st.bind(":since", static_cast<int64_t>(q.since));
  st.bind(":until", static_cast<int64_t>(q.until));
  if (q.project) {
    for (std::size_t i = 0; i < q.project->size(); ++i) {
      st.bind(":p" + std::to_string(i), (*q.project)[i]);
    }
  }
  if (!q.agent_id.empty()) st.bind(":agent", q.agent_id);
}

Json Cut(std::vector<Json> items, int max_items, std::size_t* omitted, bool newest_first) {
  std::stable_sort(items.begin(), items.end(), [&](const Json& a, const Json& b) {
    return newest_first ? a["at"].get<std::int64_t>() > b["at"].get<std::int64_t>()
                        : a["at"].get<std::int64_t>() < b["at"].get<std::int64_t>();
  });
  *omitted = items.size() > static_cast<std::size_t>(max_items) ? items.size() - max_items : 0;
  if (*omitted > 0) items.resize(max_items);
  for (auto& it : items) it["at"] = sdk::FormatRfc3339(it["at"].get<std::int64_t>());
  return items;
}

}  // namespace

Json BuildTimeline(SQLite::Database& db, const TimelineQuery& q) {
  const std::string scope = ScopeSql(q);
  Json sessions = Json::array();
  std::size_t session_total = 0;
  {
    SQLite::Statement st(db,
                         "SELECT se.id, se.title, se.agent_id, se.model, se.started_at, "
                         "se.ended_at, se.message_count, se.last_activity_at FROM "
                         "episodic_sessions se WHERE se.started_at < :until AND "
                         "se.last_activity_at >= :since" +
                             scope + " ORDER BY se.started_at, se.id");
    BindScope(st, q);
    while (st.executeStep()) {
      ++session_total;
      if (sessions.size() >= static_cast<std::size_t>(q.max_items)) continue;
      sessions.push_back(
          {{"session_id", st.getColumn(0).getString()},
           {"title", st.getColumn(1).getString()},
           {"agent_id", st.getColumn(2).getString()},
           {"model", st.getColumn(3).getString()},
           {"started_at", sdk::FormatRfc3339(st.getColumn(4).getInt64())},
           {"ended_at", st.getColumn(5).isNull()
                            ? Json(nullptr)
                            : Json(sdk::FormatRfc3339(st.getColumn(5).getInt64()))},
           {"messages", st.getColumn(6).getInt64()}});
    }
  }

  Section decisions, issues, open_items;
  std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> files;
  {
    SQLite::Statement st(db,
                         "SELECT l.session_id, l.at, l.type, l.entry FROM episodic_log l JOIN "
                         "episodic_sessions se ON se.id = l.session_id WHERE l.at >= :since AND "
                         "l.at < :until AND l.type IN ('decision','issue','note','progress')" +
                             scope + " ORDER BY l.at LIMIT " + std::to_string(kScanRows));
    BindScope(st, q);
    while (st.executeStep()) {
      const std::string sid = st.getColumn(0).getString();
      const std::int64_t at = st.getColumn(1).getInt64();
      const std::string type = st.getColumn(2).getString();
      const std::string entry = st.getColumn(3).getString();
      if (type == "decision") {
        decisions.Add(sid, at, entry);
      } else if (type == "issue") {
        issues.Add(sid, at, entry);
      } else {
        for (auto& o : ExtractFacets(entry).open_items) open_items.Add(sid, at, o);
      }
      // Issue texts quote tool output full of incidental paths; files of imported
      // sessions come from episodic_files below.
      if (type != "issue") {
        for (auto& p : ExtractPaths(entry)) files[p].first.insert(sid);
      }
    }
  }
  {
    SQLite::Statement st(db,
                         "SELECT s.session_id, s.ended_at, s.summary, s.kind FROM "
                         "episodic_summaries s "
                         "JOIN episodic_sessions se ON se.id = s.session_id WHERE s.status = "
                         "'active' AND s.ended_at >= :since AND s.started_at < :until" +
                             scope + " ORDER BY s.ended_at LIMIT " + std::to_string(kScanRows));
    BindScope(st, q);
    while (st.executeStep()) {
      const std::string sid = st.getColumn(0).getString();
      const std::int64_t at = st.getColumn(1).getInt64();
      Facets f = ExtractFacets(st.getColumn(2).getString());
      for (auto& d : f.decisions) decisions.Add(sid, at, d);
      for (auto& o : f.open_items) open_items.Add(sid, at, o);
      // Transcript summaries restate episodic_files (plus paths quoted in errors).
      if (st.getColumn(3).getString() != "transcript") {
        for (auto& p : f.files) files[p].first.insert(sid);
      }
    }
  }
  {
    SQLite::Statement st(db,
                         "SELECT f.session_id, f.path, f.action FROM episodic_files f JOIN "
                         "episodic_sessions se ON se.id = f.session_id WHERE f.last_at >= :since "
                         "AND f.first_at < :until" +
                             scope + " LIMIT " + std::to_string(kScanRows));
    BindScope(st, q);
    while (st.executeStep()) {
      auto& entry = files[st.getColumn(1).getString()];
      entry.first.insert(st.getColumn(0).getString());
      entry.second.insert(st.getColumn(2).getString());
    }
  }
  // Files: most sessions first, then path.
  std::vector<Json> file_list;
  for (auto& [path, v] : files) {
    file_list.push_back({{"path", path},
                         {"sessions", v.first.size()},
                         {"actions", std::vector<std::string>(v.second.begin(), v.second.end())}});
  }
  std::stable_sort(file_list.begin(), file_list.end(), [](const Json& a, const Json& b) {
    return a["sessions"].get<std::size_t>() > b["sessions"].get<std::size_t>();
  });
  std::size_t files_omitted = 0;
  if (file_list.size() > static_cast<std::size_t>(q.max_items)) {
    files_omitted = file_list.size() - q.max_items;
    file_list.resize(q.max_items);
  }
  std::size_t od = 0, oi = 0, oo = 0;
  Json out = {{"since", sdk::FormatRfc3339(q.since)},
              {"until", sdk::FormatRfc3339(q.until)},
              {"sessions", sessions},
              {"decisions", Cut(decisions.items, q.max_items, &od, true)},
              {"issues", Cut(issues.items, q.max_items, &oi, true)},
              {"open_items", Cut(open_items.items, q.max_items, &oo, true)},
              {"files", file_list}};
  out["omitted"] = {{"sessions", session_total - sessions.size()},
                    {"decisions", od},
                    {"issues", oi},
                    {"open_items", oo},
                    {"files", files_omitted}};
  return out;
}

std::string FormatTimeline(const Json& d) {
  const Json& omitted = d["omitted"];
  const std::size_t n_sessions = d["sessions"].size() + omitted["sessions"].get<std::size_t>();
  std::string out = "Timeline " + d["since"].get<std::string>() + " → " +
                    d["until"].get<std::string>() + ": " + std::to_string(n_sessions) +
                    " session" + (n_sessions == 1 ? "" : "s");
  auto more = [&](const char* key) {
    const auto n = omitted[key].get<std::size_t>();
    return n > 0 ? "\n  … " + std::to_string(n) + " more" : std::string();
  };
  if (!d["sessions"].empty()) {
    out += "\nSessions:";
    for (const auto& s : d["sessions"]) {
      out += "\n- [" + s["started_at"].get<std::string>() + "] " +
             s["session_id"].get<std::string>();
      if (!s["title"].get<std::string>().empty()) out += " \"" + s["title"].get<std::string>() + "\"";
      if (!s["agent_id"].get<std::string>().empty()) out += " agent=" + s["agent_id"].get<std::string>();
      if (!s["model"].get<std::string>().empty()) out += " model=" + s["model"].get<std::string>();
      out += " msgs=" + std::to_string(s["messages"].get<std::int64_t>());
      out += s["ended_at"].is_null() ? " (open)" : " (ended)";
    }
    out += more("sessions");
  }
  auto section = [&](const char* key, const char* title) {
    if (d[key].empty()) return;
    out += std::string("\n") + title + ":";
    for (const auto& it : d[key]) {
      out += "\n- " + sdk::TruncateUtf8(it["text"].get<std::string>(), 300) + " (" +
             it["session_id"].get<std::string>() + ", " + it["at"].get<std::string>() + ")";
    }
    out += more(key);
  };
  section("decisions", "Decisions");
  section("issues", "Issues");
  section("open_items", "Open items");
  if (!d["files"].empty()) {
    out += "\nFiles touched:";
    for (const auto& f : d["files"]) {
      out += "\n- " + f["path"].get<std::string>();
      std::string acts;
      for (const auto& a : f["actions"]) acts += (acts.empty() ? "" : "+") + a.get<std::string>();
      out += " (" + (acts.empty() ? std::string("mentioned") : acts) + ", " +
             std::to_string(f["sessions"].get<std::size_t>()) + " session" +
             (f["sessions"].get<std::size_t>() == 1 ? "" : "s") + ")";
    }
    out += more("files");
  }
  if (n_sessions == 0 && d["decisions"].empty() && d["files"].empty()) {
    out += "\nNothing recorded in this window; widen since/until.";
  }
  return out;
}

}  // namespace kioku::episodic
