#pragma once
/// @file clock.hpp
/// Wall-clock time as Unix milliseconds (UTC) and RFC 3339 conversion. All stored times in
/// kioku are INTEGER Unix ms; they are shown to users as RFC 3339 strings.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kioku::sdk {

/// Source of "now". Injected through HostServices so tests control time (no sleeps).
/// Thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Current time in Unix milliseconds, UTC.
  virtual std::int64_t NowMs() const = 0;
};

/// The real clock (std::chrono::system_clock).
class SystemClock final : public Clock {
 public:
  std::int64_t NowMs() const override;
};

/// A clock that moves only when told to. For tests. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t now_ms = 1'767'225'600'000 /* 2026-01-01T00:00:00Z */)
      : now_ms_(now_ms) {}
  std::int64_t NowMs() const override { return now_ms_.load(); }
  void Set(std::int64_t now_ms) { now_ms_.store(now_ms); }
  void Advance(std::int64_t delta_ms) { now_ms_.fetch_add(delta_ms); }

 private:
  std::atomic<std::int64_t> now_ms_;
};

/// Formats Unix ms as RFC 3339 UTC with millisecond precision: "2026-11-29T18:56:36.123Z".
std::string FormatRfc3339(std::int64_t unix_ms);

/// Parses an RFC 3339 date-time ("2026-11-29T18:56:36Z", fractional seconds and numeric
/// offsets accepted, 'T'/'t'/' ' separator) or a full date ("2026-11-29" = midnight UTC).
/// Returns Unix ms, or nullopt when the text is not RFC 3339. Strict: no surrounding
/// whitespace, calendar-valid dates only ("2026-02-30" fails), seconds 00-59 (leap second
/// 60 refused), an offset required after a time; fractions beyond ms are truncated.
std::optional<std::int64_t> ParseRfc3339(std::string_view text);

inline constexpr std::int64_t kMsPerSecond = 1000;
inline constexpr std::int64_t kMsPerDay = 86'400'000;

}  // namespace kioku::sdk
