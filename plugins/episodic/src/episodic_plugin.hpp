#pragma once
/// @file episodic_plugin.hpp
/// The episodic memory layer: "what happened last time?". Sessions, their logs and
/// summaries, recall by meaning and time, a timeline digest, compaction under a token
/// budget, and transcript ingest (Claude Code, Codex CLI, generic JSONL). See README.md.

#include <memory>

#include "tool_support.hpp"
#include "kioku/sdk/embed_worker.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"

namespace kioku::episodic {

class EpisodicPlugin : public sdk::Plugin {
 public:
  explicit EpisodicPlugin(sdk::HostServices& host);
  ~EpisodicPlugin() override;

  static nlohmann::json SettingsSchema();
  std::vector<sdk::Migration> Migrations() const override;
  void Register(sdk::Registrar& registrar) override;
  /// Starts the background embed worker of summaries (only with an embedder).
  void Start() override;
  /// Stops the worker and persists the HNSW graph.
  void Stop() override;

 private:
  ToolContext env_;  ///< Complete from construction; captured by reference by handlers.
  std::unique_ptr<sdk::LayerVectors> vectors_;  ///< Summary embeddings for session_recall.
  std::unique_ptr<sdk::EmbedWorker> worker_;
};

}  // namespace kioku::episodic
