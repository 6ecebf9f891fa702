#pragma once
/// @file procedural_plugin.hpp
/// The procedural memory layer: "what plan am I executing, and how do we do X here?" —
/// plans with tasks, dependencies, blockers, acceptance criteria, validation and an audit
/// trail (Markdown import/export), and reusable versioned procedures with success rates.

#include <memory>
#include <vector>

#include "kioku/sdk/embed_worker.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "tool_support.hpp"

namespace kioku::procedural {

class ProceduralPlugin : public sdk::Plugin {
 public:
  explicit ProceduralPlugin(sdk::HostServices& host);
  ~ProceduralPlugin() override;

  /// `vectors:` (sdk::VectorSettingsSchema): procedure embeddings for procedure_find.
  static nlohmann::json SettingsSchema();
  std::string Instructions() const override;
  std::vector<sdk::Migration> Migrations() const override;
  /// Registers plan_create/status/check/validate and procedure_save/find.
  void Register(sdk::Registrar& registrar) override;
  /// Starts the background embed worker (only with an embedder).
  void Start() override;
  /// Stops the worker and persists the HNSW graph.
  void Stop() override;

 private:
  sdk::HostServices& host_;
  std::unique_ptr<sdk::LayerVectors> vectors_;
  std::unique_ptr<sdk::EmbedWorker> worker_;
  ToolContext context_;
};

}  // namespace kioku::procedural
