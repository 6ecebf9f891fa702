#include "semantic_plugin.hpp"

#include "golden_eval.hpp"
#include "schema.hpp"
#include "settings.hpp"
#include "tools.hpp"

namespace kioku::semantic {

SemanticPlugin::SemanticPlugin(sdk::HostServices& host) : host_(host) {}

SemanticPlugin::~SemanticPlugin() = default;

nlohmann::json SemanticPlugin::SettingsSchema() { return semantic::SettingsSchema(); }

std::string SemanticPlugin::Instructions() const {
  return "Semantic memory (what is known): call memory_recall before deciding anything that "
         "may already be settled (tools, conventions, decisions, user preferences); call "
         "memory_remember when the user states a preference, a decision is made or a "
         "correction is given (memory_suggest for things you only inferred). Treat memories "
         "labelled unconfirmed or contested as hints to verify.";
}

std::vector<sdk::Migration> SemanticPlugin::Migrations() const { return SemanticMigrations(); }

void SemanticPlugin::Register(sdk::Registrar& registrar) {
  // Settings are validated by the host before Register; read them once here.
  ctx_ = std::make_unique<PluginContext>(host_, ParseSettings(host_.Settings()));
  RegisterWriteTools(registrar, *ctx_);
  RegisterRecallTool(registrar, *ctx_);
  RegisterManageTools(registrar, *ctx_);
  RegisterGraphTools(registrar, *ctx_);
  registrar.AddCommand(RecallEvalCommand(ctx_->settings));
}

}  // namespace kioku::semantic
