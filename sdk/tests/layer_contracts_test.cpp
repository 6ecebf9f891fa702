#include "kioku/sdk/layer_contracts.hpp"

#include <gtest/gtest.h>

namespace kioku::sdk::contract {
namespace {

TEST(LayerContracts, ToolNamesAreTheCalleesNames) {
  EXPECT_EQ(kSessionStart, "session_start");
  EXPECT_EQ(kSessionSummaryAdd, "session_summary_add");
  EXPECT_EQ(kMemorySuggest, "memory_suggest");
  EXPECT_EQ(kFeedbackRecord, "feedback_record");
}

TEST(LayerContracts, EpisodicPayloads) {
  EXPECT_EQ(SessionStartArgs("s1"), (Json{{"session_id", "s1"}}));
  EXPECT_EQ(SessionSummaryAddArgs("s1", "done"), (Json{{"session_id", "s1"}, {"summary", "done"}}));
}

TEST(LayerContracts, MemorySuggestPayload) {
  const Json j = MemorySuggestArgs({"use pnpm", "preference", "import", "a.jsonl:3", {"transcript"}, "", ""});
  EXPECT_EQ(j, (Json{{"text", "use pnpm"},
                     {"kind", "preference"},
                     {"source", "import"},
                     {"source_ref", "a.jsonl:3"},
                     {"tags", {"transcript"}}}));
  MemorySuggestion keyed{"use pnpm", "preference", "import", "a.jsonl:3", {}, "package manager", "pnpm"};
  EXPECT_EQ(MemorySuggestArgs(keyed).at("subject"), "package manager");
  EXPECT_EQ(MemorySuggestArgs(keyed).at("value"), "pnpm");
}

TEST(LayerContracts, FeedbackRecordItemLeavesOutWhatTheCalleeDefaults) {
  ToolOutcome o;
  o.tool = "Bash";
  o.outcome = "failure";
  EXPECT_EQ(FeedbackRecordItem(o), (Json{{"tool", "Bash"}, {"outcome", "failure"},
                                        {"session_id", ""}, {"project_id", ""}}));
  o.at_ms = 0;
  o.latency_ms = 5;
  o.source_id = "toolu_1";
  const Json full = FeedbackRecordItem(o);
  EXPECT_EQ(full.at("at"), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(full.at("latency_ms"), 5.0);
  EXPECT_EQ(full.at("source_id"), "toolu_1");
  EXPECT_FALSE(full.contains("agent_id"));
  EXPECT_EQ(FeedbackRecordArgs(Json::array({full})).at("records").size(), 1u);
}

TEST(LayerContracts, ExpiredIsReadOnlyFromAnInteger) {
  EXPECT_EQ(FeedbackRecordExpired({{"expired", 2}}), 2);
  EXPECT_EQ(FeedbackRecordExpired({{"expired", "2"}}), std::nullopt);
  EXPECT_EQ(FeedbackRecordExpired(nullptr), std::nullopt);
}

}  // namespace
}  // namespace kioku::sdk::contract
