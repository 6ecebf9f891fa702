#include "working_plugin.hpp"

#include "context_provider.hpp"
#include "schema.hpp"
#include "settings.hpp"
#include "tools.hpp"
#include "exporter.hpp"

namespace kioku::working {

// The host validated and completed the settings before constructing the plugin (ABI 2), so
// the environment is whole from the start.
WorkingPlugin::WorkingPlugin(sdk::HostServices& host)
    : host_(host), env_(host, ParseSettings(host.Settings())) {}

nlohmann::json WorkingPlugin::SettingsSchema() { return working::SettingsSchema(); }

std::string WorkingPlugin::Instructions() const {
  return "Working memory (what am I doing, who else is here): start with workspace_status "
         "and handoff_inbox; claim your task with workspace_claim and the files you edit with "
         "file_claim (file_release when done); keep focus_update current; end with "
         "workspace_dump.";
}

std::vector<sdk::Migration> WorkingPlugin::Migrations() const {
  return working::Migrations(host_.Projects());
}

void WorkingPlugin::Register(sdk::Registrar& registrar) {
  registrar.AddExporter(WorkingExporter());
  RegisterWorkspaceTools(registrar, env_);
  RegisterFocusTools(registrar, env_);
  RegisterBlockTools(registrar, env_);
  RegisterHandoffTools(registrar, env_);
  RegisterPresenceTools(registrar, env_);
  RegisterFileClaimTools(registrar, env_);
  RegisterQuestionTools(registrar, env_);
  registrar.AddContextProvider({"working", [env = &env_](const sdk::ContextRequest& request) {
                                  return ProvideContext(*env, request);
                                }});
  host_.Events().Subscribe(sdk::kToolCalledTopic, MakePresenceHandler(env_));
}

}  // namespace kioku::working
