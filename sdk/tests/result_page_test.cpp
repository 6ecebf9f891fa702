// ResultPage: a listing fits limit and byte room, stays contiguous, counts what it left out.
#include <gtest/gtest.h>

#include "kioku/sdk/result_page.hpp"

namespace kioku::sdk {
namespace {

TEST(ResultPageTest, StopsAtRoomThenCountsTheRest) {
  ResultPage page(10, 100, 250);
  EXPECT_TRUE(page.Offer(100));
  EXPECT_TRUE(page.Offer(100));
  EXPECT_FALSE(page.Offer(100));  // 300 > 250
  EXPECT_FALSE(page.Offer(1));    // contiguous: nothing after a refused row
  EXPECT_EQ(page.Shown(), 2u);
  EXPECT_EQ(page.Omitted(), 2u);
  EXPECT_TRUE(page.CutByRoom());
  Json out = Json::object();
  page.Describe(out);
  EXPECT_EQ(out["omitted"], 2);
  EXPECT_EQ(out["next_cursor"], "o:12");
  EXPECT_EQ(CursorOffset({{"cursor", "o:12"}}, "x"), 12u);
  EXPECT_NE(page.MoreText("claim_list").find("claim_list again with cursor \"o:12\""), std::string::npos);
}

TEST(ResultPageTest, LimitAndAnOversizedFirstRow) {
  ResultPage page(0, 1, 10);
  EXPECT_TRUE(page.Offer(1000));  // the first row always shows
  EXPECT_FALSE(page.Offer(1));
  EXPECT_FALSE(page.CutByRoom());
  Json out = Json::object();
  ResultPage none(0, 5, 10);
  none.Describe(out);
  EXPECT_EQ(out["omitted"], 0);
  EXPECT_FALSE(out.contains("next_cursor"));
  EXPECT_EQ(none.MoreText("x"), "");
}

TEST(ResultPageTest, CursorsThisHelperDidNotWriteAreRefused) {
  EXPECT_EQ(CursorOffset(Json::object(), "t"), 0u);
  for (const char* bad : {"", "o:", "12", "o:-1", "o:1x", "o:12345678901"}) {
    EXPECT_THROW(CursorOffset({{"cursor", bad}}, "t"), ToolError) << bad;
  }
  EXPECT_EQ(RowBytes(Json{{"a", 1}}, "line"), 4u + 7u);
}

}  // namespace
}  // namespace kioku::sdk
