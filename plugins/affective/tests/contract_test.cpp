// Contract of feedback_record as the episodic layer calls it (sdk/layer_contracts.hpp):
// the SDK's payload builders produce arguments the real tool accepts, and the result
// carries the field episodic reads. Renaming either side turns this test red.
#include "kioku/sdk/layer_contracts.hpp"
#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

class FeedbackRecordContract : public AffectiveTest {};

TEST_F(FeedbackRecordContract, BatchFromTheSdkBuildersIsRecordedAndReportsExpired) {
  Start();
  sdk::contract::ToolOutcome full;
  full.tool = "Bash";
  full.outcome = "failure";
  full.session_id = "s1";
  full.project_id = "/tmp/project";
  full.at_ms = Now() - 1000;
  full.agent_id = "claude-code";
  full.model = "claude-sonnet-4";
  full.latency_ms = 12.5;
  full.error = "exit 1";
  full.source_id = "toolu_1";
  sdk::contract::ToolOutcome old;
  old.tool = "Edit";
  old.outcome = "success";
  old.at_ms = Now() - 400 * sdk::kMsPerDay;  // beyond retention_days (90)...
  old.source_id = "toolu_old";               // ...and deduplicated: refused as expired
  sdk::contract::ToolOutcome minimal;
  minimal.tool = "Read";
  minimal.outcome = "success";

  const sdk::Json args = sdk::contract::FeedbackRecordArgs(sdk::Json::array(
      {sdk::contract::FeedbackRecordItem(full), sdk::contract::FeedbackRecordItem(old),
       sdk::contract::FeedbackRecordItem(minimal)}));
  const sdk::Json out = Ok(sdk::contract::kFeedbackRecord, args);
  EXPECT_EQ(out["recorded"], 2);
  EXPECT_EQ(sdk::contract::FeedbackRecordExpired(out), 1);

  // Re-sending the same source_id is idempotent (episodic's outbox may retry).
  const sdk::Json again = Ok(sdk::contract::kFeedbackRecord,
                             sdk::contract::FeedbackRecordArgs(
                                 sdk::Json::array({sdk::contract::FeedbackRecordItem(full)})));
  EXPECT_EQ(again["duplicates"], 1);
}

}  // namespace
}  // namespace kioku::affective::testing
