#pragma once
/// @file ids.hpp
/// Sortable unique ids.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kioku::sdk {

/// The latest time a ULID's 48-bit time part holds, Unix ms; NewId and DerivedId clamp to
/// [0, kMaxIdTimeMs].
inline constexpr std::int64_t kMaxIdTimeMs = (std::int64_t{1} << 48) - 1;

/// A ULID (https://github.com/ulid/spec): 26 characters of Crockford base32, 48-bit
/// millisecond timestamp then 80 random bits, so ids sort by creation time. Ids made in the
/// same millisecond by one process are strictly increasing (the spec's monotonic rule).
/// `unix_ms` is clamped to [0, 2^48-1]. Thread-safe.
std::string NewId(std::int64_t unix_ms);

/// Whether `id` has a ULID's shape (NewId's and DerivedId's alike): 26 Crockford base32
/// characters, either case, the first 0-7 (a 48-bit time).
bool IsUlid(std::string_view id);

/// A ULID-shaped id computed from a row instead of stored in it: `unix_ms` in the 48-bit time
/// part (as NewId, clamped alike) and `seq` (>= 0) in the low 63 bits of the 80-bit tail, the
/// rest zero; e.g. DerivedId(1796513101620, 2) == "01M948CXSM0000000000000002". A table whose
/// rows are named this way needs no id column or index: the id is decoded back to the row's
/// key (ParseDerivedId) and checked against its time. Sorts by time, then seq.
std::string DerivedId(std::int64_t unix_ms, std::int64_t seq);

struct DerivedIdParts {
  std::int64_t unix_ms = 0;
  std::int64_t seq = 0;
};
/// The parts of a DerivedId, case-insensitively; nullopt for anything else (not 26 Crockford
/// base32 characters, or a tail above 2^63-1, as a random ULID's almost always is).
std::optional<DerivedIdParts> ParseDerivedId(std::string_view id);

/// The derived ids starting with `prefix` (case-insensitive) are those whose time lies in
/// [ms_lo, ms_hi] and whose seq lies in [seq_lo, seq_hi], both inclusive; nullopt when no
/// DerivedId starts so (a character outside Crockford base32, over 26 characters, a time past
/// 48 bits or a tail past 2^63-1).
struct DerivedIdRange {
  std::int64_t ms_lo = 0, ms_hi = 0;
  std::int64_t seq_lo = 0, seq_hi = 0;
};
std::optional<DerivedIdRange> DerivedIdPrefixRange(std::string_view prefix);

/// A ULID-shaped id computed from a row that also holds a small nonce: `unix_ms` in the 48-bit
/// time part (clamped as DerivedId), then `nonce` (its low kSeqIdNonceBits bits) in 4
/// characters, then `seq` (0 <= seq < 2^60) in 12. The nonce is stored in the row (3 bytes,
/// against 26 for an id and ~40 for its unique index) and is what tells apart:
///   - rows of two databases with one seq and one millisecond, which a DerivedId names alike;
///   - a row from an id with a character changed, or guessed from the pattern of others,
///     which decodes to another row: its nonce differs (but for 1 in 2^20).
/// Sorts by time, then nonce; e.g. SeqId(1796513101620, 0x12345, 2) == "01M948CXSM28T5000000000002".
inline constexpr int kSeqIdNonceBits = 20;
std::string SeqId(std::int64_t unix_ms, std::int64_t nonce, std::int64_t seq);

struct SeqIdParts {
  std::int64_t unix_ms = 0;
  std::int64_t nonce = 0;
  std::int64_t seq = 0;
};
/// The parts of a SeqId, case-insensitively; nullopt for anything else (not 26 Crockford
/// base32 characters, a time past 48 bits).
std::optional<SeqIdParts> ParseSeqId(std::string_view id);

}  // namespace kioku::sdk
