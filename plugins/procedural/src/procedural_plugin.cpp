#include "procedural_plugin.hpp"

#include "context_provider.hpp"
#include "schema.hpp"
#include "tool_support.hpp"
#include "exporter.hpp"
#include "kioku/sdk/settings.hpp"

namespace kioku::procedural {

// The host validated the settings against SettingsSchema before constructing the plugin.
ProceduralPlugin::ProceduralPlugin(sdk::HostServices& host)
    : host_(host),
      vectors_(std::make_unique<sdk::LayerVectors>(
          ProcedureVectorTables(), host.GetEmbedder(), host.DataDir(),
          sdk::ParseVectorSettings(host.Settings().value("vectors", nlohmann::json::object())), &host.Log())),
      worker_(std::make_unique<sdk::EmbedWorker>(host, *vectors_)),
      context_{host, vectors_.get()} {}

ProceduralPlugin::~ProceduralPlugin() = default;

nlohmann::json ProceduralPlugin::SettingsSchema() {
  return sdk::Settings({{"vectors", sdk::VectorSettingsSchema("Procedures")}});
}

std::string ProceduralPlugin::Instructions() const {
  return "Procedural memory (what plan am I executing, how do we do X): plan_status "
         "plan:\"latest\" shows the plan and its ready tasks; mark progress with plan_check; "
         "plan_validate before archiving. Before a recurring chore, procedure_find; after "
         "it, procedure_save with its outcome; save new know-how with procedure_save.";
}

std::vector<sdk::Migration> ProceduralPlugin::Migrations() const { return procedural::Migrations(); }

void ProceduralPlugin::Register(sdk::Registrar& registrar) {
  registrar.AddExporter(ProceduralExporter());
  RegisterPlanTools(registrar, context_);
  RegisterProcedureTools(registrar, context_);
  registrar.AddContextProvider({"procedural", [this](const sdk::ContextRequest& request) {
                                  return ProvideContext(host_, request);
                                }});
  registrar.AddCommand(sdk::EmbedCommandSpec(host_, *vectors_, *worker_));
}

void ProceduralPlugin::Start() { worker_->Start(); }

void ProceduralPlugin::Stop() {
  worker_->Stop();
  vectors_->Save();
}

}  // namespace kioku::procedural
