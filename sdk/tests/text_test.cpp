#include "kioku/sdk/text.hpp"

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

TEST(Plural, OneIsSingularEverythingElsePlural) {
  EXPECT_EQ(Plural(1, "line", "lines"), "1 line");
  EXPECT_EQ(Plural(0, "line", "lines"), "0 lines");
  EXPECT_EQ(Plural(12, "memory", "memories"), "12 memories");
}

TEST(IsValidUtf8, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("café 東京タワー 😀"));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  EXPECT_TRUE(IsValidUtf8("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
  EXPECT_TRUE(IsValidUtf8(std::string_view("a\0b", 3)));
  EXPECT_TRUE(IsValidUtf8("ab東c"));
  EXPECT_FALSE(IsValidUtf8("ab東c\xFF"));
}

TEST(IsValidUtf8, RejectsMalformedText) {
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xF0\x80\x80\xAF"));  // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // U+D800 surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // U+110000
  EXPECT_FALSE(IsValidUtf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("\x80"));              // lone continuation
  EXPECT_FALSE(IsValidUtf8("abc\xE6\x9D"));       // truncated at the end
  EXPECT_FALSE(IsValidUtf8("\xFF"));
}

TEST(SanitizeUtf8, ReplacesEachMaximalSubpartWithOneReplacementCharacter) {
  EXPECT_EQ(SanitizeUtf8("ok"), "ok");
  EXPECT_EQ(SanitizeUtf8("a\xFF" "b"), "a\uFFFD" "b");
  // Truncated 3-byte sequence: one U+FFFD for both bytes (Unicode §3.9 example).
  EXPECT_EQ(SanitizeUtf8("a\xE6\x9D" "b"), "a\uFFFD" "b");
  // Surrogate: E D is a valid lead but A0 cannot follow it → three separate replacements.
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");
  EXPECT_EQ(SanitizeUtf8("東京"), "東京");
  EXPECT_EQ(SanitizeUtf8("ab東c\xFF" "de"), "ab東c\uFFFD" "de");
  EXPECT_TRUE(IsValidUtf8(SanitizeUtf8("\xC0\xAF\xF4\x90\x80\x80\x80\x80x")));
}

TEST(Utf8Length, CountsCodePointsAndInvalidBytes) {
  EXPECT_EQ(Utf8Length(""), 0u);
  EXPECT_EQ(Utf8Length("abc"), 3u);
  EXPECT_EQ(Utf8Length("東京タワー"), 5u);
  EXPECT_EQ(Utf8Length("😀"), 1u);
  EXPECT_EQ(Utf8Length("a\xFF\xFE"), 3u);
  // ASCII runs between other characters and invalid bytes, at both ends.
  EXPECT_EQ(Utf8Length("ab東c\xFF" "de😀"), 8u);
  EXPECT_EQ(Utf8Length("\xFF" "abc"), 4u);
}

TEST(TruncateUtf8, ReturnsShortTextUnchanged) {
  EXPECT_EQ(TruncateUtf8("hello", 5), "hello");
  EXPECT_EQ(TruncateUtf8("hello", 100), "hello");
}

TEST(TruncateUtf8, CountsEllipsisWithinBudget) {
  // "…" is 3 bytes, so 8 bytes leave 5 for text.
  EXPECT_EQ(TruncateUtf8("hello world", 8), "hello…");
  EXPECT_LE(TruncateUtf8("hello world", 8).size(), 8u);
  EXPECT_EQ(TruncateUtf8("hello world", 6, "..."), "hel...");
  EXPECT_EQ(TruncateUtf8("hello world", 4, ""), "hell");
}

TEST(TruncateUtf8, NeverSplitsACodePoint) {
  // Each kanji is 3 bytes: 7 bytes minus the 3-byte ellipsis leaves 4 → one kanji.
  EXPECT_EQ(TruncateUtf8("東京タワー", 7), "東…");
  EXPECT_EQ(TruncateUtf8("東京タワー", 5, ""), "東");
  for (std::size_t n = 0; n < 16; ++n) {
    EXPECT_TRUE(IsValidUtf8(TruncateUtf8("東京タワー😀", n))) << n;
    EXPECT_LE(TruncateUtf8("東京タワー😀", n).size(), n);
  }
}

TEST(TruncateAtBoundary, ReturnsTextThatFitsUnchanged) {
  EXPECT_EQ(TruncateAtBoundary("Fixed the bug. Then more.", 25), "Fixed the bug. Then more.");
}

TEST(TruncateAtBoundary, EndsAfterTheLastSentenceThatKeepsHalfTheBudget) {
  const std::string text = "Moved auth to JWT. Tests pass on CI. Next: rotate the signing keys weekly";
  EXPECT_EQ(TruncateAtBoundary(text, 50), "Moved auth to JWT. Tests pass on CI.");
  // The only sentence end is before half of the budget: cut at a word instead.
  EXPECT_EQ(TruncateAtBoundary("Done. Then we rotated the signing keys", 30), "Done. Then we rotated the…");
  // A sentence end needs a space after it: "v1.2" is not one.
  EXPECT_EQ(TruncateAtBoundary("Upgraded to v1.2 and then rebuilt everything", 24), "Upgraded to v1.2 and…");
  // A sentence that ends exactly at the budget is kept whole.
  EXPECT_EQ(TruncateAtBoundary("One two. Three four five", 8), "One two.");
}

TEST(TruncateAtBoundary, KnowsCjkFullStops) {
  // 。 and each kanji are 3 bytes.
  EXPECT_EQ(TruncateAtBoundary("東京タワー。大阪城へ行く", 24), "東京タワー。");
}

TEST(TruncateAtBoundary, FallsBackToACodePointCut) {
  EXPECT_EQ(TruncateAtBoundary("abcdefghijklmnopqrstuvwxyz", 10), "abcdefg…");
  for (std::size_t n = 0; n < 24; ++n) {
    const std::string cut = TruncateAtBoundary("東京 タワー。 😀 hello there", n);
    EXPECT_TRUE(IsValidUtf8(cut)) << n;
    EXPECT_LE(cut.size(), n) << n;
  }
}

TEST(TruncateUtf8, OmitsEllipsisThatDoesNotFit) {
  EXPECT_EQ(TruncateUtf8("hello", 2), "he");
  EXPECT_EQ(TruncateUtf8("hello", 0), "");
}

TEST(EstimateTokens, IsCeilOfBytesOverFour) {
  EXPECT_EQ(EstimateTokens(""), 0u);
  EXPECT_EQ(EstimateTokens("a"), 1u);
  EXPECT_EQ(EstimateTokens("abcd"), 1u);
  EXPECT_EQ(EstimateTokens("abcde"), 2u);
  EXPECT_EQ(EstimateTokens(std::string(400, 'x')), 100u);
}

TEST(CollapseWhitespace, CollapsesRunsAndTrims) {
  EXPECT_EQ(CollapseWhitespace(""), "");
  EXPECT_EQ(CollapseWhitespace("   "), "");
  EXPECT_EQ(CollapseWhitespace("  a \t\n b\r\n\nc  "), "a b c");
  EXPECT_EQ(CollapseWhitespace("one"), "one");
  EXPECT_EQ(CollapseWhitespace("東京\n\nタワー"), "東京 タワー");
}

}  // namespace
}  // namespace kioku::sdk
