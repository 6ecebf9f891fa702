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

/// A DerivedId whose tail begins with a check instead of zeros: characters 10–12 (15 bits)
/// hold CheckedIdCheck(unix_ms, seq). Rows made one after another get ids that differ beyond
/// their last characters, and an id with one character changed — a slip in copying, or an
/// id guessed from the pattern of others — names no row: a lookup decodes the time and seq,
/// computes the row's id and finds it differs. Every change of one character of the seq
/// part changes the check (see CheckedIdCheck); a change in the time part does unless it
/// cancels out (about 1 in 32,749). Same shape as DerivedId (IsUlid holds).
std::string CheckedId(std::int64_t unix_ms, std::int64_t seq);

/// The check of CheckedId, in [0, kCheckPrime): with P = 32,749 (a prime), s = seq (< 0 as
/// 0) and t = unix_ms clamped as DerivedId does,
///   (20011·(s mod P) + 15511·(⌊s/P⌋ mod P) + 9973·(⌊s/P²⌋ mod P)
///    + 12347·(t mod P) + 27361·(⌊t/P⌋ mod P) + 5171·(⌊t/P²⌋ mod P) + 30011·⌊t/P³⌋) mod P.
/// A linear form over base-P digits, so it can be written in plain SQL without overflow.
/// Changing one base-32 character of seq changes s by k·32^j (|k| ≤ 31), which is never a
/// multiple of P, so the digits change by an amount no coefficient (each < P) maps to 0.
inline constexpr std::int64_t kCheckPrime = 32749;
std::int64_t CheckedIdCheck(std::int64_t unix_ms, std::int64_t seq);

/// The parts of a CheckedId, case-insensitively; nullopt for anything else, a check that
/// does not match its time and seq included.
std::optional<DerivedIdParts> ParseCheckedId(std::string_view id);

}  // namespace kioku::sdk
