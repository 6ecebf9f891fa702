#pragma once
/// @file derived_ids.hpp
/// Ids of a table whose rows have a computed id (sdk::DerivedId of a time and the row's seq)
/// or one kept from before (or from an import): the ids starting with a typed prefix, for
/// id-prefix resolution (sdk::ResolveIdPrefix with an sdk::IdLookup). Entities and memories
/// both keep their ids this way (migrations 12 and 15).

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>

namespace kioku::semantic {

/// The SQL of one such table. `kept`: (id, seq) of kept ids `>= ?1 AND < ?2`, ordered by id
/// (an index range). `derived`: (seq, time) of rows whose id is computed, with seq in
/// [?1, ?2] and the time as DerivedId clamps it (DerivedTimeSql) in [?3, ?4], ordered by
/// time and seq. Both without LIMIT (IdsStartingWith adds it).
struct DerivedIdTable {
  std::string kept;
  std::string derived;
};

/// `max(0, min(<column>, sdk::kMaxIdTimeMs))`: the time a derived id holds.
std::string DerivedTimeSql(const std::string& column);

/// Up to `n` (id, seq) whose id starts with `prefix` (compared as typed: BINARY), kept ids
/// first, then derived ones in id order.
std::vector<std::pair<std::string, std::int64_t>> IdsStartingWith(SQLite::Database& db, const DerivedIdTable& table,
                                                                  const std::string& prefix, std::size_t n);

}  // namespace kioku::semantic
