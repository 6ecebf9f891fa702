#include "kioku/sdk/match_key.hpp"

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

TEST(MatchKey, FoldsCompatibilityFormsCaseAndUnicodeSpace) {
  EXPECT_EQ(MatchKey("Taro\u00A0"), "taro");
  EXPECT_EQ(MatchKey("\uFF34\uFF41\uFF52\uFF4F"), "taro");     // fullwidth
  EXPECT_EQ(MatchKey("cafe\u0301"), MatchKey("caf\u00E9"));      // decomposed vs composed
  EXPECT_EQ(MatchKey("caf\u00E9"), "caf\u00E9");                 // NFC form kept, not stripped
  EXPECT_EQ(MatchKey("Stra\u00DFe"), "strasse");                 // full case folding
  EXPECT_EQ(MatchKey("\u0130stanbul"), MatchKey("i\u0307stanbul"));
  EXPECT_EQ(MatchKey("  a\u3000\u2003\tb\n "), "a b");
  EXPECT_EQ(MatchKey("\u2460"), "1");                             // circled digit
  EXPECT_EQ(MatchKey("soft\u00ADhyphen"), "softhyphen");         // default ignorable
  EXPECT_EQ(MatchKey("\xFF" "abc"), "\uFFFD" "abc");             // invalid UTF-8 replaced
  EXPECT_EQ(MatchKey(""), "");
  EXPECT_EQ(MatchKey("東京タワー"), "東京タワー");
}

}  // namespace
// ASCII text takes a path of its own without ICU: it must give exactly what ICU gives. A
// trailing soft hyphen (U+00AD, default-ignorable, so NFKC_Casefold drops it) sends the
// same text through ICU.
TEST(MatchKey, AsciiPathAgreesWithIcuForEveryAsciiCharacter) {
  for (int c = 0; c < 0x80; ++c) {
    for (const std::string& s : {std::string(1, static_cast<char>(c)), "A" + std::string(1, static_cast<char>(c)) + "b",
                                 "  x" + std::string(2, static_cast<char>(c)) + "Y  "}) {
      EXPECT_EQ(MatchKey(s), MatchKey(s + "\u00AD")) << "character " << c;
    }
  }
  EXPECT_EQ(MatchKey("  Src/Auth\t\n Session.TS \r"), "src/auth session.ts");
}

// ICU is opened on first use; a key that NFKC expands beyond the first output buffer (U+FDFA
// is 18 UTF-16 units, holding three spaces) is asked for again at the reported length.
TEST(MatchKey, LoadsIcuAndFoldsExpansionsLongerThanTheFirstBuffer) {
  EXPECT_EQ(UnicodeMatchKeysProblem(), "");
  EXPECT_EQ(std::string(UnicodeLibraryName()).rfind("libicuuc.so.", 0), 0u);
  const std::string one =
      "\u0635\u0644\u0649 \u0627\u0644\u0644\u0647 \u0639\u0644\u064A\u0647 \u0648\u0633\u0644\u0645";
  EXPECT_EQ(MatchKey("\uFDFA"), one);
  std::string many, expected;
  for (int i = 0; i < 40; ++i) {
    many += "\uFDFA";
    expected += one;
  }
  EXPECT_EQ(MatchKey(many), expected);
  EXPECT_EQ(MatchKey("\u00A0\uFDFA\u3000"), one);
}

}  // namespace kioku::sdk
