#include "kioku/sdk/ids.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <mutex>
#include <random>

namespace kioku::sdk {
namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Process-wide generator state for the ULID monotonic rule: within one millisecond the
// 80-bit random part of the previous id is incremented instead of redrawn.
struct UlidState {
  std::mutex mu;
  std::mt19937_64 rng;
  std::int64_t last_ms = -1;
  std::array<std::uint8_t, 10> last_random{};  // big-endian 80 bits

  UlidState() {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    rng.seed(seq);
  }

  void Draw() {
    const std::uint64_t a = rng();
    const std::uint64_t b = rng();
    for (int i = 0; i < 8; ++i) last_random[i] = static_cast<std::uint8_t>(a >> (56 - 8 * i));
    last_random[8] = static_cast<std::uint8_t>(b >> 8);
    last_random[9] = static_cast<std::uint8_t>(b);
  }

  // Returns false on overflow (all 80 bits were 1).
  bool Increment() {
    for (int i = 9; i >= 0; --i) {
      if (++last_random[i] != 0) return true;
    }
    return false;
  }
};

// 5-bit value of a Crockford base32 character (either case), -1 for anything else.
int CrockfordValue(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  for (int v = 0; v < 32; ++v) {
    if (kCrockford[v] == c) return v;
  }
  return -1;
}

// An 80-bit unsigned number as high 16 and low 64 bits (no __int128 under -Wpedantic).
struct U80 {
  std::uint64_t hi = 0, lo = 0;
  void Push5(unsigned v) {
    hi = ((hi << 5) | (lo >> 59)) & 0xFFFF;
    lo = (lo << 5) | v;
  }
};

// `chars` read as base32 digits, padded on the right with `pad` (0 or 31) to `width`
// characters. False when a character is not Crockford base32.
bool ReadPadded(std::string_view chars, std::size_t width, unsigned pad, U80& out) {
  for (std::size_t i = 0; i < width; ++i) {
    unsigned v = pad;
    if (i < chars.size()) {
      const int d = CrockfordValue(chars[i]);
      if (d < 0) return false;
      v = static_cast<unsigned>(d);
    }
    out.Push5(v);
  }
  return true;
}

constexpr std::uint64_t kMaxSeq = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

UlidState& State() {
  static UlidState state;
  return state;
}

}  // namespace

std::string NewId(std::int64_t unix_ms) {
  std::int64_t ms = unix_ms < 0 ? 0 : (unix_ms > kMaxIdTimeMs ? kMaxIdTimeMs : unix_ms);
  std::array<std::uint8_t, 10> random{};
  {
    UlidState& st = State();
    std::lock_guard<std::mutex> lock(st.mu);
    if (ms == st.last_ms) {
      if (!st.Increment()) {
        // 80-bit overflow within one millisecond (practically unreachable): the spec says
        // fail; we borrow the next millisecond instead so ids stay strictly increasing.
        if (ms < kMaxIdTimeMs) ++ms;
        st.Draw();
      }
    } else {
      // A new millisecond, or the caller's clock went backwards (ManualClock in tests):
      // draw fresh randomness; ordering then follows the timestamp.
      st.Draw();
    }
    st.last_ms = ms;
    random = st.last_random;
  }

  std::string out(26, '0');
  // 48-bit time: 10 characters, the first carrying only 3 bits.
  std::uint64_t t = static_cast<std::uint64_t>(ms);
  for (int i = 9; i >= 0; --i) {
    out[i] = kCrockford[t & 31];
    t >>= 5;
  }
  // 80 random bits: 16 characters of 5 bits, read big-endian.
  int bit = 0;
  for (int i = 0; i < 16; ++i) {
    unsigned v = 0;
    for (int j = 0; j < 5; ++j, ++bit) {
      v = (v << 1) | ((random[bit / 8] >> (7 - bit % 8)) & 1u);
    }
    out[10 + i] = kCrockford[v];
  }
  return out;
}

bool IsUlid(std::string_view id) {
  return id.size() == 26 && id[0] >= '0' && id[0] <= '7' &&
         std::all_of(id.begin(), id.end(), [](char c) { return CrockfordValue(c) >= 0; });
}

std::string DerivedId(std::int64_t unix_ms, std::int64_t seq) {
  std::uint64_t t = static_cast<std::uint64_t>(unix_ms < 0 ? 0 : (unix_ms > kMaxIdTimeMs ? kMaxIdTimeMs : unix_ms));
  std::uint64_t s = static_cast<std::uint64_t>(seq < 0 ? 0 : seq);
  std::string out(26, '0');
  for (int i = 9; i >= 0; --i, t >>= 5) out[i] = kCrockford[t & 31];
  // The tail's 80 bits: 16 characters; seq < 2^63 fills at most the last 13.
  for (int i = 25; i >= 10; --i, s >>= 5) out[i] = kCrockford[s & 31];
  return out;
}

std::string SeqId(std::int64_t unix_ms, std::int64_t nonce, std::int64_t seq) {
  std::string out = DerivedId(unix_ms, seq);  // the time, then seq in the tail's low bits
  auto n = static_cast<std::uint64_t>(nonce) & ((std::uint64_t{1} << kSeqIdNonceBits) - 1);
  for (int i = 13; i >= 10; --i, n >>= 5) out[i] = kCrockford[n & 31];
  return out;
}

std::optional<SeqIdParts> ParseSeqId(std::string_view id) {
  if (id.size() != 26) return std::nullopt;
  std::string tail(id);
  tail.replace(10, 4, "0000");
  const std::optional<DerivedIdParts> parts = ParseDerivedId(tail);
  if (!parts) return std::nullopt;
  std::int64_t nonce = 0;
  for (std::size_t i = 10; i <= 13; ++i) {  // ParseDerivedId checked the other characters
    const int v = CrockfordValue(id[i]);
    if (v < 0) return std::nullopt;
    nonce = nonce * 32 + v;
  }
  return SeqIdParts{parts->unix_ms, nonce, parts->seq};
}

std::optional<DerivedIdParts> ParseDerivedId(std::string_view id) {
  if (id.size() != 26) return std::nullopt;
  auto range = DerivedIdPrefixRange(id);
  if (!range) return std::nullopt;
  return DerivedIdParts{range->ms_lo, range->seq_lo};
}

std::optional<DerivedIdRange> DerivedIdPrefixRange(std::string_view prefix) {
  if (prefix.size() > 26) return std::nullopt;
  const std::string_view time = prefix.substr(0, std::min<std::size_t>(prefix.size(), 10));
  const std::string_view tail = prefix.size() > 10 ? prefix.substr(10) : std::string_view{};
  U80 t_lo, t_hi, s_lo, s_hi;
  if (!ReadPadded(time, 10, 0, t_lo) || !ReadPadded(time, 10, 31, t_hi) || !ReadPadded(tail, 16, 0, s_lo) ||
      !ReadPadded(tail, 16, 31, s_hi)) {
    return std::nullopt;
  }
  const auto max_time = static_cast<std::uint64_t>(kMaxIdTimeMs);
  if (t_lo.lo > max_time || s_lo.hi != 0 || s_lo.lo > kMaxSeq) return std::nullopt;
  DerivedIdRange r;
  r.ms_lo = static_cast<std::int64_t>(t_lo.lo);
  r.ms_hi = static_cast<std::int64_t>(std::min(t_hi.lo, max_time));
  r.seq_lo = static_cast<std::int64_t>(s_lo.lo);
  r.seq_hi = static_cast<std::int64_t>(s_hi.hi != 0 ? kMaxSeq : std::min(s_hi.lo, kMaxSeq));
  return r;
}

}  // namespace kioku::sdk
