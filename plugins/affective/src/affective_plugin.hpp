#pragma once
/// @file affective_plugin.hpp
/// The affective memory layer: "does this tool usually work?". Records tool outcomes
/// (explicitly, from every kioku tool call, and from agent hooks), keeps per-day buckets,
/// and ranks tools by a recency-weighted Wilson lower bound. See README.md.

#include <memory>
#include <optional>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "capture.hpp"
#include "recorder.hpp"
#include "settings.hpp"
#include "tools.hpp"

namespace kioku::affective {

class AffectivePlugin : public sdk::Plugin {
 public:
  explicit AffectivePlugin(sdk::HostServices& host);

  static nlohmann::json SettingsSchema();
  std::vector<sdk::Migration> Migrations() const override;
  /// Registers feedback_record/query/route, the `hook` command and (when `capture` is on)
  /// the tool.called subscription.
  void Register(sdk::Registrar& registrar) override;
  /// Rebuilds decayed totals if half_life_days changed; runs a retention pass if due.
  void Start() override;

 private:
  sdk::HostServices& host_;
  Settings settings_;
  Recorder recorder_;
  ToolContext context_;
  CaptureBuffer captured_;
};

}  // namespace kioku::affective
