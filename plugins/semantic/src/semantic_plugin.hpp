#pragma once
/// @file semantic_plugin.hpp
/// The semantic memory layer ("what do I know?"): typed memories with trust, scope,
/// supersession and decay; hybrid recall; a bi-temporal entity graph; a golden-set
/// retrieval harness (`kioku recall-eval`).

#include <memory>
#include <string>
#include <vector>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"

namespace kioku::semantic {

struct ToolContext;

class SemanticPlugin : public sdk::Plugin {
 public:
  explicit SemanticPlugin(sdk::HostServices& host);
  ~SemanticPlugin() override;

  static nlohmann::json SettingsSchema();
  std::string Instructions() const override;
  std::vector<sdk::Migration> Migrations() const override;
  void Register(sdk::Registrar& registrar) override;
  /// Starts the background embed worker (only with an embedder) and housekeeping.
  void Start() override;
  /// Stops the worker and persists the HNSW graph.
  void Stop() override;

 private:
  sdk::HostServices& host_;
  std::unique_ptr<ToolContext> ctx_;
};

}  // namespace kioku::semantic
