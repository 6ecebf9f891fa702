#include "episodic_plugin.hpp"

#include "schema.hpp"
#include "tools.hpp"

namespace kioku::episodic {

EpisodicPlugin::EpisodicPlugin(sdk::HostServices& host)
    : env_(std::make_unique<Env>(Env{host, Settings{}})) {}

nlohmann::json EpisodicPlugin::SettingsSchema() { return episodic::SettingsSchema(); }

std::vector<sdk::Migration> EpisodicPlugin::Migrations() const { return EpisodicMigrations(); }

void EpisodicPlugin::Register(sdk::Registrar& registrar) {
  // Settings are validated by the host before Register; read them here, once.
  env_->settings = ParseSettings(env_->host.Settings());
  RegisterSessionTools(registrar, *env_);
  RegisterRecallTools(registrar, *env_);
  RegisterIngestTools(registrar, *env_);
}

}  // namespace kioku::episodic
