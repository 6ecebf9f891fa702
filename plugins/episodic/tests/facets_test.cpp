#include <gtest/gtest.h>

#include <algorithm>

#include "facets.hpp"

namespace kioku::episodic {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(Facets, ClassifiesProseSentences) {
  Facets f = ExtractFacets(
      "Fixed the race in auth/session.ts. We decided to keep JWT stateless. "
      "TODO: write a regression test. The build is green.");
  EXPECT_TRUE(Has(f.decisions, "We decided to keep JWT stateless.")) << f.decisions.size();
  EXPECT_TRUE(Has(f.open_items, "write a regression test.")) << f.open_items.size();
  EXPECT_TRUE(Has(f.highlights, "The build is green."));
  EXPECT_TRUE(Has(f.files, "auth/session.ts"));
}

TEST(Facets, ReadsSectionsAndCheckboxes) {
  Facets f = ExtractFacets(
      "## Decisions\n- use pnpm\n- keep Postgres for tests\n\nNext steps:\n- add the CI job\n"
      "- [ ] update docs\nFiles touched: apps/api/src/routes/plots.ts, Makefile\n");
  EXPECT_EQ(f.decisions, (std::vector<std::string>{"use pnpm", "keep Postgres for tests"}));
  EXPECT_EQ(f.open_items, (std::vector<std::string>{"add the CI job", "update docs"}));
  EXPECT_EQ(f.files, (std::vector<std::string>{"apps/api/src/routes/plots.ts", "Makefile"}));
}

TEST(Facets, PathHeuristics) {
  EXPECT_TRUE(LooksLikePath("src/a.cpp"));
  EXPECT_TRUE(LooksLikePath("/etc/hosts"));
  EXPECT_TRUE(LooksLikePath("~/x/y"));
  EXPECT_TRUE(LooksLikePath("plots.ts"));
  EXPECT_TRUE(LooksLikePath("CMakeLists.txt"));
  EXPECT_FALSE(LooksLikePath("and/or"));
  EXPECT_FALSE(LooksLikePath("https://example.com/a.js"));
  EXPECT_FALSE(LooksLikePath("e.g"));
  EXPECT_FALSE(LooksLikePath("v1.2"));
  EXPECT_EQ(ExtractPaths("see (src/x.cpp:12), `b.py`."),
            (std::vector<std::string>{"src/x.cpp", "b.py"}));
}

TEST(Facets, SentenceSplitKeepsPunctuation) {
  EXPECT_EQ(SplitSentences("One. Two! Three? four"),
            (std::vector<std::string>{"One.", "Two!", "Three?", "four"}));
  EXPECT_EQ(SplitSentences("file.ts is fine"), (std::vector<std::string>{"file.ts is fine"}));
}

}  // namespace
}  // namespace kioku::episodic
