// Contract of session_start / session_summary_add as the working layer's workspace_dump
// calls them (sdk/layer_contracts.hpp): the SDK's payload builders produce arguments the
// real tools accept. Renaming either side turns this test red.
#include "kioku/sdk/layer_contracts.hpp"
#include "test_util.hpp"

namespace kioku::episodic::testing {
namespace {

TEST_F(EpisodicTest, WorkspaceDumpPayloadsAreAccepted) {
  const std::string session = "01JCONTRACTSESSION0000000";
  CallOk(sdk::contract::kSessionStart, sdk::contract::SessionStartArgs(session));
  auto r = CallOk(sdk::contract::kSessionSummaryAdd,
                  sdk::contract::SessionSummaryAddArgs(session, "## Workspace dump\n- decided X"));
  EXPECT_EQ(r.structured["session_id"], session);
  EXPECT_TRUE(r.structured["summary_id"].is_string());
}

}  // namespace
}  // namespace kioku::episodic::testing
