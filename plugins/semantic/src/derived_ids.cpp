#include "derived_ids.hpp"

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"

namespace kioku::semantic {

std::string DerivedTimeSql(const std::string& column) {
  return "max(0, min(" + column + ", " + std::to_string(sdk::kMaxIdTimeMs) + "))";
}

std::vector<std::pair<std::string, std::int64_t>> IdsStartingWith(SQLite::Database& db, const DerivedIdTable& table,
                                                                  const std::string& prefix, std::size_t n) {
  std::vector<std::pair<std::string, std::int64_t>> found;
  {
    // An index range, as sdk::ResolveIdPrefix does ('[' follows 'Z').
    SQLite::Statement q(db, table.kept + " LIMIT " + std::to_string(n));
    sdk::Bind(q, prefix, prefix + "[");
    while (q.executeStep()) found.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt64());
  }
  if (auto range = sdk::DerivedIdPrefixRange(prefix); range && found.size() < n) {
    SQLite::Statement q(db, table.derived + " LIMIT " + std::to_string(n - found.size()));
    sdk::Bind(q, range->seq_lo, range->seq_hi, range->ms_lo, range->ms_hi);
    while (q.executeStep()) {
      const std::int64_t seq = q.getColumn(0).getInt64();
      found.emplace_back(sdk::DerivedId(q.getColumn(1).getInt64(), seq), seq);
    }
  }
  return found;
}

}  // namespace kioku::semantic
