// Contract of memory_suggest as the episodic layer calls it (sdk/layer_contracts.hpp): the
// SDK's payload builder produces arguments the real tool accepts and stores as pending.
#include "kioku/sdk/layer_contracts.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

TEST_F(SemanticTest, MemorySuggestAcceptsTheSdkPayload) {
  sdk::contract::MemorySuggestion s;
  s.text = "From now on run the linter before committing";
  s.kind = "preference";
  s.source = "import";
  s.source_ref = "session.jsonl:12 (2026-03-01T12:00:00.000Z)";
  s.tags = {"transcript", "claude-code"};
  const Json out = Ok(sdk::contract::kMemorySuggest, sdk::contract::MemorySuggestArgs(s));
  ASSERT_EQ(out["results"].size(), 1u);
  EXPECT_EQ(out["results"][0]["status"], "pending");

  s.text = "We use pnpm, not yarn";
  s.kind = "decision";
  s.subject = "package manager";
  s.value = "pnpm";
  const Json keyed = Ok(sdk::contract::kMemorySuggest, sdk::contract::MemorySuggestArgs(s));
  EXPECT_EQ(keyed["results"][0]["status"], "pending");
}

}  // namespace
}  // namespace kioku::semantic::testing
