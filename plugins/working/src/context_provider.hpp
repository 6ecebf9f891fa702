#pragma once
/// @file context_provider.hpp
/// The working layer's part of the context block (sdk/context.hpp), read only:
///   session start  open handoffs for this agent (addressed to it: priority 1.0; to anyone:
///                  0.6; never the agent's own), live file claims held by other agents (0.9;
///                  a holder without a recent heartbeat: 0.5, trust "stale"), and open
///                  questions (0.4), newest first;
///   prompt         only the claims by others on files the prompt names (a claimed path, or
///                  its file name of 4+ characters, appears in the prompt), 0.9.
/// Scope: the project as the tools resolve it (caller.project_id, else project_root).

#include "common.hpp"
#include "kioku/sdk/context.hpp"

namespace kioku::working {

sdk::ContextContribution ProvideContext(const ToolContext& env, const sdk::ContextRequest& request);

}  // namespace kioku::working
