#include "kioku/sdk/ids.hpp"

#include <array>
#include <mutex>
#include <random>

namespace kioku::sdk {
namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr std::int64_t kMaxUlidTime = (std::int64_t{1} << 48) - 1;

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

UlidState& State() {
  static UlidState state;
  return state;
}

}  // namespace

std::string NewId(std::int64_t unix_ms) {
  std::int64_t ms = unix_ms < 0 ? 0 : (unix_ms > kMaxUlidTime ? kMaxUlidTime : unix_ms);
  std::array<std::uint8_t, 10> random{};
  {
    UlidState& st = State();
    std::lock_guard<std::mutex> lock(st.mu);
    if (ms == st.last_ms) {
      if (!st.Increment()) {
        // 80-bit overflow within one millisecond (practically unreachable): the spec says
        // fail; we borrow the next millisecond instead so ids stay strictly increasing.
        if (ms < kMaxUlidTime) ++ms;
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

}  // namespace kioku::sdk
