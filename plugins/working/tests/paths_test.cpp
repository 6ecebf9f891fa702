#include <gtest/gtest.h>

#include "kioku/sdk/tool.hpp"
#include "paths.hpp"

namespace kioku::working {
namespace {

std::string ErrorOf(std::string_view in, std::string_view root = "/repo") {
  try {
    NormalizeClaimPath(in, root);
  } catch (const sdk::ToolError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(NormalizeClaimPath, RelativeSpellingsMeet) {
  EXPECT_EQ(NormalizeClaimPath("./a/../b", "/repo"), "b");
  EXPECT_EQ(NormalizeClaimPath("src//x.cc", "/repo"), "src/x.cc");
  EXPECT_EQ(NormalizeClaimPath("src/./x.cc", "/repo"), "src/x.cc");
  EXPECT_EQ(NormalizeClaimPath("docs/", "/repo"), "docs");
  EXPECT_EQ(NormalizeClaimPath("a b/ü.txt", "/repo"), "a b/ü.txt");
}

TEST(NormalizeClaimPath, AbsoluteInsideRootBecomesRelative) {
  EXPECT_EQ(NormalizeClaimPath("/repo/src/a.ts", "/repo"), "src/a.ts");
  EXPECT_EQ(NormalizeClaimPath("/repo/src/a.ts", "/repo/"), "src/a.ts");
  EXPECT_EQ(NormalizeClaimPath("/repo/x/../src/a.ts", "/repo"), "src/a.ts");
  // Leaving the root and coming back in is still inside.
  EXPECT_EQ(NormalizeClaimPath("../repo/a", "/repo"), "a");
}

TEST(NormalizeClaimPath, EscapesAreRefused) {
  EXPECT_NE(ErrorOf("../x").find("outside the project root"), std::string::npos);
  EXPECT_NE(ErrorOf("a/../../x").find("outside the project root"), std::string::npos);
  EXPECT_NE(ErrorOf("/etc/passwd").find("outside the project root"), std::string::npos);
  EXPECT_NE(ErrorOf("/repository/a").find("outside"), std::string::npos);
  EXPECT_NE(ErrorOf("..").find("outside"), std::string::npos);
}

TEST(NormalizeClaimPath, RootItselfEmptyAndControlCharsAreRefused) {
  EXPECT_NE(ErrorOf(".").find("project root itself"), std::string::npos);
  EXPECT_NE(ErrorOf("a/..").find("project root itself"), std::string::npos);
  EXPECT_NE(ErrorOf("/repo").find("project root itself"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("empty path"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string("a\nb")).find("control character"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string(kMaxPathBytes + 1, 'a')).find("longer than 1024"),
            std::string::npos);
}

TEST(NormalizeClaimPath, WithoutRootOnlyRelativePaths) {
  EXPECT_EQ(NormalizeClaimPath("./a/../b", ""), "b");
  EXPECT_NE(ErrorOf("/abs/a", "").find("names no project root"), std::string::npos);
  EXPECT_NE(ErrorOf("../a", "").find("outside"), std::string::npos);
}

TEST(NormalizeClaimPaths, DeduplicatesAndBounds) {
  auto out = NormalizeClaimPaths({"b", "./b", "a", "/repo/a", "c/../b"}, "/repo", 10);
  EXPECT_EQ(out, (std::vector<std::string>{"b", "a"}));
  try {
    NormalizeClaimPaths({}, "/repo", 10);
    ADD_FAILURE() << "empty list accepted";
  } catch (const sdk::ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("paths is empty"), std::string::npos);
  }
  std::vector<std::string> many(10'000, "a");
  try {
    NormalizeClaimPaths(many, "/repo", 256);
    ADD_FAILURE() << "10,000 paths accepted";
  } catch (const sdk::ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("10000 in one call, the limit is 256"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kioku::working
