#pragma once
/// @file working_plugin.hpp
/// The working memory layer: "what am I doing, and who else is here?" — workspace claim,
/// focus document, shared blocks, handoffs, presence, file claims and open questions, all
/// in the deployment's SQLite database so several server processes coordinate through it.

#include <memory>
#include <vector>

#include "common.hpp"
#include "kioku/sdk/plugin.hpp"

namespace kioku::working {

class WorkingPlugin : public sdk::Plugin {
 public:
  /// Parses the (validated, defaulted) settings; throws std::runtime_error naming the key
  /// on contradictions.
  explicit WorkingPlugin(sdk::HostServices& host);

  static nlohmann::json SettingsSchema();
  std::string Instructions() const override;
  std::vector<sdk::Migration> Migrations() const override;
  /// Registers every tool, the context provider and the presence subscriber.
  void Register(sdk::Registrar& registrar) override;

 private:
  sdk::HostServices& host_;
  ToolContext env_;  ///< Complete from construction; captured by reference by handlers.
};

}  // namespace kioku::working
