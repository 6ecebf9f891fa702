#pragma once
/// @file context_provider.hpp
/// The procedural layer's lines in `kioku context` (sdk/context.hpp): at session start, the
/// project's latest open plan with its ready tasks — the first at priority 0.9 ("the active
/// plan's next task"), up to two more at 0.6. Nothing for a prompt (a plan is session-start
/// context, not an answer to one prompt). Read only.

#include "kioku/sdk/context.hpp"
#include "kioku/sdk/host.hpp"

namespace kioku::procedural {

sdk::ContextContribution ProvideContext(sdk::HostServices& host, const sdk::ContextRequest& request);

}  // namespace kioku::procedural
