#include <algorithm>
#include <set>

#include "compaction.hpp"
#include "tool_support.hpp"
#include "facets.hpp"
#include "test_util.hpp"

namespace kioku::episodic::testing {
namespace {

using nlohmann::json;

std::set<std::string> Keys(const std::vector<std::string>& v) {
  std::set<std::string> out;
  for (auto& s : v) out.insert(NormalizeKey(s));
  return out;
}

std::vector<std::string> SampleSummaries() {
  return {
      "Investigated slow GET /plots. We decided to use cursor pagination. "
      "Touched apps/api/src/routes/plots.ts and packages/db/src/queries/plots.ts. "
      "TODO: update the mobile client. The old response shape still works.",
      "## Decisions\n- keep Postgres for tests\n- use pnpm, not npm\nOpen items:\n"
      "- [ ] add regression test for overlap\n- follow-up with sam about the index\n"
      "Files touched: Makefile, scripts/deploy-staging.sh\nLots of back and forth on naming.",
      "Decision: staging DB is read-only. Still need to wire the CI job in "
      ".github/workflows/ci.yml. Shellcheck passes now. Everyone went home happy.",
      "Refactored the booking module. Next step: measure latency. "
      "We agreed to switch to exclusion constraints in packages/db/migrations/0007.sql.",
  };
}

TEST(Compaction, ConsolidatedKeepsEveryDecisionOpenItemAndFile) {
  std::vector<Summary> folded;
  std::int64_t t = Ms("2026-01-01T00:00:00Z");
  for (auto& text : SampleSummaries()) {
    Summary s;
    s.text = text;
    s.started_at = t;
    s.ended_at = t + 1000;
    t += 3'600'000;
    folded.push_back(s);
  }
  // A tiny highlight budget: the guarantee must not depend on it.
  const std::string out = BuildConsolidatedText(folded, 5);
  Facets got = ExtractFacets(out);
  std::set<std::string> want_d, want_o, want_f;
  for (auto& s : folded) {
    Facets f = ExtractFacets(s.text);
    for (auto& k : Keys(f.decisions)) want_d.insert(k);
    for (auto& k : Keys(f.open_items)) want_o.insert(k);
    for (auto& p : f.files) want_f.insert(p);
  }
  ASSERT_GE(want_d.size(), 5u);
  ASSERT_GE(want_o.size(), 5u);
  ASSERT_GE(want_f.size(), 6u);
  auto got_d = Keys(got.decisions), got_o = Keys(got.open_items);
  std::set<std::string> got_f(got.files.begin(), got.files.end());
  for (auto& d : want_d) EXPECT_TRUE(got_d.count(d)) << "lost decision: " << d << "\n" << out;
  for (auto& o : want_o) EXPECT_TRUE(got_o.count(o)) << "lost open item: " << o << "\n" << out;
  for (auto& p : want_f) EXPECT_TRUE(got_f.count(p)) << "lost file: " << p << "\n" << out;
  // Folding a consolidated summary again loses nothing either (idempotent extraction).
  Summary again;
  again.text = out;
  Facets twice = ExtractFacets(BuildConsolidatedText({again}, 5));
  EXPECT_EQ(Keys(twice.decisions), got_d);
  EXPECT_EQ(Keys(twice.open_items), got_o);
}

TEST(Compaction, IsDeterministicAndBoundsHighlights) {
  std::vector<Summary> folded;
  for (int i = 0; i < 20; ++i) {
    Summary s;
    s.text = "Paragraph " + std::to_string(i) + " about nothing in particular. " +
             std::string(200, 'x') + ".";
    folded.push_back(s);
  }
  const std::string a = BuildConsolidatedText(folded, 100);
  EXPECT_EQ(a, BuildConsolidatedText(folded, 100));
  EXPECT_LT(a.size(), 100u * 4 + 400u);
  EXPECT_NE(a.find("Paragraph 0 about nothing"), std::string::npos);
}

class CompactionToolTest : public EpisodicTest {
 protected:
  nlohmann::json PluginSettings() const override {
    return {{"compaction", {{"session_token_budget", 1000}, {"keep_recent_fraction", 0.3}}}};
  }
};

TEST_F(CompactionToolTest, OverBudgetFoldsOlderSummariesAndKeepsOriginals) {
  CallOk("session_start", {{"session_id", "s-1"}});
  const auto texts = SampleSummaries();
  std::vector<std::string> ids;
  json last;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    rt_.clock->Advance(60'000);
    auto r = CallOk("session_summary_add",
                    {{"session_id", "s-1"}, {"summary", texts[i]}, {"token_count", 300}});
    ids.push_back(r.structured["summary_id"]);
    last = r.structured;
  }
  // 4 × 300 = 1200 > 1000: the newest stays (300 <= 0.3 × 1000), the three older fold.
  ASSERT_TRUE(last["compaction"].is_object()) << last.dump();
  EXPECT_EQ(last["compaction"]["folded"], 3);
  EXPECT_EQ(Count("episodic_summaries", "status = 'folded'"), 3);
  EXPECT_EQ(Count("episodic_summaries", "status = 'active'"), 2);
  EXPECT_EQ(Count("episodic_summaries", "status = 'folded' AND folded_into = '" +
                                            last["compaction"]["consolidated_id"].get<std::string>() +
                                            "'"),
            3);
  // Originals keep their full text.
  EXPECT_EQ(Count("episodic_summaries", "id = '" + ids[0] + "' AND summary = '" +
                                            std::string("Investigated slow GET /plots.") + "'"),
            0);
  EXPECT_EQ(Count("episodic_summaries", "id = '" + ids[0] + "' AND length(summary) = " +
                                            std::to_string(texts[0].size())),
            1);
  // Recall sees the consolidated summary and the newest one, never the folded originals.
  auto r = CallOk("session_recall", {{"query", "pnpm"}});
  ASSERT_EQ(r.structured["summaries"].size(), 1u);
  EXPECT_EQ(r.structured["summaries"][0]["kind"], "consolidated");
  auto all = CallOk("session_recall", json::object());
  EXPECT_EQ(all.structured["summaries"].size(), 2u);
}

TEST_F(CompactionToolTest, UnderBudgetDoesNothing) {
  CallOk("session_start", {{"session_id", "s-1"}});
  auto r = CallOk("session_summary_add",
                  {{"session_id", "s-1"}, {"summary", "short"}, {"token_count", 900}});
  EXPECT_TRUE(r.structured["compaction"].is_null());
  EXPECT_EQ(Count("episodic_summaries", "status = 'folded'"), 0);
}

}  // namespace
}  // namespace kioku::episodic::testing
