#pragma once
// A tool that tells the test when it is running and then waits for cancellation, so a
// cancel provably reaches a running handler (no sleeps, no timing). Shared by the dispatcher
// and stdio tests.

#include <atomic>
#include <future>
#include <thread>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/tool.hpp"

namespace kioku::host::testing {

struct Gate {
  std::promise<void> started;
  std::atomic<bool> saw_cancel{false};
};

/// Registers `gate_wait`: sets Gate::started, then runs until its call is cancelled.
class GatePlugin final : public sdk::Plugin {
 public:
  GatePlugin(sdk::HostServices&, Gate& gate) : gate_(gate) {}
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec wait;
    wait.name = "gate_wait";
    wait.description = "Signals that it started, then runs until cancelled.";
    r.AddTool(wait, [this](const nlohmann::json&, const sdk::CallContext& ctx) {
      gate_.started.set_value();
      while (!ctx.Cancelled()) std::this_thread::yield();
      gate_.saw_cancel = true;
      return sdk::ToolResult::Ok("cancelled");
    });
  }

 private:
  Gate& gate_;
};

}  // namespace kioku::host::testing
