#pragma once
/// @file tools.hpp
/// Registration of the working layer's tool groups. Each group lives in its own file;
/// handlers capture `env` by reference (the plugin owns it and outlives every tool).

#include "common.hpp"
#include "kioku/sdk/plugin.hpp"

namespace kioku::working {

/// presence_ping, presence_list.
void RegisterPresenceTools(sdk::Registrar& registrar, const ToolContext& env);

/// The presence rule across layers: presence_ping and every working-layer write create or
/// refresh the caller's heartbeat inside their own transaction; every other successful
/// call of a tool not annotated read_only (memory_remember, session_log, feedback_record,
/// plan_update, …, any layer) refreshes an existing heartbeat of its caller in that
/// project. This handler, subscribed to sdk::kToolCalledTopic, does the latter with one
/// short write on the publishing thread (reads never write). Never throws: a failed touch
/// is logged and dropped (the next write retries it).
sdk::EventBus::Handler MakePresenceHandler(const ToolContext& env);
/// file_claim, file_release, claim_list.
void RegisterFileClaimTools(sdk::Registrar& registrar, const ToolContext& env);
/// block_write, block_read, block_list.
void RegisterBlockTools(sdk::Registrar& registrar, const ToolContext& env);
/// focus_get, focus_update.
void RegisterFocusTools(sdk::Registrar& registrar, const ToolContext& env);
/// handoff_write, handoff_inbox, handoff_claim.
void RegisterHandoffTools(sdk::Registrar& registrar, const ToolContext& env);
/// workspace_claim, workspace_release, workspace_status, workspace_dump.
void RegisterWorkspaceTools(sdk::Registrar& registrar, const ToolContext& env);
/// question_add, question_answer, question_list.
void RegisterQuestionTools(sdk::Registrar& registrar, const ToolContext& env);

}  // namespace kioku::working
