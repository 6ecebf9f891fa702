#include "episodic_plugin.hpp"

#include "capture_hook.hpp"
#include "context_provider.hpp"
#include "schema.hpp"
#include "tools.hpp"
#include "exporter.hpp"

namespace kioku::episodic {

EpisodicPlugin::EpisodicPlugin(sdk::HostServices& host)
    : env_(std::make_unique<Env>(Env{host, Settings{}})) {}

nlohmann::json EpisodicPlugin::SettingsSchema() { return episodic::SettingsSchema(); }

std::vector<sdk::Migration> EpisodicPlugin::Migrations() const { return EpisodicMigrations(env_->host.Projects()); }

void EpisodicPlugin::Register(sdk::Registrar& registrar) {
  registrar.AddExporter(EpisodicExporter());
  // Settings are validated by the host before Register; read them here, once.
  env_->settings = ParseSettings(env_->host.Settings());
  RegisterSessionTools(registrar, *env_);
  RegisterRecallTools(registrar, *env_);
  RegisterIngestTools(registrar, *env_);
  registrar.AddCommand(CaptureHookCommand(*env_));
  registrar.AddContextProvider({"episodic", [env = env_.get()](const sdk::ContextRequest& request) {
                                  return ProvideContext(*env, request);
                                }});
}

}  // namespace kioku::episodic
