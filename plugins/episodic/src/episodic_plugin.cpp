#include "episodic_plugin.hpp"

#include "capture_hook.hpp"
#include "context_provider.hpp"
#include "schema.hpp"
#include "tools.hpp"
#include "exporter.hpp"

namespace kioku::episodic {

EpisodicPlugin::EpisodicPlugin(sdk::HostServices& host)
    // Validated and defaulted by the host before construction (ABI 2).
    : env_{host, ParseSettings(host.Settings())} {}

nlohmann::json EpisodicPlugin::SettingsSchema() { return episodic::SettingsSchema(); }

std::vector<sdk::Migration> EpisodicPlugin::Migrations() const {
  return episodic::Migrations(env_.host.Projects());
}

void EpisodicPlugin::Register(sdk::Registrar& registrar) {
  registrar.AddExporter(EpisodicExporter());
  RegisterSessionTools(registrar, env_);
  RegisterRecallTools(registrar, env_);
  RegisterIngestTools(registrar, env_);
  registrar.AddCommand(CaptureHookCommand(env_));
  registrar.AddContextProvider({"episodic", [env = &env_](const sdk::ContextRequest& request) {
                                  return ProvideContext(*env, request);
                                }});
}

}  // namespace kioku::episodic
