// What the background embed worker logs about failing and recovering endpoints.
#include "kioku/sdk/embed_worker.hpp"

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

EmbedPass Failed(const std::string& error, int rows = 4) {
  EmbedPass p;
  p.failed = rows;
  p.error = error;
  return p;
}

EmbedPass Stored(int rows) {
  EmbedPass p;
  p.stored = rows;
  return p;
}

TEST(EmbedFailureReport, WarnsOnceWhenFailingStartsThenHourlyThenNotesRecovery) {
  EmbedFailureReport report;
  EXPECT_FALSE(report.After(Stored(3), 0, "memories"));  // working: nothing to say
  EXPECT_FALSE(report.After(EmbedPass{}, 0, "memories"));  // idle

  auto warn = report.After(Failed("HTTP 401: invalid api key"), 1'000, "memories");
  ASSERT_TRUE(warn);
  EXPECT_EQ(warn->level, LogLevel::kWarn);
  EXPECT_EQ(warn->text,
            "embeddings: memories not embedded (4 in this batch): HTTP 401: invalid api key; recall falls back to text search; "
            "retried in the background (kioku embed --status, kioku doctor --online)");

  // Every later pass fails too, with an error that changes (an open circuit counts down):
  // one warning an hour, not one per pass.
  EXPECT_FALSE(report.After(Failed("circuit open ...; retrying after 29 s"), 2'000, "memories"));
  EXPECT_FALSE(report.After(Failed("circuit open ...; retrying after 28 s"), 3'000, "memories"));
  EXPECT_FALSE(report.After(Failed("x"), 1'000 + EmbedFailureReport::kRepeatMs - 1, "memories"));
  ASSERT_TRUE(report.After(Failed("x"), 1'000 + EmbedFailureReport::kRepeatMs, "memories"));
  EXPECT_FALSE(report.After(EmbedPass{}, 1'000 + EmbedFailureReport::kRepeatMs + 1, "memories"));  // idle

  auto back = report.After(Stored(7), 5'000'000, "memories");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->level, LogLevel::kInfo);
  EXPECT_EQ(back->text, "embeddings: the endpoint works again (memories embedded: 7)");
  EXPECT_FALSE(report.After(Stored(2), 5'000'001, "memories"));

  // Failing again after it worked warns at once.
  EXPECT_TRUE(report.After(Failed("connect failed"), 5'000'002, "memories"));
}

}  // namespace
}  // namespace kioku::sdk
