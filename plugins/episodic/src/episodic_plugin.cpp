#include "episodic_plugin.hpp"

#include "capture_hook.hpp"
#include "context_provider.hpp"
#include "schema.hpp"
#include "tools.hpp"
#include "exporter.hpp"
#include "highlights.hpp"

namespace kioku::episodic {

EpisodicPlugin::EpisodicPlugin(sdk::HostServices& host)
    // Validated and defaulted by the host before construction (ABI 2).
    : env_{host, ParseSettings(host.Settings())},
      vectors_(std::make_unique<sdk::LayerVectors>(
          SummaryVectorTables(), host.GetEmbedder(), host.DataDir(),
          sdk::ParseVectorSettings(host.Settings().value("vectors", nlohmann::json::object())), &host.Log())),
      worker_(std::make_unique<sdk::EmbedWorker>(host, *vectors_)) {}

EpisodicPlugin::~EpisodicPlugin() = default;

nlohmann::json EpisodicPlugin::SettingsSchema() { return episodic::SettingsSchema(); }

std::vector<sdk::Migration> EpisodicPlugin::Migrations() const {
  return episodic::Migrations(env_.host.Projects());
}

void EpisodicPlugin::Register(sdk::Registrar& registrar) {
  registrar.AddExporter(EpisodicExporter());
  RegisterSessionTools(registrar, env_);
  RegisterRecallTools(registrar, env_, *vectors_);
  RegisterIngestTools(registrar, env_);
  registrar.AddCommand(CaptureHookCommand(env_));
  registrar.AddCommand(RefineCommand(env_));
  registrar.AddCommand(sdk::EmbedCommandSpec(env_.host, *vectors_, *worker_));
  registrar.AddContextProvider({"episodic", [env = &env_](const sdk::ContextRequest& request) {
                                  return ProvideContext(*env, request);
                                }});
}

void EpisodicPlugin::Start() { worker_->Start(); }

void EpisodicPlugin::Stop() {
  worker_->Stop();
  vectors_->Save();
}

}  // namespace kioku::episodic
