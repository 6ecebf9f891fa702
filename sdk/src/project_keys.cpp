#include "kioku/sdk/project_keys.hpp"

#include <utility>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

namespace kioku::sdk {
namespace {

// What a path stored under `old_key` must be prefixed with under `new_key`.
std::string PathPrefix(const std::string& old_key, const std::string& new_key) {
  const auto split = old_key.find("//");
  if (split == std::string::npos || old_key.find("://") != std::string::npos) return {};
  const std::string sub = old_key.substr(split + 2);
  const auto new_split = new_key.find("//");
  const std::string kept = new_split == std::string::npos ? "" : new_key.substr(new_split + 2);
  if (kept.empty()) return sub + "/";
  if (sub.rfind(kept + "/", 0) == 0) return sub.substr(kept.size() + 1) + "/";
  return {};
}

}  // namespace

int RewriteProjectKeys(SQLite::Database& db, const ProjectColumn& col, const ProjectOptions& options) {
  const std::string& t = col.table;
  const std::string& c = col.column;
  std::vector<std::pair<std::string, std::string>> moves;
  {
    SQLite::Statement q(db, "SELECT DISTINCT " + c + " FROM " + t + " WHERE " + c + " IS NOT NULL");
    while (q.executeStep()) {
      std::string old_key = q.getColumn(0).getString();
      std::string new_key = CanonicalProjectKey(old_key, options);
      if (new_key != old_key) moves.emplace_back(std::move(old_key), std::move(new_key));
    }
  }
  int moved = 0;
  const std::string& p = col.path_column;
  SQLite::Statement up(db, p.empty() ? "UPDATE OR IGNORE " + t + " SET " + c + " = ?1 WHERE " + c + " = ?2"
                                     : "UPDATE OR IGNORE " + t + " SET " + c + " = ?1, " + p + " = CASE WHEN " + p +
                                           " <> '' THEN ?3 || " + p + " ELSE " + p + " END WHERE " + c + " = ?2");
  for (const auto& [old_key, new_key] : moves) {
    up.bind(1, new_key);
    up.bind(2, old_key);
    if (!p.empty()) up.bind(3, PathPrefix(old_key, new_key));
    moved += up.exec();
    up.reset();
  }
  return moved;
}

Migration ProjectKeysMigration(int version, std::vector<ProjectColumn> columns, ProjectOptions options) {
  Migration m;
  m.version = version;
  m.description = "project keys: one identity per repository (old spellings — raw or ~ paths, "
                  "<repo>//<subfolder> — rewritten)";
  m.apply = [columns = std::move(columns), options = std::move(options)](SQLite::Database& db) {
    for (const auto& col : columns) RewriteProjectKeys(db, col, options);
  };
  return m;
}

}  // namespace kioku::sdk
