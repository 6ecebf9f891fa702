#pragma once
/// @file ids.hpp
/// Sortable unique ids.

#include <cstdint>
#include <string>

namespace kioku::sdk {

/// A ULID (https://github.com/ulid/spec): 26 characters of Crockford base32, 48-bit
/// millisecond timestamp then 80 random bits, so ids sort by creation time. Ids made in the
/// same millisecond by one process are strictly increasing (the spec's monotonic rule).
/// `unix_ms` is clamped to [0, 2^48-1]. Thread-safe.
std::string NewId(std::int64_t unix_ms);

}  // namespace kioku::sdk
