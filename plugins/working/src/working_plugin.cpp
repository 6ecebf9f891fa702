#include "working_plugin.hpp"

#include "schema.hpp"
#include "settings.hpp"
#include "tools.hpp"

namespace kioku::working {

WorkingPlugin::WorkingPlugin(sdk::HostServices& host) : host_(host) {}

nlohmann::json WorkingPlugin::SettingsSchema() { return working::SettingsSchema(); }

std::string WorkingPlugin::Instructions() const {
  return "Working memory (what am I doing, who else is here): start with workspace_status, "
         "handoff_inbox and focus_get; claim your task with workspace_claim and the files you "
         "edit with file_claim (release when done); keep focus_update current; end with "
         "workspace_dump.";
}

std::vector<sdk::Migration> WorkingPlugin::Migrations() const {
  return working::Migrations();
}

void WorkingPlugin::Register(sdk::Registrar& registrar) {
  env_ = std::make_unique<Env>(host_, ParseSettings(host_.Settings()));
  RegisterWorkspaceTools(registrar, *env_);
  RegisterFocusTools(registrar, *env_);
  RegisterBlockTools(registrar, *env_);
  RegisterHandoffTools(registrar, *env_);
  RegisterPresenceTools(registrar, *env_);
  RegisterFileClaimTools(registrar, *env_);
  RegisterQuestionTools(registrar, *env_);
}

}  // namespace kioku::working
