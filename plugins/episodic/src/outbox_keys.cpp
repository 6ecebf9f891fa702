#include "outbox_keys.hpp"

#include <string_view>
#include <tuple>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/json.hpp"
#include "kioku/sdk/sql.hpp"

namespace kioku::episodic {
namespace {

constexpr std::string_view kSuggestPrefix = "suggest:";

bool Canonicalize(nlohmann::json& obj, const sdk::ProjectOptions& options) {
  if (!obj.is_object()) return false;
  auto it = obj.find("project_id");
  if (it == obj.end() || !it->is_string()) return false;
  std::string key = sdk::CanonicalProjectKey(it->get<std::string>(), options);
  if (key == it->get<std::string>()) return false;
  *it = std::move(key);
  return true;
}

}  // namespace

bool CanonicalizeOutboxProjects(nlohmann::json& payload, nlohmann::json& caller,
                                const sdk::ProjectOptions& options) {
  bool changed = Canonicalize(caller, options);
  if (payload.is_object()) {
    if (auto records = payload.find("records"); records != payload.end() && records->is_array()) {
      for (auto& r : *records) changed = Canonicalize(r, options) || changed;
    }
  }
  return changed;
}

int MoveOutboxProjectKeys(SQLite::Database& db, const sdk::ProjectOptions& options) {
  std::vector<std::tuple<std::int64_t, std::string, std::string, std::string>> rows;
  {
    SQLite::Statement q(
        db, "SELECT id, coalesce(dedupe_key, ''), payload, caller FROM episodic_outbox");
    while (q.executeStep()) {
      rows.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                        q.getColumn(2).getString(), q.getColumn(3).getString());
    }
  }
  SQLite::Statement up(db, "UPDATE episodic_outbox SET payload = ?1, caller = ?2 WHERE id = ?3");
  SQLite::Statement dedupe(db,
                           "UPDATE OR IGNORE episodic_outbox SET dedupe_key = ?1 WHERE id = ?2");
  int changed = 0;
  for (const auto& [id, key, payload_text, caller_text] : rows) {
    nlohmann::json payload = nlohmann::json::parse(payload_text, nullptr, false);
    nlohmann::json caller = nlohmann::json::parse(caller_text, nullptr, false);
    const std::string old_project = caller.is_object() ? caller.value("project_id", "") : "";
    if (!CanonicalizeOutboxProjects(payload, caller, options)) continue;
    ++changed;
    sdk::Bind(up, payload.is_discarded() ? payload_text : sdk::DumpJson(payload),
              sdk::DumpJson(caller), static_cast<int64_t>(id));
    up.exec();
    up.reset();
    const std::string prefix = std::string(kSuggestPrefix) + old_project + ":";
    if (!old_project.empty() && key.rfind(prefix, 0) == 0) {
      dedupe.bind(1, std::string(kSuggestPrefix) + caller.value("project_id", "") + ":" +
                         key.substr(prefix.size()));
      dedupe.bind(2, static_cast<int64_t>(id));
      dedupe.exec();
      dedupe.reset();
    }
  }
  return changed;
}

}  // namespace kioku::episodic
