#include "procedural_plugin.hpp"

#include "context_provider.hpp"
#include "schema.hpp"
#include "tool_support.hpp"
#include "exporter.hpp"

namespace kioku::procedural {

ProceduralPlugin::ProceduralPlugin(sdk::HostServices& host) : host_(host), context_{host} {}

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
}

}  // namespace kioku::procedural
