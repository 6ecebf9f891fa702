#include "semantic_plugin.hpp"

#include "context_provider.hpp"
#include "decay.hpp"
#include "golden_eval.hpp"
#include "model_tools.hpp"
#include "schema.hpp"
#include "settings.hpp"
#include "tools.hpp"
#include "exporter.hpp"
#include "foreign_formats.hpp"

namespace kioku::semantic {

// The host validated the settings against SettingsSchema before constructing the plugin.
SemanticPlugin::SemanticPlugin(sdk::HostServices& host)
    : host_(host), ctx_(std::make_unique<ToolContext>(host, ParseSettings(host.Settings()))) {}

SemanticPlugin::~SemanticPlugin() = default;

nlohmann::json SemanticPlugin::SettingsSchema() { return semantic::SettingsSchema(); }

std::string SemanticPlugin::Instructions() const {
  return "Semantic memory (what is known): call memory_recall before deciding anything that "
         "may already be settled (tools, conventions, decisions, user preferences); call "
         "memory_remember when the user states a preference, a decision is made or a "
         "correction is given. Treat memories "
         "labelled unconfirmed or contested as hints to verify.";
}

std::vector<sdk::Migration> SemanticPlugin::Migrations() const {
  return semantic::Migrations(host_.Projects());
}

void SemanticPlugin::Register(sdk::Registrar& registrar) {
  sdk::ExporterSpec exporter = SemanticExporter();
  exporter.foreign_formats = SemanticForeignFormats(host_, ctx_->settings);
  registrar.AddExporter(exporter);
  RegisterWriteTools(registrar, *ctx_);
  RegisterRecallTool(registrar, *ctx_);
  RegisterManageTools(registrar, *ctx_);
  RegisterGraphTools(registrar, *ctx_);
  RegisterReviewTools(registrar, *ctx_);
  RegisterReflectTool(registrar, *ctx_);
  RegisterExtractTool(registrar, *ctx_);
  registrar.AddCommand(RecallEvalCommand(ctx_->settings, ctx_->vectors->GetEmbedder()));
  registrar.AddCommand(EmbedCommand(*ctx_));
  registrar.AddContextProvider({"semantic", [ctx = ctx_.get()](const sdk::ContextRequest& request) {
                                  return ProvideContext(*ctx, request);
                                }});
}

void SemanticPlugin::Start() {
  ctx_->worker->Start();
  // Housekeeping runs on the host's writer thread, never on start-up's path; so does the
  // catch-up of indexes a killed process left lagging (index_lag.hpp).
  MaybeScheduleMaintenance(*ctx_);
  ctx_->index_lag.QueueIfStale(ctx_->MakeEnv());
}

void SemanticPlugin::Stop() {
  ctx_->worker->Stop();
  ctx_->vectors->Save();
}

}  // namespace kioku::semantic
