#include "kioku/sdk/clock.hpp"

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

TEST(FormatRfc3339, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339(1'767'225'600'000), "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339(1'796'326'596'123), "2026-12-03T19:36:36.123Z");
  EXPECT_EQ(FormatRfc3339(951'782'400'000), "2000-02-29T00:00:00.000Z");  // leap day
}

TEST(FormatRfc3339, HandlesTimesBefore1970) {
  EXPECT_EQ(FormatRfc3339(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339(-kMsPerDay), "1969-12-31T00:00:00.000Z");
}

TEST(ParseRfc3339, ParsesZuluAndFractions) {
  EXPECT_EQ(ParseRfc3339("2026-01-01T00:00:00Z"), 1'767'225'600'000);
  EXPECT_EQ(ParseRfc3339("2026-01-01T00:00:00.5Z"), 1'767'225'600'500);
  EXPECT_EQ(ParseRfc3339("2026-01-01T00:00:00.123Z"), 1'767'225'600'123);
  EXPECT_EQ(ParseRfc3339("2026-01-01T00:00:00.123456789Z"), 1'767'225'600'123);
  EXPECT_EQ(ParseRfc3339("2026-01-01t00:00:00z"), 1'767'225'600'000);
  EXPECT_EQ(ParseRfc3339("2026-01-01 00:00:00Z"), 1'767'225'600'000);
}

TEST(ParseRfc3339, AppliesNumericOffsets) {
  // 09:00 in Tokyo (+09:00) is midnight UTC.
  EXPECT_EQ(ParseRfc3339("2026-01-01T09:00:00+09:00"), 1'767'225'600'000);
  EXPECT_EQ(ParseRfc3339("2025-12-31T19:30:00-04:30"), 1'767'225'600'000);
  EXPECT_EQ(ParseRfc3339("2026-01-01T00:00:00+00:00"), 1'767'225'600'000);
  EXPECT_EQ(ParseRfc3339("2026-01-01T00:00:00-00:00"), 1'767'225'600'000);
}

TEST(ParseRfc3339, DateOnlyIsMidnightUtc) {
  EXPECT_EQ(ParseRfc3339("2026-01-01"), 1'767'225'600'000);
  EXPECT_EQ(ParseRfc3339("2024-02-29"), 1'709'164'800'000);
}

TEST(ParseRfc3339, RejectsNonRfc3339) {
  for (const char* bad :
       {"", "yesterday", "2026-13-01", "2026-02-30T00:00:00Z", "2025-02-29", "2026-00-10",
        "2026-01-00", "2026-1-01", "26-01-01", "2026-01-01T", "2026-01-01T00:00:00",
        "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z",
        "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+9:00", "2026-01-01T00:00:00+0900",
        "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00Zjunk", " 2026-01-01",
        "2026-01-01 ", "2026-01-01X00:00:00Z", "2026/01/01", "１２３４-01-01"}) {
    EXPECT_EQ(ParseRfc3339(bad), std::nullopt) << bad;
  }
}

TEST(Rfc3339, RoundTrips) {
  for (std::int64_t ms : {std::int64_t{0}, std::int64_t{1'767'225'600'001},
                          std::int64_t{4'102'444'799'999}, std::int64_t{-86'400'001}}) {
    EXPECT_EQ(ParseRfc3339(FormatRfc3339(ms)), ms) << ms;
  }
}

TEST(Clocks, SystemClockIsNearNowAndManualClockMovesOnlyWhenTold) {
  SystemClock sys;
  EXPECT_GT(sys.NowMs(), 1'700'000'000'000);  // after 2023
  ManualClock manual;
  EXPECT_EQ(manual.NowMs(), 1'767'225'600'000);
  manual.Advance(kMsPerDay);
  EXPECT_EQ(FormatRfc3339(manual.NowMs()), "2026-01-02T00:00:00.000Z");
  manual.Set(5);
  EXPECT_EQ(manual.NowMs(), 5);
}

}  // namespace
}  // namespace kioku::sdk
