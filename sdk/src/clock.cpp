#include "kioku/sdk/clock.hpp"

#include <chrono>
#include <cstdio>

namespace kioku::sdk {
namespace {

using std::chrono::days;
using std::chrono::milliseconds;
using std::chrono::sys_days;

// Floor division: negative Unix ms (before 1970) must still land on the right day.
constexpr std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` ASCII digits at `pos`; advances `pos` on success.
bool ReadDigits(std::string_view s, std::size_t& pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  pos += n;
  return true;
}

bool Expect(std::string_view s, std::size_t& pos, char c) {
  if (pos < s.size() && s[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

}  // namespace

std::int64_t SystemClock::NowMs() const {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string FormatRfc3339(std::int64_t unix_ms) {
  const std::int64_t day = FloorDiv(unix_ms, kMsPerDay);
  const std::int64_t ms_of_day = unix_ms - day * kMsPerDay;
  const std::chrono::year_month_day ymd{sys_days{days{day}}};
  const int hour = static_cast<int>(ms_of_day / 3'600'000);
  const int minute = static_cast<int>(ms_of_day / 60'000 % 60);
  const int second = static_cast<int>(ms_of_day / 1000 % 60);
  const int milli = static_cast<int>(ms_of_day % 1000);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), hour, minute, second, milli);
  return buf;
}

// Grammar (RFC 3339 §5.6): full-date [("T" / "t" / " ") partial-time time-offset], where
// partial-time = HH ":" MM ":" SS ["." 1*DIGIT] and time-offset = "Z" / "z" / ("+"/"-") HH ":" MM.
// Strict: no surrounding whitespace, calendar-valid dates only (2026-02-30 fails), seconds
// 00-59 (leap second 60 is refused because Unix time cannot represent it), fractions beyond
// milliseconds are truncated.
std::optional<std::int64_t> ParseRfc3339(std::string_view s) {
  std::size_t pos = 0;
  int y = 0, mo = 0, d = 0;
  if (!ReadDigits(s, pos, 4, y) || !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, mo) ||
      !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, d)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year{y},
                                        std::chrono::month{static_cast<unsigned>(mo)},
                                        std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  const std::int64_t day_ms =
      static_cast<std::int64_t>(sys_days{ymd}.time_since_epoch().count()) * kMsPerDay;
  if (pos == s.size()) return day_ms;

  if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return std::nullopt;
  ++pos;
  int hh = 0, mm = 0, ss = 0;
  if (!ReadDigits(s, pos, 2, hh) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, mm) ||
      !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, ss)) {
    return std::nullopt;
  }
  if (hh > 23 || mm > 59 || ss > 59) return std::nullopt;
  std::int64_t frac_ms = 0;
  if (Expect(s, pos, '.')) {
    std::size_t digits = 0;
    std::int64_t scale = 100;
    while (pos < s.size() && IsDigit(s[pos])) {
      if (digits < 3) {
        frac_ms += (s[pos] - '0') * scale;
        scale /= 10;
      }
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
  }
  if (pos >= s.size()) return std::nullopt;  // the offset is mandatory with a time
  std::int64_t offset_ms = 0;
  const char z = s[pos];
  if (z == 'Z' || z == 'z') {
    ++pos;
  } else if (z == '+' || z == '-') {
    ++pos;
    int oh = 0, om = 0;
    if (!ReadDigits(s, pos, 2, oh) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, om)) {
      return std::nullopt;
    }
    if (oh > 23 || om > 59) return std::nullopt;
    offset_ms = (oh * 60LL + om) * 60'000LL * (z == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  return day_ms + ((hh * 60LL + mm) * 60LL + ss) * kMsPerSecond + frac_ms - offset_ms;
}

}  // namespace kioku::sdk
