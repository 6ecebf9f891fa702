#include "kioku/sdk/args.hpp"

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kioku/sdk/clock.hpp"

namespace kioku::sdk {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <class F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const ToolError& e) {
    return e.what();
  }
  return "";
}

TEST(TimeArg, DateTimeNeedsZOrOffsetAndDateMeansMidnightUtc) {
  EXPECT_EQ(TimeArg({{"at", "2026-03-01T12:00:00Z"}}, "at"), 1772366400000);
  EXPECT_EQ(TimeArg({{"at", "2026-03-01T21:00:00+09:00"}}, "at"), 1772366400000);
  EXPECT_EQ(TimeArg({{"at", "2026-03-01"}}, "at"), 1772323200000);
  EXPECT_THAT(ErrorOf([] {
                TimeArg({{"at", "2026-03-01T12:00:00"}}, "at");
              }),
              StartsWith("`at` is not an RFC 3339 time: '2026-03-01T12:00:00'; send a "
                         "date-time with Z"));
}

TEST(TimeArg, AbsentOrNullIsNulloptAndNonStringsNamed) {
  EXPECT_EQ(TimeArg(Json::object(), "at"), std::nullopt);
  EXPECT_EQ(TimeArg({{"at", nullptr}}, "at"), std::nullopt);
  EXPECT_THAT(ErrorOf([] { TimeArg({{"at", 5}}, "at"); }), HasSubstr("got number"));
  EXPECT_THAT(ErrorOf([] { ParseTime(Json("x"), "records[2].at"); }),
              StartsWith("`records[2].at` is not an RFC 3339 time: 'x'"));
}

TEST(TimeArg, WindowIsHalfOpen) {
  CheckTimeWindow(1, 2);
  CheckTimeWindow(std::nullopt, 2);
  EXPECT_THAT(ErrorOf([] { CheckTimeWindow(2, 2); }), HasSubstr("the window is [since, until)"));
}

TEST(TextArg, BoundsInBytesAndSanitizes) {
  EXPECT_EQ(TextArg({{"t", "abc"}}, "t", 3), "abc");
  EXPECT_EQ(TextArg(Json::object(), "t", 3), std::nullopt);
  EXPECT_EQ(ErrorOf([] { TextArg({{"t", "abcd"}}, "t", 3); }),
            "t is 4 bytes; the limit is 3 bytes — shorten it");
  EXPECT_EQ(TextArg({{"t", std::string("a\xff")}}, "t", 10), "a\xEF\xBF\xBD");
  EXPECT_EQ(ErrorOf([] { TextArg({{"t", 1}}, "t", 3); }), "t must be a string, got number");
}

TEST(TextArg, RequiredRefusesBlank) {
  EXPECT_EQ(RequiredTextArg({{"t", " x "}}, "t", 10), " x ");
  EXPECT_EQ(ErrorOf([] { RequiredTextArg({{"t", " \n"}}, "t", 10); }), "t is empty; send some text");
  EXPECT_EQ(ErrorOf([] { RequiredTextArg(Json::object(), "t", 10); }), "t is empty; send some text");
}

enum class Color { kRed, kBlue, kNone };

TEST(EnumArg, MapsWordsAndListsChoices) {
  const auto read = [](const Json& args) {
    return EnumArg(args, "color", {{"red", Color::kRed}, {"blue", Color::kBlue}}, Color::kNone);
  };
  EXPECT_EQ(read({{"color", "blue"}}), Color::kBlue);
  EXPECT_EQ(read(Json::object()), Color::kNone);
  EXPECT_EQ(ErrorOf([&] { read({{"color", "green"}}); }),
            "color 'green' is not one of: red, blue; send one of them");
}

TEST(IdArg, ResolvesPrefixThroughResolveIdPrefix) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY); INSERT INTO t VALUES ('01ABCDEF'), ('01XYZ000')");
  const IdColumn where{"t", "id", "thing"};
  EXPECT_EQ(IdArg(db, {{"id", "01AB"}}, "id", where), "01ABCDEF");
  EXPECT_EQ(IdArg(db, Json::object(), "id", where), std::nullopt);
  EXPECT_THAT(ErrorOf([&] { IdArg(db, {{"id", "01"}}, "id", where); }), HasSubstr("too short"));
  EXPECT_THAT(ErrorOf([&] { IdArg(db, {{"id", "zzzz"}}, "id", where); }),
              HasSubstr("unknown thing id"));
}

TEST(ScreenSecrets, WalksEveryStringAndNamesPathAndCharacter) {
  ScreenSecrets({{"text", "nothing here"}, {"n", 5}, {"tags", {"a", "b"}}});
  const std::string token = "ghp_" + std::string("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
  // "é" is two bytes: the offset is reported in characters, not bytes.
  const std::string msg =
      ErrorOf([&] { ScreenSecrets({{"records", {{{"error", "ok"}}, {{"error", "é " + token}}}}}); });
  EXPECT_THAT(msg, StartsWith("refused: `records[1].error` contains what looks like a secret "
                              "(github-token at character 2); nothing was stored."));
  EXPECT_THAT(ErrorOf([&] { ScreenSecrets(Json(token), "note"); }), StartsWith("refused: `note` "));
  EXPECT_THAT(ErrorOf([&] {
                ScreenSecrets({{"meta", {{token, 1}}}});
              }),
              HasSubstr("a key of `meta`"));
}

TEST(ScreenText, NamesTheField) {
  ScreenText("nothing here", "block key");
  const std::string token = "ghp_" + std::string("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
  EXPECT_THAT(ErrorOf([&] { ScreenText("x " + token, "block key"); }),
              StartsWith("refused: `block key` contains what looks like a secret (github-token "
                         "at character 2)"));
}

}  // namespace
}  // namespace kioku::sdk
