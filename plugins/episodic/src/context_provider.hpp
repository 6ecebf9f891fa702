#pragma once
/// @file context_provider.hpp
/// The episodic layer's part of the context block (sdk/context.hpp): at session start, the
/// one-line summary of the project's last session other than the caller's own (priority
/// 0.8, kind "summary", trust "last session"): its newest active summary, whitespace
/// collapsed and cut to 300 bytes, else its title. Nothing for a prompt (a session summary
/// is standing context, not an answer to one prompt). Read only; project keys as the
/// layer's tools scope them (tool_support.hpp ProjectScope).

#include "tool_support.hpp"
#include "kioku/sdk/context.hpp"

namespace kioku::episodic {

sdk::ContextContribution ProvideContext(const ToolContext& env, const sdk::ContextRequest& request);

}  // namespace kioku::episodic
